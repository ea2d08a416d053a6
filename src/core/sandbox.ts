/**
 * The `Sandbox` port: how a subprocess formatter runs inside an OS sandbox.
 * Pure types (universal): the command adapter (`src/formatters/command.ts`) is written against
 * this port, and the Node backends (`src/node/sandbox/`) implement it with bubblewrap or
 * sandbox-exec. There is no unsandboxed backend: `none` refuses every run.
 */

/** Which OS mechanism isolates the process. */
type SandboxKind = 'bwrap' | 'sandbox-exec' | 'none';

/** A file the formatter works on in place: a private copy in the sandbox's writable scratch space. */
interface ScratchFile {
  /** Base name of the copy (no `/`), e.g. `lib.rs`. Keeping the extension lets tools pick their parser. */
  name: string;
  content: Uint8Array;
}

/** Read-only data placed next to the scratch file, e.g. a sanitised config file passed by path. */
export interface ScratchData {
  name: string;
  content: Uint8Array;
}

export interface SandboxRequest {
  /**
   * The command. `argv[0]` is an absolute path to the real binary (no shell, no PATH lookup).
   * A function receives the in-sandbox paths of the scratch file and data files (they are only
   * known to the backend).
   */
  argv: readonly string[] | ((paths: ScratchPaths) => readonly string[]);
  /** Bytes written to stdin, which is then closed. Absent: stdin is empty. */
  stdin?: Uint8Array;
  /** Temp-file mode: the formatter rewrites this private copy, which is read back after it exits. */
  scratchFile?: ScratchFile;
  /** Extra read-only files placed in the scratch space (config passed by path). */
  scratchData?: readonly ScratchData[];
  /** Project root (absolute host path): visible read-only at the same path, so tools find their config. */
  root?: string;
  /**
   * `root` is bound writable. Only for a scratch copy the caller made and reads back itself (never
   * a project); a backend that cannot confine writes to it refuses the run.
   */
  writableRoot?: boolean;
  /** Working directory (absolute, inside `root`). Absent: an empty read-only directory (never the project). */
  cwd?: string;
  /** Host directories made visible read-only at the same path (a toolchain). `/usr` always is. */
  readOnlyPaths?: readonly string[];
  /** Variables added to the sandbox's allow-listed environment (`PATH`, `HOME`, `LANG`, `TMPDIR`). */
  env?: Readonly<Record<string, string>>;
  /** Wall-clock limit; the whole process tree is killed when it passes. */
  timeoutMs: number;
  /** The run is killed, and reported as `output-limit`, once stdout (or the read-back file) passes this. */
  maxStdoutBytes: number;
  /** Only this much stderr is kept (the rest is drained and dropped). */
  maxStderrBytes: number;
  /**
   * Streams stdout: each chunk goes here as it arrives and none is kept (the result's `stdout` is
   * empty), so a long report is read in bounded memory. `maxStdoutBytes` still bounds the total.
   */
  onStdout?: (chunk: Uint8Array) => void;
  /**
   * Address-space limit (RLIMIT_AS) of the formatter process; its children inherit it. An allocation
   * past it fails inside the formatter, which then exits with an error. Absent: no limit.
   */
  maxMemoryBytes?: number;
  /** Ends the run early: the whole process tree is killed and the result is `aborted`. */
  signal?: AbortSignal;
}

/** Paths as the sandboxed process sees them. */
export interface ScratchPaths {
  /** The scratch file, when the request has one. */
  file: string;
  /** Data files by name. */
  data: Readonly<Record<string, string>>;
  /** The writable scratch directory. */
  dir: string;
}

/** How a run ended. Expected outcomes are values; `error` means the sandbox itself could not start. */
export type SandboxResult =
  | {
      kind: 'exit';
      /** Exit code, or 128 + signal number when the process was killed by a signal. */
      code: number;
      stdout: Uint8Array;
      /** Bounded stderr, decoded leniently. */
      stderr: string;
      /** The scratch file after the run (temp-file mode); undefined when it was deleted. */
      scratchFile?: Uint8Array;
      ms: number;
    }
  | { kind: 'timeout'; ms: number; stderr: string }
  | { kind: 'output-limit'; ms: number; bytes: number; stderr: string }
  | { kind: 'refused'; reason: string }
  /** The request's `signal` ended the run. */
  | { kind: 'aborted'; ms: number }
  | { kind: 'error'; message: string; ms: number };

export interface Sandbox {
  readonly kind: SandboxKind;
  /** Undefined when runs are possible; otherwise why every run is refused. */
  readonly unavailable?: string;
  /** One line for `doctor()`: mechanism, version and limits. */
  describe(): string;
  run(request: SandboxRequest): Promise<SandboxResult>;
}

/** The reason every subprocess formatter gets when no OS sandbox is available. */
export const NO_SANDBOX_REASON = 'no OS sandbox for a subprocess formatter';
