/** clang-format (C, C++, Java, Protobuf, C#, Objective-C, Verilog, textproto): declared by `.clang-format` / `_clang-format`. */
import { clampEach, clampKeys } from '../../config/clamp.js';
import { isRecord } from '../../config/data.js';
import { dirOf, isUnder, nearest } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { clangFormatSettingsFor, CLANG_FORMAT_NAMES, loadClangFormat, type ClangFormatFile } from './config.js';

/** clang-format keys that add this many columns per nesting level or per comment. */
const CLANG_FORMAT_WIDTHS = ['IndentWidth', 'TabWidth', 'ContinuationIndentWidth', 'ConstructorInitializerIndentWidth', 'PPIndentWidth', 'ObjCBlockIndentWidth', 'BracedInitializerIndentWidth', 'SpacesBeforeTrailingComments'];

export const CLANG_FORMAT_LANGUAGES = ['c', 'cpp', 'java', 'proto', 'csharp', 'objective-c', 'verilog', 'textproto'] as const;

export interface ClangFormatPart {
  clangFormat: ClangFormatFile[];
}

export const clangFormat: FormatterModule<ClangFormatPart, object, 'clang-format'> = {
  id: 'clang-format',
  displayName: 'clang-format',
  adapterNames: ['clang-format'],
  languages: CLANG_FORMAT_LANGUAGES,
  configFiles: CLANG_FORMAT_NAMES,
  defaults: Object.fromEntries(CLANG_FORMAT_LANGUAGES.map((language) => [language, 'clang-format'])),
  wasm: [{ name: 'clang-format', package: '@wasm-fmt/clang-format', source: 'clang-format.wasm', file: 'clang-format.wasm' }],
  project: {
    empty: () => ({ clangFormat: [] }),
    load: (part, files, { ignored }) => part.clangFormat.push(...loadClangFormat(files, ignored)),
    clamp: (part, ignored) =>
      clampEach(part.clangFormat, ignored, (file, clamped) =>
        file.documents.forEach((document, index) => {
          const where = file.documents.length > 1 ? `document ${index + 1}: ` : '';
          clampKeys(document, CLANG_FORMAT_WIDTHS, file.file, where, 'clang-format', clamped);
          if (isRecord(document.SpacesInLineCommentPrefix)) clampKeys(document.SpacesInLineCommentPrefix, ['Minimum'], file.file, `${where}SpacesInLineCommentPrefix.`, 'clang-format', clamped);
        }),
      ),
  },
  declares(project, path, language) {
    if (!(CLANG_FORMAT_LANGUAGES as readonly string[]).includes(language)) return undefined;
    const file = nearest(project.clangFormat, path);
    return file ? { formatter: 'clang-format', because: `${file.file} declares clang-format` } : undefined;
  },
  settings: (project, _adapter, path, language) => ({
    settings: clangFormatSettingsFor(project.clangFormat, path, language),
    ignored: project.ignored.filter((i) => /(^|\/)[._]clang-format$/.test(i.file) && isUnder(dirOf(i.file), path)),
  }),
};
