/**
 * The runtime's public types: what `createRuntime` takes (RuntimeOptions, observers), what each call
 * takes and returns. Re-exported by runtime.ts and `formatbox/node`.
 */
import type {
  ApplyPatchInput,
  EditInput,
  IgnoredItem,
  Limits,
  MultiEditInput,
  Receipt,
  SingleFileInput,
  UserConfig,
  WriteInput,
} from '../../core/types.js';
import type { ConfigBudgetReport } from '../../config/index.js';
import type { ToolKind } from '../../tools/index.js';
import type { PatchReceipt } from '../../reconcile/index.js';
import type { PinnedFormatters } from '../pinned-formatters.js';
import type { VersionReport } from '../../engine/engine.js';
import type { FormatCache } from '../format-cache.js';
import type { DoctorWasmModule } from '../project-wasm.js';
import type { PoolStats, WorkerPool } from '../worker-pool.js';
import type { ApprovalRequest, SubprocessStatus } from '../subprocess.js';

export type Trust = 'untrusted' | 'trusted';

/** What a `before` observer sees: the file as it is (P) and what is about to be written (W). */
export interface BeforeWriteEvent {
  /** Project-relative POSIX path. */
  path: string;
  absolutePath: string;
  tool: ToolKind | 'format';
  /** P; null when the file does not exist yet. */
  prior: string | null;
  /** W; null when the file is being deleted. */
  written: string | null;
}

/** What an `after` observer sees: the receipt, whose `content` is the final file. */
export interface AfterWriteEvent {
  path: string;
  absolutePath: string;
  tool: ToolKind | 'format' | 'afterWrite';
  receipt: Receipt;
}

/**
 * Runs around each write, in the order given: every `before` before the file is touched (a
 * throwing `before` cancels the edit, nothing is written), every `after` once the final bytes are
 * on disk (a throwing `after` is reported in the receipt's note; the write stands).
 */
export interface WriteObserver {
  name?: string;
  before?(event: BeforeWriteEvent): void | Promise<void>;
  after?(event: AfterWriteEvent): void | Promise<void>;
}

export interface RuntimeOptions {
  /** The project root. Every path must resolve inside it (symlinks followed). */
  root: string;
  /** Default 'untrusted': project config is read as data only and never loads code. */
  trust?: Trust;
  /** Trusted user config (see UserConfig). */
  config?: UserConfig;
  limits?: Partial<Limits>;
  observers?: WriteObserver[];
  /**
   * Asked once per command named by the repo's config (and config hash) before it first runs in
   * the sandbox. Without it, untrusted mode runs no repo-named command.
   */
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /** Formatter worker threads. Default 1. */
  workers?: number;
  /**
   * Check the project's config files on disk before each format (config-watch.ts). Default true: a
   * warm runtime never formats with stale config. A one-shot batch (`formatbox format`) turns it off
   * and formats every file with the config found at its start, as dprint and treefmt do; a config
   * file formatbox itself writes is still picked up.
   */
  watchConfig?: boolean;
  /** Process RSS growth during one formatter call that stops it. Default 1024 MB. */
  memoryBudgetMb?: number;
  /**
   * Extra adapter modules loaded in the formatter worker (each exports `createAdapters()`).
   * Trusted code from the embedding program; project config cannot reach this.
   */
  adapterModules?: Array<string | URL>;
  /** Load the built-in adapters. Default true. */
  builtins?: boolean;
  /**
   * A worker pool to share (e.g. several roots served by one process, or a benchmark measuring the
   * bare formatter call in the same worker). The runtime does not close a pool it was given.
   * When given, `workers`, `memoryBudgetMb`, `adapterModules` and `builtins` are the pool's business.
   */
  pool?: WorkerPool;
  /**
   * Formatters at the version the project pins, from the per-user verified store (pinned-formatters.ts).
   * Share one between runtimes (the daemon) so that every root uses one store and one worker per
   * version; the runtime does not close one it was given. Default: its own, closed with the runtime.
   * `false`: none (receipts then say which version the project pins, as offline).
   */
  pinned?: PinnedFormatters | false;
}

