/**
 * Ruff's formatter through `@astral-sh/ruff-wasm-web` 0.16.9, the same build in every runtime
 * (the web build is the newest one published for browsers, so Node loads it too).
 *
 * - Settings arrive in ruff.toml shape (kebab-case): `line-length`, `indent-width`, `target-version`
 *   (per file, from `per-file-target-version` or Ruff's `requires-python` fallback, in config.ts),
 *   `preview`, `format: {quote-style, indent-style, skip-magic-trailing-comma, docstring-code-format,
 *   docstring-code-line-length, nested-string-quote-style, preview}`. Everything else is dropped before Ruff sees it, because
 *   the format settings are all the formatting workspace needs. The whole table is judged first by
 *   Ruff's own loader (ruff-config-check.ts): what Ruff rejects, formatbox refuses. `format.line-ending` is forced to
 *   `lf`: the adapter gets LF text and the engine puts the file's own line endings back.
 * - One `Workspace` per distinct settings object, kept in a small cache.
 * - Stubs: the wasm `Workspace.format(source)` takes no path and always applies `.py` rules, while
 *   `ruff format` applies stub rules to `.pyi` (e.g. no blank lines between stub methods, one blank
 *   line between top-level stub classes). Formatting a stub with `.py` rules would fight the project's
 *   own `ruff format`. So `.pyi` files go to `@wasm-fmt/ruff_fmt` (which takes a path and applies stub
 *   rules) when its wasm is given as `ruffFmtWasm`, and are `unsupported` otherwise
 *   (`pyi: 'python-rules'` opts into .py rules).
 * - Range formatting (`scope: 'edit'`): Ruff's official wasm build has no range API, so ranges go to
 *   `@wasm-fmt/ruff_fmt` (Ruff 0.15.x compiled to wasm, with `format_range`) when its wasm is given as
 *   `ruffFmtWasm`. Receipts of ranges and stubs name that build and version, since it produced the
 *   text; whole .py files always go to the official build. Without `ruffFmtWasm` a range request
 *   formats the whole file and the receipt says so.
 */
import init, { PositionEncoding as ShippedPositionEncoding, Workspace as ShippedWorkspace } from '@astral-sh/ruff-wasm-web';
import initRuffFmt, { format as ruffFmtFormat, format_range as ruffFmtFormatRange } from '@wasm-fmt/ruff_fmt/web';
import { byteToUtf16Offset, utf16ToByteOffset } from '../../core/text.js';
import { compileWasm, lazy, preloadAll } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { createRuffConfigChecker, type RuffBindings } from './config-check.js';
import { messageOf } from '../../core/errors.js';
import type { AdapterRequest, AdapterResult, LineEndingPolicy, FormatterAdapter, FormatterInfo, Utf16Range, WasmSource } from '../../core/types.js';

/**
 * Another Ruff wasm build's bindings, as the host loaded them. Structural on purpose: formatbox's
 * public types must not pull in a wasm package's declarations.
 */
export interface RuffBindingsSource {
  Workspace: abstract new (...args: never[]) => object;
  PositionEncoding: object;
}

export interface RuffFormatterOptions {
  /** `ruff_wasm_bg.wasm` of `@astral-sh/ruff-wasm-web`. */
  wasm?: WasmSource;
  /**
   * Another Ruff build, already instantiated: the bindings of `@astral-sh/ruff-wasm-nodejs` at the
   * version a project pins, from the verified store. Then `wasm` is not used.
   */
  bindings?: () => Promise<RuffBindingsSource>;
  /**
   * What to do with `.pyi` stubs: `'stub-rules'` (the default when `ruffFmtWasm` is given) formats them
   * with Ruff's stub rules through `@wasm-fmt/ruff_fmt`; `'skip'` (the default otherwise) answers
   * `unsupported`; `'python-rules'` formats them like `.py` files with the official build.
   */
  pyi?: 'stub-rules' | 'skip' | 'python-rules';
  /** How many settings variants keep a live `Workspace`. Default 8. */
  maxWorkspaces?: number;
  /**
   * `ruff_fmt_bg.wasm` of `@wasm-fmt/ruff_fmt`: enables `scope: 'edit'` (range formatting) for Python
   * and stub rules for `.pyi`. Loaded only when a range or a stub is formatted.
   */
  ruffFmtWasm?: WasmSource;
}

