/**
 * The one containment rule, for every entry point (`apply`, `serve`, `mcp`, the hook, `format`, and
 * the daemon they talk to): a request's project root is
 * 1. the explicit one (`--root`, the request's `root`, MCP client roots, `CLAUDE_PROJECT_DIR`), else
 * 2. the project the caller's working directory belongs to (`callerProjectRoot`: the nearest VCS root,
 *    else the nearest formatter config, at or above the cwd), else the working directory itself;
 * and no path of the request leaves it: a file whose own project root (found as the formatters find
 * it, symlinks resolved) lies inside that root is formatted in its own root, any other is handed on
 * as an absolute path, which the runtime refuses as outside the root (`..`, absolute paths,
 * `file_path`, symlinks alike). A root that is `/`, a system directory, or the home directory
 * without a VCS marker of its own is refused (PATH_REFUSED) with the reason (`refusedRootReason`);
 * such a directory is skipped by every search too, so a `~/.clang-format` never makes home a root.
 *
 * A patch (`apply_patch`) keeps the working directory as its root: its paths are relative to it.
 */
import { statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { shownPath } from '../../core/shown.js';
import { FormatboxError } from '../../core/errors.js';
import { isInside } from '../fs/inside.js';
import { callerProjectRoot, findProjectRoot, realPathOf, refusedRootReason } from '../project-root.js';

/** What a receipt says about a file whose project root could not be found. */
const NO_ROOT_REASON = 'no project root found (no VCS root and no formatter config above the file)';

/** A request placed in its root; `noRoot` when none was found and the working directory stood in. */
interface PlacedRequest<R> {
  request: R & { root: string };
  noRoot: boolean;
}

/** Where a request's file lands under the containment rule. */
export interface RootDecision {
  /** The root the request runs in (absolute). */
  root: string;
  /** The file relative to `root` (POSIX), when it lies inside; else the file as an absolute path (the runtime refuses it). */
  path?: string;
  /** The file is not inside `root`: the runtime will refuse it (the hook stays silent). */
  outside: boolean;
  /** No project root was found: the working directory stands in. */
  noRoot: boolean;
}

/** Throws PATH_REFUSED when `dir` may not be a project root; else returns it. */
export function allowedRoot(dir: string, why: string): string {
  const reason = refusedRootReason(dir);
  if (reason !== undefined) {
    throw new FormatboxError('PATH_REFUSED', `${shownPath(dir)} (${why}) cannot be a project root: ${reason}; run formatbox from inside a project or pass --root DIR`);
  }
  return dir;
}

/**
 * The containment rule for one request. `cwd`: where the caller's relative paths start from;
 * `root`: an explicit root (after the refusal check); `path`: the request's file. `path` in the
 * answer is relative to `root` (real, POSIX) when the file lies inside, else absolute.
 * `patch`: the request's paths are relative to the working directory (which is then the root).
 */
export function decideRoot(where: { cwd: string; root?: string; path?: string; patch?: boolean }): RootDecision {
  if (where.root !== undefined) {
    const root = allowedRoot(resolve(where.cwd, where.root), 'the explicit root');
    if (where.path === undefined) return { root, outside: false, noRoot: false };
    const found = findProjectRoot(resolve(root, where.path), { cwd: root, projectDir: root });
    return found ? { root: found.root, path: found.path, outside: false, noRoot: false } : { root, path: resolve(root, where.path), outside: true, noRoot: false };
  }
  if (where.patch === true) return { root: allowedRoot(resolve(where.cwd), 'the working directory'), outside: false, noRoot: false };
  const caller = callerProjectRoot(where.cwd);
  const containing = caller?.root ?? allowedRoot(realPathOf(resolve(where.cwd)), 'the working directory, which is in no project');
  if (where.path === undefined) return { root: containing, outside: false, noRoot: caller === undefined };
  const found = findProjectRoot(where.path, { cwd: where.cwd });
  if (found && isInside(found.root, containing)) return { root: found.root, path: found.path, outside: false, noRoot: false };
  const absolute = resolve(where.cwd, where.path);
  const real = realPathOf(absolute);
  if (!found && isInside(real, containing)) return { root: containing, path: relative(containing, real).split(sep).join('/'), outside: false, noRoot: true };
  return { root: containing, path: absolute, outside: true, noRoot: false };
}

/**
 * The root of a path a person named on the command line (`format PATHS`, `--stdin-filepath`,
 * `doctor PATH`): the file's own project root, found from its location wherever the command runs, as
 * prettier and biome find their config (editors run formatters from their own working directory).
 * The never-roots stay never-roots. No root found: the file's own directory stands in when it may be
 * a root, else the working directory's project (`decideRoot`).
 */
export function decideNamedRoot(where: { cwd: string; path: string }): RootDecision {
  const found = findProjectRoot(where.path, { cwd: where.cwd });
  if (found) return { root: found.root, path: found.path, outside: false, noRoot: false };
  const real = realPathOf(resolve(where.cwd, where.path));
  if (refusedRootReason(dirname(real)) === undefined) return { root: dirname(real), path: basename(real), outside: false, noRoot: true };
  return decideRoot(where);
}

/**
 * Places `request` in its project root (`decideRoot`). `cwd`: the directory the caller's relative
 * paths start from. `root`: the caller's `--root`, when given (then nothing is searched).
 * `named`: a person named the request's path on the command line, so it finds its own project
 * (`decideNamedRoot`); requests from agents (hook, MCP, apply, serve, the daemon) never set it.
 */
export function placeRequest<R extends object>(request: R, where: { cwd: string; root?: string; named?: boolean }): PlacedRequest<R> {
  const fields = request as { root?: unknown; path?: unknown; method?: unknown; input?: unknown };
  const explicit = typeof fields.root === 'string' ? fields.root : where.root;
  if (where.named === true && explicit === undefined && typeof fields.path === 'string' && fields.path !== '') {
    const named = resolve(where.cwd, fields.path);
    const probe = fields.method === 'doctor' && isDirectory(named) ? join(named, '.formatbox-doctor') : named;
    const decision = decideNamedRoot({ cwd: where.cwd, path: probe });
    return { request: { ...request, root: decision.root, ...(decision.path !== undefined ? { path: decision.path } : {}) }, noRoot: decision.noRoot };
  }
  if (fields.method === 'doctor') {
    // doctor PATH (default: the working directory) answers for the project PATH belongs to, found as
    // `format` finds a file's, inside the containing root: a monorepo package answers with its own config.
    // Without PATH: the explicit root, else the working directory.
    const dir = typeof fields.path === 'string' && fields.path !== '' ? resolve(where.cwd, fields.path) : resolve(where.cwd, explicit ?? '.');
    const probe = isDirectory(dir) ? join(dir, '.formatbox-doctor') : dir;
    const decision = decideRoot({ cwd: where.cwd, ...(explicit !== undefined ? { root: explicit } : {}), path: probe });
    return { request: { ...request, root: decision.root, ...(decision.path !== undefined ? { path: decision.path } : {}) }, noRoot: decision.noRoot };
  }
  const path = typeof fields.path === 'string' && fields.path !== '' ? fields.path : undefined;
  const patch = path === undefined && fields.input !== undefined;
  // An explicit root is taken as given (the runtime checks the path, symlinks and all, against it).
  if (explicit !== undefined) return { request: { ...request, root: allowedRoot(resolve(where.cwd, explicit), 'the explicit root') }, noRoot: false };
  const decision = decideRoot({ cwd: where.cwd, ...(path !== undefined ? { path } : {}), patch });
  const placed = { ...request, root: decision.root, ...(path !== undefined && decision.path !== undefined ? { path: decision.path } : {}) };
  return { request: placed, noRoot: decision.noRoot };
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
