/**
 * Shell through sh-syntax (mvdan/sh's shfmt): declared by an `.editorconfig` section for shell files,
 * which shfmt reads. A file without an extension is shell when its shebang names a shell (shebang.ts);
 * shfmt's walk enters every directory but `.git`, `.svn` and `.hg`.
 */
import { editorconfigFor, shellSectionFor } from '../../config/editorconfig.js';
import type { FormatterModule } from '../module.js';
import { mayBeScriptByShebang, SHEBANG_HEAD_BYTES, SHEBANG_MIN_BYTES, shellOfShebang, walkReadsShebangOf } from './shebang.js';

export const shfmt: FormatterModule<object, object, 'sh-syntax'> = {
  id: 'shfmt',
  displayName: 'shfmt',
  adapterNames: ['shfmt'],
  languages: ['shell'],
  configFiles: ['.editorconfig'],
  walksEveryDirectory: true,
  byFirstLine: {
    language: 'shell',
    mayBe: mayBeScriptByShebang,
    walkReads: walkReadsShebangOf,
    headBytes: SHEBANG_HEAD_BYTES,
    minBytes: SHEBANG_MIN_BYTES,
    recognise: shellOfShebang,
    describe: (shell) => `shell: the name has no extension and its shebang names ${shell}`,
    walkLeavesHiddenFiles: true,
    example: '#!/bin/sh',
  },
  defaults: { shell: 'shfmt' },
  wasm: [{ name: 'sh-syntax', package: 'sh-syntax', source: 'main.wasm', file: 'sh-syntax.wasm' }],
  declares(project, path, language) {
    if (language !== 'shell') return undefined;
    const section = shellSectionFor(project.editorconfig, path);
    return section ? { formatter: 'shfmt', because: `${section.file} [${section.glob}] declares shell formatting (shfmt reads .editorconfig)` } : undefined;
  },
  settings: (project, _adapter, path) => ({ settings: editorconfigFor(project.editorconfig, path), ignored: [] }),
};