/** The `@wasm-fmt/ruff_fmt` release formatbox ships (its wasm has no version export; a test checks this). */
export const RUFF_FMT_PACKAGE_VERSION = '0.15.20';
/** What the receipt of a range or a stub formatted by `@wasm-fmt/ruff_fmt` names. */
export const RUFF_FMT_INFO: FormatterInfo = { name: 'ruff', version: RUFF_FMT_PACKAGE_VERSION, via: 'wasm' };

const TOP_LEVEL_KEYS = ['line-length', 'indent-width', 'target-version', 'preview'] as const;
const FORMAT_KEYS = [
  'quote-style',
  'indent-style',
  'skip-magic-trailing-comma',
  'docstring-code-format',
  'docstring-code-line-length',
  'nested-string-quote-style',
  'preview',
] as const;

/**
 * Keeps only the ruff.toml keys that affect formatting, in a fixed order (so equal settings give
 * equal cache keys), and forces LF output.
 */
export function ruffOptions(settings: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of TOP_LEVEL_KEYS) {
    if (settings[key] !== undefined) options[key] = settings[key];
  }
  const format: Record<string, unknown> = {};
  const given = settings['format'];
  if (given && typeof given === 'object' && !Array.isArray(given)) {
    for (const key of FORMAT_KEYS) {
      const value = (given as Record<string, unknown>)[key];
      if (value !== undefined) format[key] = value;
    }
  }
  format['line-ending'] = 'lf';
  options['format'] = format;
  return options;
}

