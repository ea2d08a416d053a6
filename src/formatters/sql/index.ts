/** SQL through `@wasm-fmt/sql_fmt` (sqlformat-rs): no project file declares it; `mode: 'always'` or a user's choice. */
import { editorconfigFor } from '../../config/editorconfig.js';
import { deferredAdapter, type FormatterModule } from '../module.js';

export const sql: FormatterModule<object, object, 'sql_fmt'> = {
  id: 'sql',
  displayName: 'sql_fmt',
  adapterNames: ['sql_fmt'],
  languages: ['sql'],
  configFiles: ['.editorconfig'],
  defaults: { sql: 'sql_fmt' },
  wasm: [{ name: 'sql_fmt', package: '@wasm-fmt/sql_fmt', source: 'sql_fmt_bg.wasm', file: 'sql_fmt_bg.wasm' }],
  entry: true,
  settings: (project, _adapter, path) => ({ settings: editorconfigFor(project.editorconfig, path), ignored: [] }),
  builtins: (wasm) => {
    const source = wasm.sql_fmt;
    if (!source) return [];
    return [deferredAdapter({ name: 'sql_fmt', via: 'wasm', languages: ['sql'], supportsRange: false }, () => import('./adapter.js').then((m) => m.sqlFormatter({ wasm: source })))];
  },
};
