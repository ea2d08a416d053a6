/**
 * The one place the CLI decides which project root a request runs in, when the request names none and
 * no `--root` was given: `findProjectRoot` (the nearest VCS root, else the nearest directory holding a
 * formatter's config; symlinks resolved), as the formatters' own tools find it. So `apply`, `format`,
 * `format --stdin-filepath`, `serve` and `mcp` called from a subdirectory, or through a symlinked
 * project path, format exactly as from the root. Used by the request handler (in-process, `serve`,
 * `mcp`) and by the thin entry before it hands a request to the daemon (whose working directory is `/`).
 *
 * A request that names a root, or a call with `--root`, is taken as given. A patch (`apply_patch`)
 * keeps the working directory as its root: its paths are relative to it. A file outside the working
 * directory is reached only when its project root holds the working directory (`../x.ts` from a
 * subdirectory); any other stays refused as outside the root, as before.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { findProjectRoot } from '../node/project-root.js';

/** What a receipt says about a file whose project root could not be found. */
export const NO_ROOT_REASON = 'no project root found (no VCS root and no formatter config above the file); it was taken relative to the current directory';

/** A request placed in its root; `noRoot` when none was found and the working directory stood in. */
export interface PlacedRequest<R> {
  request: R & { root: string };
  noRoot: boolean;
}

interface RootedFields {
  root?: unknown;
  path?: unknown;
  method?: unknown;
  input?: unknown;
}

/**
 * Places `request` in its project root. `cwd`: the directory the caller's relative paths start from.
 * `root`: the caller's `--root`, when given (then nothing is searched).
 */
export function placeRequest<R extends object>(request: R, where: { cwd: string; root?: string }): PlacedRequest<R> {
  const fields = request as RootedFields;
  if (typeof fields.root === 'string') return { request: request as R & { root: string }, noRoot: false };
  if (where.root !== undefined) {
    // doctor's PATH is the caller's (relative to the working directory); the runtime resolves it in the root.
    const doctorPath = fields.method === 'doctor' && typeof fields.path === 'string' && fields.path !== '' ? { path: resolve(where.cwd, fields.path) } : {};
    return { request: { ...request, ...doctorPath, root: resolve(where.cwd, where.root) }, noRoot: false };
  }
  if (fields.method === 'doctor') {
    // The project PATH (default: the working directory) belongs to, found as `format` finds a file's,
    // and PATH's directory inside it: a monorepo package answers with its own config.
    const dir = typeof fields.path === 'string' && fields.path !== '' ? resolve(where.cwd, fields.path) : resolve(where.cwd);
    const probe = isDirectory(dir) ? join(dir, '.formatbox-doctor') : dir;
    const found = findProjectRoot(probe, { cwd: where.cwd });
    if (!found || !callerMayReach(found.root, join(found.root, found.path), where.cwd)) return { request: { ...request, root: resolve(where.cwd) }, noRoot: found === undefined };
    return { request: { ...request, root: found.root, path: found.path }, noRoot: false };
  }
  if (typeof fields.path !== 'string' || fields.path === '') return { request: { ...request, root: resolve(where.cwd) }, noRoot: false };
  const found = findProjectRoot(fields.path, { cwd: where.cwd });
  if (!found) return { request: { ...request, root: resolve(where.cwd) }, noRoot: true };
  // Containment: a file outside the working directory is reached only inside the project the caller
  // works in. Otherwise the working directory stays the root, and the runtime refuses the path.
  if (!callerMayReach(found.root, join(found.root, found.path), where.cwd)) return { request: { ...request, root: resolve(where.cwd) }, noRoot: false };
  return { request: { ...request, root: found.root, path: found.path }, noRoot: false };
}

/** Whether `file` (real path) lies inside the working directory, or `root` (real) holds the working directory. */
function callerMayReach(root: string, file: string, cwd: string): boolean {
  let cwdReal: string;
  try {
    cwdReal = realpathSync(resolve(cwd));
  } catch {
    return false;
  }
  const within = (dir: string, path: string): boolean => {
    const rel = relative(dir, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  return within(cwdReal, file) || within(root, cwdReal);
}

/** Whether a receipt says its file was not formatted because no project root was found (the CLI prints it). */
export function saysNoRoot(receipt: { status?: unknown; reason?: unknown }): boolean {
  return receipt.status === 'skipped' && typeof receipt.reason === 'string' && receipt.reason.startsWith(NO_ROOT_REASON);
}

/** A receipt of a file with no project root: when it was not formatted, its reason says why. */
export function withNoRootReason<T>(result: T, noRoot: boolean): T {
  if (!noRoot || !result || typeof result !== 'object') return result;
  const receipt = result as { status?: unknown; reason?: unknown; line?: unknown };
  if (receipt.status !== 'skipped') return result;
  const reason = typeof receipt.reason === 'string' && receipt.reason !== '' ? `${NO_ROOT_REASON}; ${receipt.reason}` : NO_ROOT_REASON;
  const line = typeof receipt.line === 'string' ? `${receipt.line} (${NO_ROOT_REASON})` : receipt.line;
  return { ...result, reason, line };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
