/**
 * Ruff's own verdict on a whole Ruff config table (`ruff.toml`, `[tool.ruff]`): the wasm `Workspace`
 * deserializes Ruff's full `Options` (serde, `deny_unknown_fields`), so unknown top-level keys, wrong
 * types, unknown variants and a `required-version` the running Ruff does not meet are rejected with
 * Ruff's message, as `ruff format` would reject the file. The formatting workspace itself only ever
 * sees the format settings.
 *
 * One exception, to never refuse a valid project: an unknown rule selector (`select = ["XYZ1"]`) is
 * accepted. Rule codes come and go between Ruff releases, only the linter reads them, and the table's
 * keys and types were already accepted when Ruff resolves selectors (after deserializing). And a path
 * needing an environment variable (`extend = "$HOME/…"`) is not judged: the wasm has no environment.
 *
 * The module must already be initialised (the adapter calls this after loading its wasm).
 */
import { PositionEncoding as ShippedPositionEncoding, Workspace as ShippedWorkspace } from '@astral-sh/ruff-wasm-web';
import { messageOf } from '../../core/errors.js';
import type { ConfigSource } from '../../core/types.js';
import { firstLine, lineColumnAt } from '../shared.js';

/** Verdicts remembered (by file and table); past this the memory starts over. */
const MAX_VERDICTS = 256;

export interface RuffConfigChecker {
  /** `invalid project config: file[:line:column]: message` when Ruff rejects the table, else undefined. */
  errorOf(source: ConfigSource): string | undefined;
}

/** What the checker uses of a Ruff wasm build (the shipped web build unless another version's is given). */
export interface RuffBindings {
  Workspace: typeof ShippedWorkspace;
  PositionEncoding: typeof ShippedPositionEncoding;
}

let bindings: RuffBindings = { Workspace: ShippedWorkspace, PositionEncoding: ShippedPositionEncoding };

export function createRuffConfigChecker(build?: RuffBindings): RuffConfigChecker {
  // A worker holds one Ruff build: a pinned version's worker judges with that version's loader.
  if (build) bindings = build;
  const verdicts = new Map<string, string | undefined>();
  return {
    errorOf(source: ConfigSource): string | undefined {
      if (!source.options) return undefined;
      const key = `${source.file}\0${JSON.stringify(source.options)}`;
      if (verdicts.has(key)) return verdicts.get(key);
      const rejection = rejectionOf(source.options);
      const verdict = rejection === undefined ? undefined : describe(source, rejection);
      if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
      verdicts.set(key, verdict);
      return verdict;
    },
  };
}

/** Ruff's message when it rejects `options` (selector errors excepted), else undefined. */
function rejectionOf(options: Record<string, unknown>): string | undefined {
  let judged = options;
  // Each round either accepts, rejects, or drops one key the wasm cannot judge (at most every key once).
  for (let round = 0; round <= Object.keys(options).length; round++) {
    const message = loaderMessage(judged);
    if (message === undefined || /^Unknown rule selector/.test(message)) return undefined;
    if (!ENVIRONMENT_LOOKUP.test(message)) return message;
    // Ruff expands `$VAR` in paths (`extend`, `cache-dir`, `src`, …); the wasm has no environment,
    // where the CLI would have one. Not Ruff's verdict: drop the key that needs it and judge the rest.
    const culprit = Object.keys(judged).find((name) => loaderMessage({ [name]: judged[name] }) !== undefined && ENVIRONMENT_LOOKUP.test(loaderMessage({ [name]: judged[name] }) ?? ''));
    if (culprit === undefined) return undefined;
    judged = Object.fromEntries(Object.entries(judged).filter(([name]) => name !== culprit));
  }
  return undefined;
}

const ENVIRONMENT_LOOKUP = /environment variable not found/;

/** The first line of the error Ruff's loader throws for `options`, without its `Error:` prefixes. */
function loaderMessage(options: Record<string, unknown>): string | undefined {
  try {
    new bindings.Workspace(options, bindings.PositionEncoding.Utf16).free();
    return undefined;
  } catch (thrown) {
    return firstLine(messageOf(thrown)).replace(/^(Error:\s*)+/, '');
  }
}

/** The message with the key Ruff rejected and its position in the file, when they can be found. */
function describe(source: ConfigSource, message: string): string {
  const options = source.options ?? {};
  const unknown = /^unknown field `([^`]+)`/.exec(message)?.[1];
  // serde names an unknown key, not the key whose value is wrong: find it by judging each key alone.
  const key = unknown ?? Object.keys(options).find((name) => rejectionOf({ [name]: options[name] }) !== undefined);
  const offset = key !== undefined ? keyOffset(source.text, source.file, key) : undefined;
  const position = offset !== undefined ? `:${lineColumnAt(source.text, offset).line}:${lineColumnAt(source.text, offset).column}` : '';
  const named = key !== undefined && unknown === undefined ? `${key}: ` : '';
  return `invalid project config: ${source.file}${position}: ${named}${message}`;
}

/** Where `key` of the Ruff table is written: `key =`, `key.sub =`, `[key]`, `[tool.ruff.key]`. */
function keyOffset(text: string, file: string, key: string): number | undefined {
  const start = file.endsWith('pyproject.toml') ? Math.max(0, text.search(/^[ \t]*\[tool\.ruff[\].]/m)) : 0;
  const name = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^[ \\t]*(?:(?:${name}|"${name}"|'${name}')[ \\t]*[=.]|\\[[ \\t]*(?:tool\\.ruff\\.)?${name}[ \\t]*[\\].])`, 'm');
  const found = text.slice(start).search(pattern);
  if (found === -1) return undefined;
  const lineStart = start + found;
  return lineStart + (/^[ \t]*/.exec(text.slice(lineStart))?.[0].length ?? 0);
}
