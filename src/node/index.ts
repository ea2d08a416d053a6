/**
 * `formatbox/node`: the runtime on a real file system (config discovery, atomic compare-and-swap
 * writes, formatters in worker threads, the OS sandbox for subprocess formatters).
 */
export { createRuntime } from './runtime.js';
export { formatTree } from './project/format-tree.js';
export type { FormatTreeOptions, ReceiptSummary, TreeOutcome, TreeReport, TreeRun } from './project/format-tree.js';
export { createWorkerPool } from './worker-pool.js';
export { wasmFiles } from './wasm-files.js';
export { findProjectRoot } from './project-root.js';
export type { ProjectRoot } from './project-root.js';
export type { WorkerPool, WorkerPoolOptions, PoolEvent } from './worker-pool.js';
export type {
  AfterWriteEvent,
  AfterWriteRequest,
  BeforeWriteEvent,
  DoctorLanguage,
  DoctorReport,
  EditRequest,
  MultiEditRequest,
  Runtime,
  RuntimeOptions,
  Trust,
  WriteObserver,
  WriteRequest,
} from './runtime.js';
export type { ApprovalRequest } from './subprocess.js';
export type { PoolStats } from './worker-pool.js';
export type { PatchReceipt } from '../reconcile/index.js';
export { FormatboxError, isFormatboxError } from '../core/errors.js';
export type { ErrorCode } from '../core/errors.js';
export type {
  ApplyPatchInput,
  EditInput,
  FileRecord,
  FormatterInfo,
  IgnoredItem,
  Limits,
  MultiEditInput,
  Receipt,
  SingleFileInput,
  Status,
  ToolInput,
  UserConfig,
  WriteInput,
} from '../core/types.js';
