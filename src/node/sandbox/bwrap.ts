/**
 * The bubblewrap backend of the `Sandbox` port (Linux).
 *
 * Every run gets: new user, PID, network, IPC, UTS and cgroup namespaces (so no network at all),
 * a new session, no capabilities, no new user namespaces, uid/gid 65534, death with the parent,
 * an environment cleared to an allow-list, `/usr` (and the `/bin`, `/lib*` links) plus the
 * formatter's toolchain read-only, the project root read-only, a fresh /proc and minimal /dev,
 * and a size-limited private tmpfs on /tmp as the only writable place. Nothing else of the host
 * (no $HOME, no /root, no /etc, no host /tmp) is mounted. When a pids cgroup is writable the run
 * also gets a process-count limit. A timeout or an output overflow kills the whole tree.
 *
 * Temp-file mode: the private copy is created in the tmpfs with `--file`; a fixed supervisor
 * (Node itself, no shell) runs the formatter inside the sandbox, then sends the copy back on fd 3.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, isAbsolute, posix } from 'node:path';
import { homedir } from 'node:os';
import type { Sandbox, SandboxRequest, SandboxResult, ScratchPaths } from '../../core/sandbox.js';
import { launch, type ExtraPipe } from './run-process.js';
import { sandboxEnv } from './env.js';
import { openPidsLimit, pidsLimitAvailable, type PidsLimit } from './cgroup.js';

export interface BwrapOptions {
  /** Absolute path of bwrap. Default: the first of /usr/bin/bwrap, /usr/local/bin/bwrap, /bin/bwrap. */
  bwrapPath?: string;
  /** Size of the private tmpfs (the only writable place). Default 64 MiB. */
  tmpfsBytes?: number;
  /**
   * Processes + threads allowed in one run, enforced with a pids cgroup when one is writable.
   * Default 256. `false` skips the cgroup (only for hosts that limit processes some other way).
   */
  maxProcesses?: number | false;
}

const SCRATCH_DIR = '/tmp/formatbox';
const SANDBOX_UID = '65534';

export function findBwrap(): string | undefined {
  return ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));
}

export function bwrapSandbox(options: BwrapOptions = {}): Sandbox {
  const bwrap = options.bwrapPath ?? findBwrap();
  const tmpfsBytes = options.tmpfsBytes ?? 64 * 1024 * 1024;
  const maxProcesses = options.maxProcesses ?? 256;
  let version: string | undefined;

  const unavailable = bwrap ? undefined : 'bubblewrap (bwrap) is not installed';

  return {
    kind: 'bwrap',
    ...(unavailable ? { unavailable } : {}),
    describe() {
      if (!bwrap) return 'none: bubblewrap (bwrap) is not installed';
      version ??= (spawnSync(bwrap, ['--version'], { encoding: 'utf8', env: {} }).stdout ?? '').trim() || 'bwrap';
      const pids = maxProcesses !== false && pidsLimitAvailable() ? `, ${maxProcesses} processes (pids cgroup)` : ', no process-count limit (no writable pids cgroup)';
      return `${version}: no network, read-only /usr and project, private ${Math.round(tmpfsBytes / 1048576)} MiB tmpfs${pids}`;
    },
    async run(request) {
      if (!bwrap) return { kind: 'refused', reason: unavailable! };
      return runInBwrap(bwrap, tmpfsBytes, maxProcesses, request);
    },
  };
}

