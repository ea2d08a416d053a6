/**
 * formatbox's EditorConfig normaliser: a WASI module built from wasm/editorconfig/editorconfig.c
 * (Debian's clang + wasi-libc, by wasm/editorconfig/build.mjs), run by the WASI runner (wasi.ts).
 *
 * It applies what an editor's EditorConfig plugin applies on save, to files no other formatter
 * covers (Makefile, .txt, .ini, .gitignore, …): trim_trailing_whitespace, insert_final_newline,
 * end_of_line, indent_style (leading whitespace re-written at tab_width), and charset utf-8 /
 * utf-8-bom (the BOM). It sees the file as it is (`rawText`): line endings and BOM are its job.
 *
 * `settings` are the properties `.editorconfig` gives the file (src/config/editorconfig.ts
 * `editorconfigFor`). Leading tabs of Makefiles are never turned into spaces (a recipe needs its tab).
 * Other charsets (latin1, utf-16*) are not applied: formatbox edits UTF-8 text.
 */
import type { AdapterRequest, FormatterAdapter, WasmSource } from '../../core/types.js';
import { wasiFormatter } from '../wasi.js';
import { EDITORCONFIG_NORMALISER_VERSION } from './index.js';

export { EDITORCONFIG_NORMALISER_VERSION };
export const EDITORCONFIG_NORMALISER_NAME = 'formatbox-editorconfig';

/** Files whose leading tabs are syntax. */
const MAKEFILE = /(^|\/)(GNUmakefile|makefile|Makefile|[^/]*\.mk|[^/]*\.make)$/;

/** The normaliser's arguments for one file's EditorConfig properties. */
export function editorconfigArgs(properties: Record<string, unknown>, path: string): string[] {
  const args: string[] = [];
  if (properties.trim_trailing_whitespace === 'true') args.push('--trim-trailing-whitespace');
  if (properties.insert_final_newline === 'true' || properties.insert_final_newline === 'false') args.push(`--insert-final-newline=${properties.insert_final_newline}`);
  if (properties.end_of_line === 'lf' || properties.end_of_line === 'crlf' || properties.end_of_line === 'cr') args.push(`--end-of-line=${properties.end_of_line}`);
  if (properties.indent_style === 'space' || properties.indent_style === 'tab') {
    args.push(`--indent-style=${properties.indent_style}`);
    const width = properties.tab_width;
    if (typeof width === 'number' && Number.isInteger(width) && width >= 1 && width <= 64) args.push(`--tab-width=${width}`);
  }
  if (properties.charset === 'utf-8' || properties.charset === 'utf-8-bom') args.push(`--charset=${properties.charset}`);
  if (MAKEFILE.test(path)) args.push('--keep-leading-tabs');
  return args;
}

export function editorconfigFormatter(options: { wasm: WasmSource }): FormatterAdapter {
  return wasiFormatter({
    wasm: options.wasm,
    name: 'editorconfig',
    info: { name: EDITORCONFIG_NORMALISER_NAME, version: EDITORCONFIG_NORMALISER_VERSION },
    languages: ['text'],
    args: (request: AdapterRequest) => editorconfigArgs(request.settings, request.path),
    // Built with a 64 MiB maximum (build.mjs); bytes get the same cap written in.
    memoryMaxBytes: 64 * 1024 * 1024,
    rawText: true,
  });
}
