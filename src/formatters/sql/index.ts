/** SQL through `@wasm-fmt/sql_fmt` (sqlformat-rs): no project file declares it; `mode: 'always'` or a user's choice. */
import { editorconfigFor } from '../../config/editorconfig.js';
import type { FormatterModule } from '../module.js';

export const sql: FormatterModule<object, object, 'sql_fmt'> = {
  id: 'sql',
  displayName: 'sql_fmt',
  adapterNames: ['sql_fmt'],
  languages: ['sql'],
  configFiles: ['.editorconfig'],
  defaults: { sql: 'sql_fmt' },
  wasm: [{ name: 'sql_fmt', package: '@wasm-fmt/sql_fmt', source: 'sql_fmt_bg.wasm', file: 'sql_fmt_bg.wasm' }],
  settings: (project, _adapter, path) => ({ settings: editorconfigFor(project.editorconfig, path), ignored: [] }),
};