export function ruffFormatter(options: RuffFormatterOptions): FormatterAdapter {
  const maxWorkspaces = options.maxWorkspaces ?? 8;
  const pyi = options.pyi ?? (options.ruffFmtWasm ? 'stub-rules' : 'skip');
  type Workspace = InstanceType<RuffBindings['Workspace']>;
  const workspaces = new Map<string, Workspace>();
  let Workspace: RuffBindings['Workspace'] = ShippedWorkspace;
  let PositionEncoding: RuffBindings['PositionEncoding'] = ShippedPositionEncoding;
  let configChecker = createRuffConfigChecker();

  // The web glue keeps one instance per JS realm; `init` resolves at once when it already ran.
  const module = lazy(async () => {
    if (options.bindings) {
      const build = (await options.bindings()) as unknown as RuffBindings;
      ({ Workspace, PositionEncoding } = build);
      configChecker = createRuffConfigChecker(build);
      return { version: Workspace.version() };
    }
    if (!options.wasm) throw new Error('ruffFormatter needs wasm or bindings');
    const compiled = await compileWasm(options.wasm, 'ruff', BUILTIN_WASM_IDENTITY.ruff);
    await init({ module_or_path: compiled });
    return { version: Workspace.version() };
  });

  function workspaceFor(settings: Record<string, unknown>): Workspace {
    const ruffSettings = ruffOptions(settings);
    const key = JSON.stringify(ruffSettings);
    let workspace = workspaces.get(key);
    if (workspace) {
      // Refresh its place in the LRU order.
      workspaces.delete(key);
      workspaces.set(key, workspace);
      return workspace;
    }
    workspace = new Workspace(ruffSettings, PositionEncoding.Utf16);
    workspaces.set(key, workspace);
    while (workspaces.size > maxWorkspaces) {
      const [oldestKey, oldest] = workspaces.entries().next().value as [string, Workspace];
      workspaces.delete(oldestKey);
      oldest.free();
    }
    return workspace;
  }

  const ruffFmtModule = lazy(async () => {
    if (!options.ruffFmtWasm) throw new Error('no ruffFmtWasm');
    const compiled = await compileWasm(options.ruffFmtWasm, 'ruff_fmt', BUILTIN_WASM_IDENTITY.ruff_fmt);
    await initRuffFmt(compiled);
  });

  return {
    name: 'ruff',
    via: 'wasm',
    languages: ['python'],
    supportsRange: options.ruffFmtWasm !== undefined,
    ...(options.ruffFmtWasm !== undefined ? { rangeLanguages: ['python'] } : {}),

    async info(): Promise<FormatterInfo> {
      const { version } = await module.get();
      return { name: 'ruff', version, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const result = await formatWithRuff(request);
      return result.kind === 'ok' ? { ...result, lineEnding: ruffLineEnding(request.settings) } : result;
    },

    preload() {
      return preloadAll([module.get(), ...(options.ruffFmtWasm ? [ruffFmtModule.get()] : [])]);
    },

    dispose() {
      for (const workspace of workspaces.values()) workspace.free();
      workspaces.clear();
    },
  };

  async function formatWithRuff(request: AdapterRequest): Promise<AdapterResult> {
      if (request.configSources && request.configSources.length > 0) {
        // Ruff's own loader judges the whole config table first: what it rejects, formatbox refuses.
        await module.get();
        for (const source of request.configSources) {
          const rejected = configChecker.errorOf(source);
          if (rejected) return { kind: 'error', message: rejected, config: true };
        }
      }
      const stub = /\.pyi$/i.test(request.path);
      if (stub && (pyi === 'skip' || (pyi === 'stub-rules' && !options.ruffFmtWasm))) {
        // Formatting with .py rules would disagree with `ruff format` on the project's stubs.
        return { kind: 'unsupported', reason: "no stub (.pyi) rules in Ruff's wasm build" };
      }
      if (stub && pyi === 'stub-rules' && !request.range) {
        await ruffFmtModule.get();
        try {
          return { kind: 'ok', text: ruffFmtFormat(request.text, request.path, ruffFmtConfig(request.settings) as never), formatter: RUFF_FMT_INFO };
        } catch (thrown) {
          return { kind: 'error', message: ruffFmtErrorMessage(thrown, request.text), formatter: RUFF_FMT_INFO };
        }
      }
      if (request.range && options.ruffFmtWasm) {
        await ruffFmtModule.get();
        return formatRange(request.text, request.path, request.range, request.settings);
      }
      await module.get();
      let workspace: Workspace;
      try {
        workspace = workspaceFor(request.settings);
      } catch (thrown) {
        return { kind: 'error', message: `invalid ruff settings: ${messageOf(thrown)}` };
      }
      try {
        return { kind: 'ok', text: workspace.format(request.text) };
      } catch (thrown) {
        return { kind: 'error', message: locateRuffError(messageOf(thrown), request.text) };
      }
  }
}

/**
 * Ruff's `format.line-ending`: `auto` (the default) keeps the file's first line ending, `native` is LF
 * on the platforms formatbox runs on, `lf`/`cr-lf` are fixed. The wasm always writes LF.
 */
export function ruffLineEnding(settings: Record<string, unknown>): LineEndingPolicy {
  const format = settings['format'];
  const value = format && typeof format === 'object' ? (format as Record<string, unknown>)['line-ending'] : undefined;
  if (value === 'cr-lf') return 'crlf';
  if (value === 'lf' || value === 'native') return 'lf';
  return 'first';
}

/** ruff.toml settings (kebab-case) in `@wasm-fmt/ruff_fmt`'s config shape; LF output. */
export function ruffFmtConfig(settings: Record<string, unknown>): Record<string, unknown> {
  const options = ruffOptions(settings);
  const format = options['format'] as Record<string, unknown>;
  const config: Record<string, unknown> = { line_ending: 'lf' };
  if (options['line-length'] !== undefined) config.line_width = options['line-length'];
  if (options['indent-width'] !== undefined) config.indent_width = options['indent-width'];
  if (format['indent-style'] !== undefined) config.indent_style = format['indent-style'];
  if (format['quote-style'] !== undefined) config.quote_style = format['quote-style'];
  if (format['skip-magic-trailing-comma'] !== undefined) config.magic_trailing_comma = format['skip-magic-trailing-comma'] === true ? 'ignore' : 'respect';
  // ruff.toml's boolean is Ruff's DocstringCode enum in ruff_fmt (`"enabled"`/`"disabled"`); a boolean there throws.
  if (format['docstring-code-format'] !== undefined) config.docstring_code = format['docstring-code-format'] === true ? 'enabled' : 'disabled';
  if (format['docstring-code-line-length'] !== undefined) config.docstring_code_line_width = format['docstring-code-line-length'];
  if (format['nested-string-quote-style'] !== undefined) config.nested_string_quote_style = format['nested-string-quote-style'];
  // ruff_fmt reads `preview` as Ruff's PreviewMode (`"enabled"`/`"disabled"`) and the target as `"3.8"`.
  const preview = format['preview'] ?? options['preview'];
  if (preview !== undefined) config.preview = preview === true ? 'enabled' : 'disabled';
  const target = /^py(\d)(\d+)$/.exec(String(options['target-version'] ?? ''));
  if (target) config.target_version = `${target[1]}.${target[2]}`;
  return config;
}

/**
 * Formats `range` only, with `@wasm-fmt/ruff_fmt`. Its ranges are UTF-8 byte offsets: convert on the
 * way in, and splice its answer (the code for the byte range it chose, widened to whole statements)
 * back on the way out.
 */
export function formatRange(text: string, path: string, range: Utf16Range, settings: Record<string, unknown>): AdapterResult {
  const byteStart = utf16ToByteOffset(text, range.utf16Start);
  const byteEnd = utf16ToByteOffset(text, range.utf16End);
  let printed: { code: string; source_range: { start: number; end: number } };
  try {
    printed = ruffFmtFormatRange(text, { start: byteStart, end: byteEnd }, path, ruffFmtConfig(settings) as never);
  } catch (thrown) {
    return { kind: 'error', message: ruffFmtErrorMessage(thrown, text), formatter: RUFF_FMT_INFO };
  }
  const utf16ReplacedStart = byteToUtf16Offset(text, printed.source_range.start);
  const utf16ReplacedEnd = byteToUtf16Offset(text, printed.source_range.end);
  return {
    kind: 'ok',
    text: text.slice(0, utf16ReplacedStart) + printed.code + text.slice(utf16ReplacedEnd),
    formatter: RUFF_FMT_INFO,
  };
}

/**
 * What `@wasm-fmt/ruff_fmt` threw, for the receipt. A panic inside it is a wasm trap whose message is
 * only `unreachable` (0.15.20 traps on a Markdown code block in a docstring with docstring-code-format):
 * say it crashed, rather than pass the bare trap on as if it were about the file.
 */
export function ruffFmtErrorMessage(thrown: unknown, text: string): string {
  if (thrown instanceof WebAssembly.RuntimeError) {
    return `ruff_fmt ${RUFF_FMT_PACKAGE_VERSION} (the Ruff build formatbox uses for stubs and ranges) crashed on this file (wasm trap: ${messageOf(thrown)}); the file is left as written`;
  }
  return locateRuffError(messageOf(thrown), text);
}

/**
 * Ruff reports parse errors as `… at byte range 6..7` (UTF-8 offsets). Rewrites that to
 * `line:column: …` (1-based, column in characters), the form the receipt line shows.
 */
export function locateRuffError(message: string, text: string): string {
  const firstLine = message.split('\n', 1)[0] ?? message;
  const match = /^(.*?)\s+at byte range (\d+)\.\.(\d+)\s*$/.exec(firstLine);
  if (!match) return firstLine;
  const { line, column } = lineColumnOfByte(text, Number(match[2]));
  return `${line}:${column}: ${match[1]}`;
}

/** 1-based line and column (in code points) of a UTF-8 byte offset into `text`. */
function lineColumnOfByte(text: string, byteOffset: number): { line: number; column: number } {
  const bytes = new TextEncoder().encode(text);
  const before = new TextDecoder().decode(bytes.subarray(0, Math.min(byteOffset, bytes.length)));
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = 0; i < lineStart; i++) if (before.charCodeAt(i) === 10) line++;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}
