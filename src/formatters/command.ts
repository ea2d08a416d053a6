/**
 * Subprocess formatters as data (universal: no `node:` import). A `CommandSpec` says how to call a
 * formatter binary; `commandFormatter` turns it into a `FormatterAdapter` that runs it through the
 * `Sandbox` port, never any other way.
 *
 * Contract with the formatter:
 * - `stdin` mode: a stdin→stdout filter (rustfmt --emit stdout, gofmt, black -, clang-format).
 * - `file` mode: argv names the file (`{file}`, `{path}` or `$FILE`); the formatter rewrites a
 *   private copy in the sandbox's tmpfs, which is read back. The project itself stays read-only.
 * - The argv is used as is: no shell, so no quoting, globbing or expansion happens after templating.
 * - The working directory is an empty read-only directory of the sandbox, never the project: an
 *   interpreter (`python3 -m json.tool`, `node`, `perl`) must not pick up modules from the repo by
 *   being run inside it. The file reaches the formatter explicitly (stdin, or the copy's path).
 * - Exit-code policy: codes in `okExitCodes` (default [0]) are success; anything else is `error`
 *   with the first line of stderr (or stdout) as the message. Empty output for a non-empty file,
 *   output that is not UTF-8, a deleted copy, or output over the cap are errors too.
 * - A timeout kills the whole process tree (`timeout`); no sandbox means `refused`.
 */
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo } from '../core/types.js';
import type { Sandbox, SandboxRequest, ScratchData } from '../core/sandbox.js';

export interface CommandSpec {
  /** Adapter name (config name for built-ins) and the name shown in receipts. */
  name: string;
  languages: readonly string[];
  /** `argv[0]` is an absolute binary path. Placeholders anywhere in an argument: `{file}`, `{path}`, `$FILE`, `${FILE}`. */
  argv: readonly string[];
  /** Default: `file` when argv has a placeholder, else `stdin`. */
  mode?: 'stdin' | 'file';
  /** Default [0]. */
  okExitCodes?: readonly number[];
  /** Toolchain directories the binary needs, bound read-only. */
  readOnlyPaths?: readonly string[];
  /** Extra allow-listed environment (see the sandbox backend's allow-list). */
  env?: Readonly<Record<string, string>>;
  /**
   * Per-request arguments and read-only data files from the adapter request (settings → flags).
   * Return `{ error }` to fail the request without running anything.
   */
  prepare?(request: AdapterRequest): PreparedArgs;
  /** The message for a failed run. Default: the first non-empty stderr line, else stdout's, else `exit N`. */
  errorMessage?(stderr: string, stdout: string, exitCode: number): string;
  /** The real version (e.g. by running `--version` through the same sandbox). Default 'unknown'. */
  version?(run: (argv: readonly string[]) => Promise<string | undefined>): Promise<string>;
  /** Checked before every run (approval of a repo command); a string refuses the run with that reason. */
  gate?(): Promise<string | undefined>;
}

export interface PreparedArgs {
  /** Appended to `argv` (placeholders are templated in them too). */
  args?: readonly string[];
  /** Read-only files in the scratch dir; `{data:NAME}` in args becomes the file's sandbox path. */
  data?: readonly ScratchData[];
  /** Fail the request with this message without running anything. */
  error?: string;
}

export interface CommandAdapterOptions {
  sandbox: Sandbox;
  /** Absolute host path of the project root: bound read-only (tools find their config there through absolute paths). */
  root?: string;
  /** Per run. Default 10000. */
  timeoutMs?: number;
  /** Cap on stdout and on the read-back copy. Default: 4× the input, at least 4 MiB. */
  maxOutputBytes?: number;
  /** Stderr kept for the message. Default 64 KiB. */
  maxStderrBytes?: number;
  /** Address-space limit of the formatter process (see `SandboxRequest.maxMemoryBytes`). Default 4 GiB. */
  maxMemoryBytes?: number;
}

/** Enough for rustfmt, gofmt, black and a JVM formatter's default reservations; a runaway stops here. */
export const DEFAULT_MAX_MEMORY_BYTES = 4 * 1024 ** 3;

const PLACEHOLDER = /\{file\}|\{path\}|\$\{FILE\}|\$FILE(?![A-Za-z0-9_])/g;

export function hasFilePlaceholder(argv: readonly string[]): boolean {
  return argv.some((arg) => new RegExp(PLACEHOLDER.source).test(arg));
}

/** Replaces the file placeholders in each argument (no shell: the result is used verbatim). */
export function templateArgv(argv: readonly string[], file: string): string[] {
  return argv.map((arg) => arg.replace(PLACEHOLDER, () => file));
}

