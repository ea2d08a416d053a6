/**
 * The JSON interface shared by `formatbox apply --json`, `formatbox serve` and the hooks: one request
 * in, one receipt out. The input's shape says which tool it is (`oldText` → edit, `edits` →
 * multiEdit, `content` → write, `patch` → applyPatch).
 *
 * Request: `{id?, root?, path, input, prior?}`.
 * - Without `prior`, formatbox performs the edit on disk, then formats and reconciles it.
 * - With `prior` (the file before the edit; `null` for a new file), the caller already wrote the
 *   file: formatbox formats what is on disk and reconciles against `prior` (`afterWrite`).
 * Other methods: `{method: 'format', path, check?}` (format the file in place, or only report),
 * `{method: 'beforeWrite', path, input}` (what writing a single-file input would leave on disk; nothing written),
 * `{method: 'formatText', path, text}` (format text as if it were `path`; `format --stdin-filepath`)
 * and `{method: 'doctor'}`.
 *
 * Runtimes are kept per root (one shared worker pool), so wasm stays warm across requests.
 */
import { createPinnedFormatters, type PinnedFormatters } from '../pinned-formatters.js';
import { FormatboxError, isFormatboxError, messageOf } from '../../core/errors.js';
import type { Receipt, SingleFileInput, ToolInput, UserConfig } from '../../core/types.js';
import type { PatchReceipt } from '../../reconcile/index.js';
import { toolKind } from '../../tools/index.js';
import { resolveLimits } from '../../config/limits.js';
import { createRuntime, createWorkerPool, type DoctorReport, type Runtime, type WorkerPool } from '../index.js';
import { allowedRoot, placeRequest, withNoRootReason } from './request-root.js';

interface CliRequest {
  id?: unknown;
  method?: 'apply' | 'beforeWrite' | 'format' | 'formatText' | 'doctor';
  root?: string;
  path?: string;
  input?: ToolInput;
  prior?: string | null;
  /** `method: 'format'` only: report what formatting would do, write nothing. */
  check?: boolean;
  /** `method: 'formatText'` only: the text to format as if it were `path` (nothing is read or written). */
  text?: string;
}

export type CliResult = Receipt | PatchReceipt | DoctorReport;

/** What `serve` prints for a request that failed: the stable code and a message. */
interface CliErrorReply {
  id?: unknown;
  error: { code: string; message: string };
}

export interface RequestHandler {
  handle(request: unknown): Promise<CliResult>;
  close(): Promise<void>;
}

export interface HandlerOptions {
  /** Used when a request names no root (with `findRoot`: where relative paths start from). */
  defaultRoot: string;
  /** A request that names no root runs in its file's project root (request-root.ts), not in `defaultRoot`. */
  findRoot?: boolean;
  /** With `findRoot`: a person named the requests' paths on the command line (`format`, `doctor`), so each finds its own project wherever the command runs (request-root.ts `decideNamedRoot`). Never for agents' requests. */
  namedPaths?: boolean;
  /** Trusted user config (formatbox.json). */
  config?: UserConfig;
  trust?: 'untrusted' | 'trusted';
  /** A worker pool to share with other handlers (the daemon's); the handler does not close it. */
  pool?: WorkerPool;
  /** Pinned formatter versions to share with other handlers (the daemon's: one store for all roots); not closed here. */
  pinned?: PinnedFormatters;
}

/** Most roots kept open at once; the least recently used one is closed first. */
const MAX_ROOTS = 16;

export function createRequestHandler(options: HandlerOptions): RequestHandler {
  let pool: WorkerPool | undefined;
  // Every root of this handler uses one store and one worker per pinned version.
  let pinned: PinnedFormatters | undefined = options.pinned;
  const runtimes = new Map<string, Runtime>();

  async function runtimeFor(root: string): Promise<Runtime> {
    const existing = runtimes.get(root);
    if (existing) {
      runtimes.delete(root);
      runtimes.set(root, existing);
      return existing;
    }
    // One worker pool for every root keeps the wasm warm across projects. Trusted mode loads each
    // project's own Prettier config in its worker, so there each runtime has its own pool.
    const shared = options.trust !== 'trusted';
    const { timeoutMs } = resolveLimits(options.config);
    if (shared) pool ??= options.pool ?? createWorkerPool({ timeoutMs });
    pinned ??= createPinnedFormatters({ timeoutMs });
    const runtime = createRuntime({
      root,
      pinned,
      ...(shared && pool ? { pool } : {}),
      ...(options.trust ? { trust: options.trust } : {}),
      ...(options.config ? { config: options.config } : {}),
    });
    runtimes.set(root, runtime);
    while (runtimes.size > MAX_ROOTS) {
      const [oldestRoot, oldest] = runtimes.entries().next().value as [string, Runtime];
      runtimes.delete(oldestRoot);
      await oldest.close();
    }
    return runtime;
  }

  return {
    async handle(raw: unknown): Promise<CliResult> {
      const parsed = parseRequest(raw);
      const { request, noRoot } = options.findRoot
        ? placeRequest(parsed, { cwd: options.defaultRoot, ...(options.namedPaths === true ? { named: true } : {}) })
        : { request: { ...parsed, root: allowedRoot(parsed.root ?? options.defaultRoot, parsed.root !== undefined ? 'the request\'s root' : 'the default root') }, noRoot: false };
      return withNoRootReason(await handlePlaced(await runtimeFor(request.root), request), noRoot);
    },
    async close(): Promise<void> {
      for (const runtime of runtimes.values()) await runtime.close();
      runtimes.clear();
      if (pool !== options.pool) await pool?.close();
      if (pinned !== options.pinned) await pinned?.close();
    },
  };
}