export interface EditRequest extends EditInput {
  path: string;
}
export interface MultiEditRequest extends MultiEditInput {
  path: string;
}
export interface WriteRequest extends WriteInput {
  path: string;
}
export interface AfterWriteRequest {
  path: string;
  input: SingleFileInput;
  /** P. Needed for edit/multiEdit; a write without it counts as creating the file. */
  prior?: string;
}

export interface FormatFileRequest {
  path: string;
  /** Report only: write nothing, run no observers. */
  check?: boolean;
  /**
   * Files known formatted (`formatbox format`'s cache): a file whose key is in it is `unchanged`
   * without a formatter call; one found formatted, or written formatted, is added.
   */
  cache?: FormatCache;
  /** Called with the sha256 of the bytes read and formatted (so a caller can tie a verdict to the bytes it hashed). */
  onRead?: (sha256: string) => void;
}

export interface DoctorLanguage {
  language: string;
  /** The representative path that was asked about. */
  path: string;
  /** For a path without an extension: the first line it was asked with (a shebang), and why it gave the language. */
  firstLine?: string;
  languageFrom?: string;
  formatter?: string;
  because?: string;
  skipped?: string;
}

export interface DoctorReport {
  root: string;
  /** The directory the answers are for, relative to `root` ('' for the root itself): `doctor({path})`. */
  dir: string;
  trust: Trust;
  languages: DoctorLanguage[];
  sandbox: { kind: string; available: boolean; detail: string };
  /** Subprocess formatters (sandboxed): where each binary is, or why it cannot run. */
  subprocess: SubprocessStatus[];
  ignored: IgnoredItem[];
  /** What the project's config used of its budget, and why loading stopped when it did (`exceeded`). */
  configBudget?: ConfigBudgetReport;
  workers: PoolStats;
  limits: Limits;
  /** Wasm modules the config names (`{wasi}`): path, sha256 and size, or why they would not run. */
  wasm: DoctorWasmModule[];
  /** Per formatter the project pins: the version pinned, where it was read, and the version that will run. */
  versions: VersionReport[];
}

export interface Runtime {
  readonly root: string;
  edit(request: EditRequest): Promise<Receipt>;
  multiEdit(request: MultiEditRequest): Promise<Receipt>;
  write(request: WriteRequest): Promise<Receipt>;
  /** The rewritten patch, and one receipt per file (`receipts`, in patch order). */
  applyPatch(request: ApplyPatchInput): Promise<PatchReceipt>;
  /** For harnesses that wrote the file themselves: formats what is on disk and reconciles. */
  afterWrite(request: AfterWriteRequest): Promise<Receipt>;
  /**
   * For harnesses about to write the file themselves (an agent's pre-write hook): reads P, applies
   * the input and formats the result in memory, writing nothing. The receipt says what the write
   * would leave on disk (its `content`, F) and the input rewritten towards it.
   */
  beforeWrite(request: { path: string; input: SingleFileInput }): Promise<Receipt>;
  /**
   * Formats the file as it is and writes F (compare-and-swap against the bytes read). The receipt's
   * input is a `write` of F. `check: true` writes nothing and runs no observers (`formatbox format --check`).
   */
  format(request: FormatFileRequest): Promise<Receipt>;
  /**
   * Formats `text` as if it were the file at `path` (which need not exist): the same selection and
   * config as for that path, nothing read from it or written (`formatbox format --stdin-filepath`).
   */
  formatText(request: { path: string; text: string }): Promise<Receipt>;
  /** `path`: a directory or file inside the root; the answers are for files there, as `format` would treat them. */
  doctor(options?: { path?: string }): Promise<DoctorReport>;
  close(): Promise<void>;
}
