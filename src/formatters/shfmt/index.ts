/** Shell through sh-syntax (mvdan/sh's shfmt): declared by an `.editorconfig` section for shell files, which shfmt reads. */
import { editorconfigFor, shellSectionFor } from '../../config/editorconfig.js';
import type { FormatterModule } from '../module.js';

export const shfmt: FormatterModule<object, object, 'sh-syntax'> = {
  id: 'shfmt',
  displayName: 'shfmt',
  adapterNames: ['shfmt'],
  languages: ['shell'],
  configFiles: ['.editorconfig'],
  defaults: { shell: 'shfmt' },
  wasm: [{ name: 'sh-syntax', package: 'sh-syntax', source: 'main.wasm', file: 'sh-syntax.wasm' }],
  declares(project, path, language) {
    if (language !== 'shell') return undefined;
    const section = shellSectionFor(project.editorconfig, path);
    return section ? { formatter: 'shfmt', because: `${section.file} [${section.glob}] declares shell formatting (shfmt reads .editorconfig)` } : undefined;
  },
  settings: (project, _adapter, path) => ({ settings: editorconfigFor(project.editorconfig, path), ignored: [] }),
};