async function runInBwrap(bwrap: string, tmpfsBytes: number, maxProcesses: number | false, request: SandboxRequest): Promise<SandboxResult> {
  const started = performance.now();
  const problem = checkPaths(request);
  if (problem) return { kind: 'refused', reason: problem };

  const extra: ExtraPipe[] = [];
  const fdOf = (pipe: ExtraPipe) => String(3 + extra.push(pipe) - 1);
  const args: string[] = [
    '--unshare-all', '--unshare-user', '--disable-userns',
    '--uid', SANDBOX_UID, '--gid', SANDBOX_UID,
    '--die-with-parent', '--new-session', '--cap-drop', 'ALL',
    '--clearenv',
  ];
  for (const [key, value] of Object.entries(sandboxEnv(request.env))) args.push('--setenv', key, value);

  args.push('--ro-bind', '/usr', '/usr');
  args.push(...systemLinks());
  args.push('--proc', '/proc', '--dev', '/dev');
  // The tmpfs comes before any bind under /tmp (a project may live in /tmp).
  args.push('--size', String(tmpfsBytes), '--tmpfs', '/tmp');
  args.push('--perms', '0777', '--dir', SCRATCH_DIR);

  // The pids cgroup is joined before the command starts: bwrap reports its child's pid on the
  // info fd, then blocks on the block fd until both processes are in the group.
  const limit: PidsLimit | undefined = maxProcesses === false ? undefined : openPidsLimit(maxProcesses);
  let infoIndex = -1;
  let blockIndex = -1;
  if (limit) {
    infoIndex = extra.length;
    args.push('--info-fd', fdOf({ kind: 'manual' }));
    blockIndex = extra.length;
    args.push('--block-fd', fdOf({ kind: 'manual' }));
  }

  const data: Record<string, string> = {};
  for (const item of request.scratchData ?? []) {
    const path = posix.join(SCRATCH_DIR, safeName(item.name));
    data[item.name] = path;
    args.push('--perms', '0444', '--ro-bind-data', fdOf({ kind: 'write', data: item.content }), path);
  }
  const scratchPath = request.scratchFile ? posix.join(SCRATCH_DIR, safeName(request.scratchFile.name)) : '';
  let readBackIndex = -1;
  if (request.scratchFile) {
    args.push('--perms', '0666', '--file', fdOf({ kind: 'write', data: request.scratchFile.content }), scratchPath);
    readBackIndex = extra.length;
    fdOf({ kind: 'read', maxBytes: request.maxStdoutBytes + 4096 });
  }

  const readOnly = new Set<string>();
  for (const path of request.readOnlyPaths ?? []) if (!path.startsWith('/usr/')) readOnly.add(path);
  const supervisor = request.scratchFile ? nodeForSupervisor() : undefined;
  if (supervisor?.bind) readOnly.add(supervisor.bind);
  for (const path of readOnly) args.push('--ro-bind', path, path);
  if (request.root) args.push('--ro-bind', request.root, request.root);
  // The file's directory, when it exists inside the bound root; else the root; else the scratch dir.
  const cwd = request.cwd && request.root && isInside(request.cwd, request.root) && existsSync(request.cwd) ? request.cwd : (request.root ?? SCRATCH_DIR);
  args.push('--chdir', cwd);
  args.push('--remount-ro', '/');

  const paths: ScratchPaths = { file: scratchPath, data, dir: SCRATCH_DIR };
  const argv = typeof request.argv === 'function' ? request.argv(paths) : request.argv;
  if (argv.length === 0 || !isAbsolute(argv[0]!)) return { kind: 'error', message: 'the command must start with an absolute binary path', ms: 0 };
  args.push('--');
  if (supervisor) {
    // fd 3 inside the supervisor is the read-back pipe: bwrap passes its fds through, so the
    // supervisor's fd is the host pipe's number; pass that number on.
    args.push(supervisor.node, '-e', SUPERVISOR, '--', String(3 + readBackIndex), scratchPath, ...argv);
  } else {
    args.push(...argv);
  }

  const result = await launch({
    command: bwrap,
    args,
    env: {}, // the launcher's own environment is readable in the sandbox as /proc/1/environ
    cwd: '/',
    ...(request.stdin ? { stdin: request.stdin } : {}),
    extra,
    timeoutMs: request.timeoutMs,
    maxStdoutBytes: request.maxStdoutBytes,
    maxStderrBytes: request.maxStderrBytes,
    ...(limit
      ? {
          killTree: () => limit.killAll(),
          onSpawn: async (pid, control) => {
            const childPid = await readChildPid(control.pipe(infoIndex));
            limit.add([pid, childPid]);
            control.pipe(blockIndex).end('1');
          },
        }
      : {}),
  });
  await limit?.close();

  const ms = Math.round(performance.now() - started);
  switch (result.kind) {
    case 'error':
      return { kind: 'error', message: result.message, ms };
    case 'timeout':
      return { kind: 'timeout', ms, stderr: result.stderr };
    case 'output-limit':
      return { kind: 'output-limit', ms, bytes: result.bytes, stderr: result.stderr };
    case 'exit': {
      if (result.code === 1 && /^bwrap: /.test(result.stderr) && result.stdout.byteLength === 0) {
        return { kind: 'error', message: result.stderr.split('\n')[0]!, ms };
      }
      let scratchFile: Uint8Array | undefined;
      if (request.scratchFile) {
        const back = result.extra[readBackIndex];
        const parsed = back ? parseReadBack(back) : undefined;
        if (!parsed) return { kind: 'error', message: 'the sandbox supervisor did not report back', ms };
        scratchFile = parsed.content;
      }
      return { kind: 'exit', code: result.code, stdout: result.stdout, stderr: result.stderr, ...(scratchFile ? { scratchFile } : {}), ms };
    }
  }
}

