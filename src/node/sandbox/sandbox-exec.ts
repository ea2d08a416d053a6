/**
 * The macOS backend of the `Sandbox` port: `sandbox-exec` with the profile in `formatbox.sb`.
 * UNTESTED: formatbox is built and tested on Linux; this backend is written carefully but has
 * never run. docs/security.md says so.
 *
 * Differences from bubblewrap, by necessity: there are no mount namespaces, so the project and
 * system keep their real paths and the scratch space is a private host directory (mkdtemp, 0700,
 * removed afterwards) that is not size-limited; processes may not fork at all (so nothing can
 * outlive the run); the environment is cleared to an allow-list by the spawn itself.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sandbox, SandboxRequest, SandboxResult, ScratchPaths } from '../../core/sandbox.js';
import { launch } from './run-process.js';
import { sandboxEnv } from './env.js';

const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** The profile, next to this module (copied next to the bundle by the build). */
function loadProfile(): string | undefined {
  for (const candidate of ['./formatbox.sb', './sandbox/formatbox.sb', './node/sandbox/formatbox.sb']) {
    try {
      return readFileSync(fileURLToPath(new URL(candidate, import.meta.url)), 'utf8');
    } catch {
      // try the next layout
    }
  }
  return undefined;
}

export function sandboxExecAvailable(): boolean {
  return process.platform === 'darwin' && existsSync(SANDBOX_EXEC);
}

export function sandboxExecSandbox(): Sandbox {
  const profile = loadProfile();
  const unavailable = !sandboxExecAvailable()
    ? 'sandbox-exec is not available'
    : profile === undefined
      ? 'the sandbox-exec profile (formatbox.sb) is missing from the installation'
      : undefined;
  return {
    kind: 'sandbox-exec',
    ...(unavailable ? { unavailable } : {}),
    describe: () => (unavailable ? `none: ${unavailable}` : 'sandbox-exec (untested): no network, no fork, read-only system and project, private scratch dir'),
    async run(request) {
      if (unavailable) return { kind: 'refused', reason: unavailable };
      // Its profile keeps the root read-only; a writable scratch copy is not written for it.
      if (request.writableRoot) return { kind: 'refused', reason: 'a writable root is not supported with sandbox-exec' };
      return runInSandboxExec(profile!, request);
    },
  };
}

async function runInSandboxExec(profile: string, request: SandboxRequest): Promise<SandboxResult> {
  const started = performance.now();
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'formatbox-')));
  try {
    chmodSync(scratch, 0o700);
    const data: Record<string, string> = {};
    for (const item of request.scratchData ?? []) {
      const path = join(scratch, safeName(item.name));
      writeFileSync(path, item.content, { mode: 0o444 });
      data[item.name] = path;
    }
    const file = request.scratchFile ? join(scratch, safeName(request.scratchFile.name)) : '';
    if (request.scratchFile) writeFileSync(file, request.scratchFile.content, { mode: 0o600 });
    const paths: ScratchPaths = { file, data, dir: scratch };
    const argv = typeof request.argv === 'function' ? request.argv(paths) : request.argv;
    const binary = argv[0];
    if (!binary || !isAbsolute(binary)) return { kind: 'error', message: 'the command must start with an absolute binary path', ms: 0 };
    const realBinary = realpathSync(binary);
    const tool = request.readOnlyPaths?.[0] ? realpathSync(request.readOnlyPaths[0]) : dirname(realBinary);
    const root = request.root ? realpathSync(request.root) : scratch;
    const env = sandboxEnv(request.env, { TMPDIR: scratch });

    const result = await launch({
      command: SANDBOX_EXEC,
      args: ['-p', profile, '-D', `ROOT=${root}`, '-D', `SCRATCH=${scratch}`, '-D', `TOOL=${tool}`, '-D', `BINARY=${realBinary}`, realBinary, ...argv.slice(1)],
      env,
      // Never the project by default: interpreters must not find modules relative to it.
      cwd: request.cwd ?? scratch,
      ...(request.stdin ? { stdin: request.stdin } : {}),
      timeoutMs: request.timeoutMs,
      maxStdoutBytes: request.maxStdoutBytes,
      maxStderrBytes: request.maxStderrBytes,
      ...(request.onStdout ? { onStdout: request.onStdout } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const ms = Math.round(performance.now() - started);
    switch (result.kind) {
      case 'error':
        return { kind: 'error', message: result.message, ms };
      case 'timeout':
        return { kind: 'timeout', ms, stderr: result.stderr };
      case 'aborted':
        return { kind: 'aborted', ms };
      case 'output-limit':
        return { kind: 'output-limit', ms, bytes: result.bytes, stderr: result.stderr };
      case 'exit': {
        let scratchFile: Uint8Array | undefined;
        if (request.scratchFile) {
          try {
            const back = readFileSync(file);
            if (back.byteLength > request.maxStdoutBytes) return { kind: 'output-limit', ms, bytes: back.byteLength, stderr: result.stderr };
            scratchFile = new Uint8Array(back);
          } catch {
            scratchFile = undefined;
          }
        }
        return { kind: 'exit', code: result.code, stdout: result.stdout, stderr: result.stderr, ...(scratchFile ? { scratchFile } : {}), ms };
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._+-]/g, '_').replace(/^\.+/, '');
  return cleaned === '' ? 'file' : cleaned;
}
