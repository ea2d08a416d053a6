/**
 * Ruff's formatter through `@astral-sh/ruff-wasm-web` 0.16.9, the same build in every runtime
 * (the web build is the newest one published for browsers, so Node loads it too).
 *
 * - Settings arrive in ruff.toml shape (kebab-case): `line-length`, `indent-width`, `target-version`,
 *   `preview`, `format: {quote-style, indent-style, skip-magic-trailing-comma, docstring-code-format,
 *   docstring-code-line-length, nested-string-quote-style, preview}`. Everything else is dropped before Ruff sees it, because
 *   Ruff throws on unknown fields (`lint`, `exclude`, `extend`, …). `format.line-ending` is forced to
 *   `lf`: the adapter gets LF text and the engine puts the file's own line endings back.
 * - One `Workspace` per distinct settings object, kept in a small cache.
 * - Stubs: the wasm `Workspace.format(source)` takes no path and always applies `.py` rules, while
 *   `ruff format` applies stub rules to `.pyi` (e.g. no blank lines between stub methods, one blank
 *   line between top-level stub classes). Formatting a stub with `.py` rules would fight the project's
 *   own `ruff format`, so `.pyi` files are `unsupported` unless `pyi: 'python-rules'` is chosen.
 * - No range formatting: the wasm build has no range API. `@wasm-fmt/ruff_fmt` has `format_range`,
 *   but it is Ruff 0.15.x; formatting edits with another release than whole files would break
 *   "one formatter version" and make receipts name a version that did not produce the text.
 */
import init, { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-web';
import { compileWasm, lazy } from '../core/wasm.js';
import { messageOf } from '../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../core/types.js';

export interface RuffFormatterOptions {
  /** `ruff_wasm_bg.wasm` of `@astral-sh/ruff-wasm-web`. */
  wasm: WasmSource;
  /**
   * What to do with `.pyi` stubs: `'skip'` (default) answers `unsupported`, because this build cannot
   * apply Ruff's stub rules; `'python-rules'` formats them like `.py` files.
   */
  pyi?: 'skip' | 'python-rules';
  /** How many settings variants keep a live `Workspace`. Default 8. */
  maxWorkspaces?: number;
}

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
  const pyi = options.pyi ?? 'skip';
  const workspaces = new Map<string, Workspace>();

  // The web glue keeps one instance per JS realm; `init` resolves at once when it already ran.
  const module = lazy(async () => {
    const compiled = await compileWasm(options.wasm, 'ruff');
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

  return {
    name: 'ruff',
    via: 'wasm',
    languages: ['python'],
    supportsRange: false,

    async info(): Promise<FormatterInfo> {
      const { version } = await module.get();
      return { name: 'ruff', version, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      if (pyi === 'skip' && /\.pyi$/i.test(request.path)) {
        // Formatting with .py rules would disagree with `ruff format` on the project's stubs.
        return { kind: 'unsupported', reason: "no stub (.pyi) rules in Ruff's wasm build" };
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
    },

    dispose() {
      for (const workspace of workspaces.values()) workspace.free();
      workspaces.clear();
    },
  };
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