function handlePlaced(runtime: Runtime, request: CliRequest): Promise<CliResult> {
  switch (request.method ?? 'apply') {
    case 'doctor':
      return runtime.doctor(typeof request.path === 'string' && request.path !== '' ? { path: request.path } : {});
    case 'format':
      return runtime.format({ path: requirePath(request), ...(request.check === true ? { check: true } : {}) });
    case 'beforeWrite': {
      const input = request.input;
      if (!input || typeof input !== 'object' || toolKind(input) === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'beforeWrite needs a single-file input ({oldText, newText}, {edits} or {content})');
      return runtime.beforeWrite({ path: requirePath(request), input: input as SingleFileInput });
    }
    case 'formatText':
      if (typeof request.text !== 'string') throw new FormatboxError('INVALID_REQUEST', 'formatText needs text (a string)');
      return runtime.formatText({ path: requirePath(request), text: request.text });
    default:
      return apply(runtime, request);
  }
}

function apply(runtime: Runtime, request: CliRequest): Promise<Receipt | PatchReceipt> {
  const input = request.input;
  if (!input || typeof input !== 'object') throw new FormatboxError('INVALID_REQUEST', 'the request has no input ({oldText, newText}, {edits}, {content} or {patch})');
  const kind = toolKind(input);
  if (kind === 'applyPatch') {
    if (request.prior !== undefined) throw new FormatboxError('INVALID_REQUEST', 'prior is for single-file inputs; a patch is applied by formatbox');
    return runtime.applyPatch(input as { patch: string });
  }
  const path = requirePath(request);
  if (request.prior !== undefined) {
    return runtime.afterWrite({ path, input: input as SingleFileInput, ...(request.prior !== null ? { prior: request.prior } : {}) });
  }
  switch (kind) {
    case 'edit':
      return runtime.edit({ path, ...(input as { oldText: string; newText: string; replaceAll?: boolean }) });
    case 'multiEdit':
      return runtime.multiEdit({ path, edits: (input as { edits: [] }).edits });
    default:
      return runtime.write({ path, content: (input as { content: string }).content });
  }
}

function parseRequest(raw: unknown): CliRequest {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new FormatboxError('INVALID_REQUEST', 'a request is a JSON object: {root?, path, input, prior?}');
  const request = raw as CliRequest;
  if (request.method !== undefined && !['apply', 'beforeWrite', 'format', 'formatText', 'doctor'].includes(request.method)) {
    throw new FormatboxError('INVALID_REQUEST', `unknown method ${JSON.stringify(request.method)}; use apply, beforeWrite, format, formatText or doctor`);
  }
  if (request.root !== undefined && typeof request.root !== 'string') throw new FormatboxError('INVALID_REQUEST', 'root must be a string');
  if (request.prior !== undefined && request.prior !== null && typeof request.prior !== 'string') throw new FormatboxError('INVALID_REQUEST', 'prior must be a string or null');
  return request;
}

function requirePath(request: CliRequest): string {
  if (typeof request.path !== 'string' || request.path === '') throw new FormatboxError('INVALID_REQUEST', 'the request has no path');
  return request.path;
}

/**
 * One JSON line in, one reply out (`serve` on stdin and on a socket): the result with the request's
 * `id`, or `{id?, error}`. Never throws.
 */
export async function answerLine(line: string, handler: RequestHandler): Promise<unknown> {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return errorReply(undefined, new FormatboxError('INVALID_REQUEST', `not JSON: ${messageOf(error)}`));
  }
  const id = request && typeof request === 'object' ? (request as { id?: unknown }).id : undefined;
  try {
    const result = await handler.handle(request);
    return id !== undefined ? { id, ...result } : result;
  } catch (error) {
    return errorReply(id, error);
  }
}

/** The reply for a failed request: the error's stable code, or INTERNAL for a bug. */
export function errorReply(id: unknown, error: unknown): CliErrorReply {
  const code = isFormatboxError(error) ? error.code : 'INTERNAL';
  return { ...(id !== undefined ? { id } : {}), error: { code, message: messageOf(error) } };
}