/** A reason to refuse the paths of a request, or undefined. */
function checkPaths(request: SandboxRequest): string | undefined {
  const home = safeRealpath(homedir());
  for (const path of [request.root, ...(request.readOnlyPaths ?? [])]) {
    if (path === undefined) continue;
    if (!isAbsolute(path)) return `not an absolute path: ${path}`;
    if (path === '/' || path === '/tmp' || path === '/proc' || path === '/dev') return `refusing to expose ${path} in the sandbox`;
    // A bind of $HOME or an ancestor of it would expose ~/.ssh and friends.
    if (home && home !== '/' && (home === path || home.startsWith(path.endsWith('/') ? path : `${path}/`))) {
      return `refusing to expose ${path}: it contains the home directory`;
    }
    if (!existsSync(path)) return `does not exist: ${path}`;
  }
  return undefined;
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

let systemLinkArgs: string[] | undefined;

/** `/bin`, `/lib`, … as the host has them: links to /usr (merged /usr) or read-only binds. Cached. */
export function systemLinks(): string[] {
  if (systemLinkArgs) return systemLinkArgs;
  const args: string[] = [];
  for (const name of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    try {
      const stat = lstatSync(name);
      if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(name), name);
      else if (stat.isDirectory()) args.push('--ro-bind', name, name);
    } catch {
      // absent on this host
    }
  }
  systemLinkArgs = args;
  return args;
}

/** Only a base name, without path separators or leading dots, lands in the scratch dir. */
function safeName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._+-]/g, '_').replace(/^\.+/, '');
  return cleaned === '' ? 'file' : cleaned;
}

function nodeForSupervisor(): { node: string; bind?: string } {
  const node = realpathSync(process.execPath);
  if (node.startsWith('/usr/')) return { node };
  // e.g. ~/.nvm/versions/node/v20/bin/node: expose that install (its prefix) read-only, nothing more.
  return { node, bind: dirname(dirname(node)) };
}

function readChildPid(stream: NodeJS.ReadableStream): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match) {
        stream.off('data', onData);
        resolve(Number(match[1]));
      }
    };
    stream.on('data', onData);
    stream.on('end', () => reject(new Error('bwrap closed its info fd without a child pid')));
  });
}

/** The supervisor's read-back: one JSON line, then the file's bytes. */
function parseReadBack(bytes: Uint8Array): { content?: Uint8Array } | undefined {
  const newline = bytes.indexOf(10);
  if (newline < 0) return undefined;
  try {
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(0, newline))) as { present?: boolean };
    return header.present ? { content: bytes.subarray(newline + 1) } : {};
  } catch {
    return undefined;
  }
}

/**
 * Runs inside the sandbox as `node -e SUPERVISOR -- <fd> <file> <argv…>`: runs argv (no shell),
 * then writes `{"present":…}\n` and the file's bytes to <fd>, and exits with the command's status.
 */
const SUPERVISOR = `
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const [fdText, file, ...argv] = process.argv.slice(1);
const fd = Number(fdText);
const r = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
let status = 127;
if (r.error) process.stderr.write(String(r.error.message) + '\\n');
else if (r.status !== null) status = r.status;
else if (r.signal) status = 128 + (os.constants.signals[r.signal] || 0);
let content = null;
try { content = fs.readFileSync(file); } catch {}
const out = Buffer.concat([Buffer.from(JSON.stringify({ present: content !== null }) + '\\n'), content || Buffer.alloc(0)]);
let offset = 0;
while (offset < out.length) {
  try { offset += fs.writeSync(fd, out, offset); }
  catch (e) { if (e.code !== 'EAGAIN') break; Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); }
}
process.exit(status);
`;
