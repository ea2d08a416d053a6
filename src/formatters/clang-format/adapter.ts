/**
 * clang-format through `@wasm-fmt/clang-format` (an emscripten build with its own imports).
 * The adapter calls the package's emscripten factory itself, with the compiled module the host
 * gave, so it can capture clang-format's diagnostics (it prints the location of a style error to
 * stderr) instead of letting them reach the console.
 *
 * `settings` is the project's `.clang-format`, either as text (`{ style: 'BasedOnStyle: Google\n…' }`,
 * YAML, several `---` documents with `Language:` keys allowed) or as the parsed data object
 * (`{ BasedOnStyle: 'Google', IndentWidth: 8 }`), which is passed as JSON (a YAML flow mapping).
 * No settings means clang-format's own default, LLVM. The path's file name selects the language,
 * like `--assume-filename`.
 *
 * clang-format formats any token stream, so unbalanced code is formatted rather than rejected;
 * errors are style errors (unknown option, no section for the file's language).
 *
 * Range formatting (scope 'edit') uses clang-format's own `--offset/--length` mode (the same
 * binary and style, so the range gets exactly the style of the whole file): the UTF-16 range is
 * converted to a UTF-8 byte range here. clang-format widens it to whole lines/statements.
 */
import * as emscriptenGlue from '@wasm-fmt/clang-format/clang-format.js';
import { compileWasm, lazy } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { messageOf } from '../../core/errors.js';
import type { AdapterRequest, AdapterResult, LineEndingPolicy, FormatterAdapter, FormatterInfo, WasmSource } from '../../core/types.js';
import { utf16ToByteOffset } from '../../core/text.js';

export interface ClangFormatFormatterOptions {
  /** `clang-format.wasm` of `@wasm-fmt/clang-format`. */
  wasm: WasmSource;
}

/** The embind surface of the emscripten module (clang-format-binding.js wraps the same calls). */
interface ResultStatusEnum {
  Success: unknown;
  Error: unknown;
  Unchanged: unknown;
}
interface EmbindResult {
  status: unknown;
  content: string;
}
interface EmbindClangFormat {
  with_style(style: string): void;
  format(content: string, filename: string): EmbindResult;
  /** `offset` and `length` in UTF-8 bytes, like `clang-format --offset --length`. */
  format_range(content: string, filename: string, offset: number, length: number): EmbindResult;
  delete(): void;
}
interface ClangFormatModule {
  ClangFormat: { new (): EmbindClangFormat; version(): string };
  ResultStatus: ResultStatusEnum;
}
type CreateModule = (options: {
  wasm: WebAssembly.Module;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}) => ClangFormatModule;

const createModule = (emscriptenGlue as unknown as { createModule: CreateModule }).createModule;

/** The style string clang-format's `--style=` takes, from the adapter settings. */
export function clangStyle(settings: Record<string, unknown>): string {
  const style = settings['style'];
  if (typeof style === 'string' && style.trim() !== '') return style;
  if (style && typeof style === 'object') return JSON.stringify(style);
  const options = Object.fromEntries(Object.entries(settings).filter(([key]) => key !== 'style'));
  return Object.keys(options).length > 0 ? JSON.stringify(options) : 'LLVM';
}

/**
 * clang-format's `LineEnding` (LF, CRLF, DeriveLF — the default —, DeriveCRLF), or the older
 * `DeriveLineEnding`/`UseCRLF` pair, read from the style text (YAML or JSON).
 */
export function clangLineEnding(style: string): LineEndingPolicy {
  const value = (key: string): string | undefined => new RegExp(`["']?${key}["']?\\s*:\\s*["']?(\\w+)`).exec(style)?.[1];
  switch (value('LineEnding')) {
    case 'LF':
      return 'lf';
    case 'CRLF':
      return 'crlf';
    case 'DeriveCRLF':
      return 'majority-crlf';
    case 'DeriveLF':
      return 'majority-lf';
  }
  const useCrlf = value('UseCRLF') === 'true';
  if (value('DeriveLineEnding') === 'false') return useCrlf ? 'crlf' : 'lf';
  return useCrlf ? 'majority-crlf' : 'majority-lf';
}

export function clangFormatFormatter(options: ClangFormatFormatterOptions): FormatterAdapter {
  let diagnostics: string[] = [];
  const module = lazy(async () => {
    const compiled = await compileWasm(options.wasm, 'clang-format', BUILTIN_WASM_IDENTITY['clang-format']);
    const instance = createModule({
      wasm: compiled,
      print: () => {},
      printErr: (text) => {
        if (diagnostics.length < 20) diagnostics.push(text);
      },
    });
    const banner = instance.ClangFormat.version();
    return { instance, version: /(\d+\.\d+\.\d+)/.exec(banner)?.[1] ?? banner };
  });

  return {
    name: 'clang-format',
    via: 'wasm',
    languages: ['c', 'cpp', 'java', 'proto', 'csharp', 'objective-c', 'verilog', 'textproto'],
    supportsRange: true,

    async info(): Promise<FormatterInfo> {
      const { version } = await module.get();
      return { name: 'clang-format', version, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const { instance } = await module.get();
      const fileName = request.path.slice(request.path.lastIndexOf('/') + 1) || 'stdin.cpp';
      diagnostics = [];
      let formatter: EmbindClangFormat | undefined;
      try {
        formatter = new instance.ClangFormat();
        formatter.with_style(clangStyle(request.settings));
        const result = request.range
          ? formatter.format_range(request.text, fileName, ...byteRange(request.text, request.range.utf16Start, request.range.utf16End))
          : formatter.format(request.text, fileName);
        const lineEnding = clangLineEnding(clangStyle(request.settings));
        if (result.status === instance.ResultStatus.Unchanged) return { kind: 'ok', text: request.text, lineEnding };
        if (result.status === instance.ResultStatus.Error) {
          return { kind: 'error', message: describeError(result.content, diagnostics, request.language) };
        }
        // The text is LF; the engine writes the style's `LineEnding` (derived from the original file).
        return { kind: 'ok', text: result.content.includes('\r') ? result.content.replace(/\r\n?/g, '\n') : result.content, lineEnding };
      } catch (thrown) {
        return { kind: 'error', message: `clang-format wasm failed: ${messageOf(thrown)}` };
      } finally {
        formatter?.delete();
      }
    },

    async preload() {
      await module.get();
    },
  };
}

/** `[offset, length]` in UTF-8 bytes for a UTF-16 range of `text`. */
function byteRange(text: string, utf16Start: number, utf16End: number): [number, number] {
  const start = utf16ToByteOffset(text, utf16Start);
  return [start, utf16ToByteOffset(text, Math.max(utf16Start, utf16End)) - start];
}

/**
 * clang-format's result says only `Error parsing -style: Invalid argument`; the location is in
 * what it printed to stderr (`<command-line>:1:2: error: Unknown value for BasedOnStyle: Nope`).
 */
function describeError(content: string, printed: string[], language: string): string {
  if (/Unsuitable/.test(content)) return `the .clang-format style has no section for this file's language (${language})`;
  const located = printed.find((line) => /error:/.test(line));
  if (located) {
    const match = /^(?:<command-line>|[^:]*):(\d+):(\d+): error: (.*)$/.exec(located);
    const where = match ? `.clang-format ${match[1]}:${match[2]}: ${match[3]}` : located.replace(/^error: /, '.clang-format: ');
    return where;
  }
  return content.split('\n', 1)[0] || 'clang-format failed';
}