export function commandFormatter(spec: CommandSpec, options: CommandAdapterOptions): FormatterAdapter {
  const mode = spec.mode ?? (hasFilePlaceholder(spec.argv) ? 'file' : 'stdin');
  const okExitCodes = spec.okExitCodes ?? [0];
  const timeoutMs = options.timeoutMs ?? 10_000;
  let version: Promise<string> | undefined;

  const base = (): Omit<SandboxRequest, 'argv'> => ({
    ...(options.root ? { root: options.root } : {}),
    ...(spec.readOnlyPaths ? { readOnlyPaths: spec.readOnlyPaths } : {}),
    ...(spec.env ? { env: spec.env } : {}),
    timeoutMs,
    maxStdoutBytes: 1024 * 1024,
    maxStderrBytes: options.maxStderrBytes ?? 64 * 1024,
    maxMemoryBytes: options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES,
  });

  /** Runs a fixed argv (e.g. `--version`) in the sandbox; stdout on success. */
  const runPlain = async (argv: readonly string[]): Promise<string | undefined> => {
    if (options.sandbox.unavailable) return undefined;
    const result = await options.sandbox.run({ ...base(), argv, timeoutMs: Math.min(timeoutMs, 10_000) });
    if (result.kind !== 'exit' || result.code !== 0) return undefined;
    return new TextDecoder().decode(result.stdout);
  };

  const info = async (): Promise<FormatterInfo> => {
    version ??= spec.version ? spec.version(runPlain).catch(() => 'unknown') : Promise.resolve('unknown');
    return { name: spec.name, version: await version, via: 'sandbox' };
  };

  return {
    name: spec.name,
    via: 'sandbox',
    languages: spec.languages,
    supportsRange: false,
    info,
    async format(request: AdapterRequest): Promise<AdapterResult> {
      if (options.sandbox.unavailable) return { kind: 'refused', reason: options.sandbox.unavailable };
      const gated = await spec.gate?.();
      if (gated) return { kind: 'refused', reason: gated };
      const prepared = spec.prepare?.(request) ?? {};
      if (prepared.error) return { kind: 'error', message: prepared.error };

      const input = new TextEncoder().encode(request.text);
      const maxOutput = options.maxOutputBytes ?? Math.max(4 * 1024 * 1024, 4 * input.byteLength);
      const extra = prepared.args ?? [];
      const argvFor = (file: string, data: Readonly<Record<string, string>>): string[] =>
        templateArgv([...spec.argv, ...extra], file).map((arg) => arg.replace(/\{data:([^}]+)\}/g, (whole, name: string) => data[name] ?? whole));

      const run: SandboxRequest = {
        ...base(),
        maxStdoutBytes: maxOutput,
        ...(prepared.data ? { scratchData: prepared.data } : {}),
        ...(mode === 'stdin'
          ? { stdin: input, argv: (paths) => argvFor('', paths.data) }
          : { scratchFile: { name: baseName(request.path), content: input }, argv: (paths) => argvFor(paths.file, paths.data) }),
      };
      const result = await options.sandbox.run(run);

      switch (result.kind) {
        case 'refused':
          return { kind: 'refused', reason: result.reason };
        case 'timeout':
          return { kind: 'timeout', ms: result.ms };
        case 'output-limit':
          return { kind: 'error', message: `output passed ${maxOutput} bytes; the formatter was stopped` };
        case 'error':
          return { kind: 'error', message: `sandbox: ${result.message}` };
        case 'aborted': // this adapter passes no signal
          return { kind: 'error', message: 'sandbox: the run was aborted' };
        case 'exit': {
          const stdoutText = new TextDecoder().decode(result.stdout);
          if (!okExitCodes.includes(result.code)) {
            const message = (spec.errorMessage ?? defaultErrorMessage)(result.stderr, stdoutText, result.code);
            return { kind: 'error', message, exitCode: result.code };
          }
          const bytes = mode === 'stdin' ? result.stdout : result.scratchFile;
          if (!bytes) return { kind: 'error', message: 'the formatter deleted the file', exitCode: result.code };
          let text: string;
          try {
            text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
          } catch {
            return { kind: 'error', message: 'the formatter wrote output that is not UTF-8', exitCode: result.code };
          }
          if (text.trim() === '' && request.text.trim() !== '') {
            return { kind: 'error', message: 'the formatter returned empty output for a non-empty file', exitCode: result.code };
          }
          return { kind: 'ok', text };
        }
      }
    },
  };
}

/**
 * First non-empty line of stderr, else of stdout, else `exit N`; bounded. A Python traceback (black,
 * a user's Python tool) says what went wrong on its last line, so that one is taken instead.
 */
export function defaultErrorMessage(stderr: string, stdout: string, exitCode: number): string {
  const lines = [stderr, stdout].flatMap((s) => s.split('\n')).map((l) => l.trim()).filter((l) => l !== '');
  let line = lines[0];
  if (line === 'Traceback (most recent call last):') {
    const stderrLines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
    line = stderrLines[stderrLines.length - 1] ?? line;
  }
  return (line ?? `exit ${exitCode}`).slice(0, 300);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1) || 'file';
}
