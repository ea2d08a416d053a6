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
 * Temp-file mode: the private copy is created in the tmpfs with `--file`. It is read back through
 * a directory fd the host pins (via /proc/<pid>/root) before the command starts, or, where that is
 * not permitted, by a fixed supervisor (Node itself, no shell) that runs the formatter inside the
 * sandbox and sends the copy back on a pipe. (read-back.ts)
 */
import { closeSync, existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { isAbsolute, posix } from 'node:path';
import { homedir } from 'node:os';
import type { Sandbox, SandboxRequest, SandboxResult, ScratchPaths } from '../../core/sandbox.js';
import { launch, type ExtraPipe, type LaunchControl } from './run-process.js';
import { sandboxEnv } from './env.js';
import { openPidsLimit, pidsLimitAvailable, type PidsLimit } from './cgroup.js';
import { isInside, safeRealpath } from '../fs/paths.js';
import { credentialsInside, hideArgs } from './credentials.js';
import { canReadSandboxRoots, nodeForSupervisor, parseReadBack, pinScratchDir, readChildPid, readPinned, SUPERVISOR } from './read-back.js';

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
  /**
   * How temp-file mode reads the private copy back. `proc`: the host pins the sandbox's scratch
   * directory through /proc/<pid>/root before the command starts and reads the copy through that
   * fd afterwards (needs ptrace-read access to the sandbox, i.e. root). `supervisor`: a fixed Node
   * supervisor inside the sandbox runs the command and sends the copy back on a pipe (~40 ms more).
   * Default `auto`: `proc` when this process has CAP_SYS_PTRACE (root, outside a container that
   * drops it), else `supervisor`.
   */
  readBack?: 'auto' | 'proc' | 'supervisor';
}

const SCRATCH_DIR = '/tmp/formatbox';
/** The working directory of every run that names none: empty, read-only. */
const EMPTY_CWD = '/tmp/formatbox-cwd';
/** util-linux's prlimit (Debian's essential util-linux package), visible in the sandbox under /usr. */
const PRLIMIT = '/usr/bin/prlimit';
const SANDBOX_UID = '65534';

export function findBwrap(): string | undefined {
  return ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));
}

export function bwrapSandbox(options: BwrapOptions = {}): Sandbox {
  const bwrap = options.bwrapPath ?? findBwrap();
  const tmpfsBytes = options.tmpfsBytes ?? 64 * 1024 * 1024;
  const maxProcesses = options.maxProcesses ?? 256;
  const readBack = options.readBack === 'proc' || (options.readBack !== 'supervisor' && canReadSandboxRoots()) ? 'proc' : 'supervisor';
  let version: string | undefined;

  const unavailable = bwrap ? undefined : 'bubblewrap (bwrap) is not installed';

  return {
    kind: 'bwrap',
    ...(unavailable ? { unavailable } : {}),
    describe() {
      if (!bwrap) return 'none: bubblewrap (bwrap) is not installed';
      version ??= (spawnSync(bwrap, ['--version'], { encoding: 'utf8', env: {} }).stdout ?? '').trim() || 'bwrap';
      const pids = maxProcesses !== false && pidsLimitAvailable() ? `, ${maxProcesses} processes (pids cgroup)` : ', no process-count limit (no writable pids cgroup)';
      return `${version}: no network, read-only /usr and project, private ${Math.round(tmpfsBytes / 1048576)} MiB tmpfs${pids}, temp-file copies read back ${readBack === 'proc' ? 'through a pinned scratch dir' : 'by an in-sandbox supervisor'}`;
    },
    async run(request) {
      if (!bwrap) return { kind: 'refused', reason: unavailable! };
      return runInBwrap(bwrap, tmpfsBytes, maxProcesses, readBack, request);
    },
  };
}

async function runInBwrap(bwrap: string, tmpfsBytes: number, maxProcesses: number | false, readBack: 'proc' | 'supervisor', request: SandboxRequest): Promise<SandboxResult> {
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
  // bwrap's /dev is a writable tmpfs without a size limit (/dev/shm included): make it read-only.
  // The device nodes are separate binds and stay usable (/dev/null, /dev/urandom, …).
  // A writable root on the host's /dev/shm (formatbox's own scratch copy, on a tmpfs) is bound
  // before that: the bind stays writable, the rest of /dev does not.
  const rootUnderDev = request.root !== undefined && request.writableRoot === true && request.root.startsWith('/dev/shm/');
  args.push('--proc', '/proc', '--dev', '/dev');
  if (rootUnderDev) args.push('--bind', request.root!, request.root!);
  args.push('--remount-ro', '/dev');
  // The tmpfs comes before any bind under /tmp (a project may live in /tmp).
  args.push('--size', String(tmpfsBytes), '--tmpfs', '/tmp');
  args.push('--perms', '0777', '--dir', SCRATCH_DIR);
  // The default working directory: empty and read-only, so nothing is found relative to it.
  args.push('--perms', '0555', '--dir', EMPTY_CWD);

  // Before the command starts, bwrap reports its child's pid on the info fd and blocks on the block
  // fd: meanwhile both processes join the pids cgroup, and (temp-file mode, `proc` read-back) the
  // host pins the sandbox's scratch directory.
  const limit: PidsLimit | undefined = maxProcesses === false ? undefined : openPidsLimit(maxProcesses);
  const pinScratch = request.scratchFile !== undefined && readBack === 'proc';
  let infoIndex = -1;
  let blockIndex = -1;
  if (limit || pinScratch) {
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
  const scratchName = request.scratchFile ? safeName(request.scratchFile.name) : '';
  const scratchPath = request.scratchFile ? posix.join(SCRATCH_DIR, scratchName) : '';
  let readBackIndex = -1;
  if (request.scratchFile) {
    args.push('--perms', '0666', '--file', fdOf({ kind: 'write', data: request.scratchFile.content }), scratchPath);
    if (!pinScratch) {
      readBackIndex = extra.length;
      fdOf({ kind: 'read', maxBytes: request.maxStdoutBytes + 4096 });
    }
  }

  const readOnly = new Set<string>();
  for (const path of request.readOnlyPaths ?? []) if (!path.startsWith('/usr/')) readOnly.add(path);
  const supervisor = request.scratchFile && !pinScratch ? nodeForSupervisor() : undefined;
  for (const path of supervisor?.bind ?? []) readOnly.add(path);
  for (const path of readOnly) args.push('--ro-bind', path, path);
  if (request.root && !rootUnderDev) args.push(request.writableRoot ? '--bind' : '--ro-bind', request.root, request.root);
  // Second layer: credentials inside any bound directory are hidden (an empty tmpfs, /dev/null).
  for (const dir of [...readOnly, ...(request.root ? [request.root] : [])]) {
    if (isDirectory(dir)) args.push(...hideArgs(credentialsInside(dir)));
  }
  // An explicit working directory inside the bound root, else the empty one (never the project by default).
  const cwd = request.cwd && request.root && isInside(request.cwd, request.root) && existsSync(request.cwd) ? request.cwd : EMPTY_CWD;
  args.push('--chdir', cwd);
  args.push('--remount-ro', '/');

  const paths: ScratchPaths = { file: scratchPath, data, dir: SCRATCH_DIR };
  const argv = typeof request.argv === 'function' ? request.argv(paths) : request.argv;
  if (argv.length === 0 || !isAbsolute(argv[0]!)) return { kind: 'error', message: 'the command must start with an absolute binary path', ms: 0 };
  args.push('--');
  // The memory limit applies to the formatter only (not to the supervisor, whose V8 reserves more
  // address space than a formatter needs): util-linux's prlimit sets it, then execs the formatter.
  const limited = request.maxMemoryBytes !== undefined && existsSync(PRLIMIT) ? [PRLIMIT, `--as=${Math.floor(request.maxMemoryBytes)}`, '--', ...argv] : argv;
  if (supervisor) {
    // fd 3 inside the supervisor is the read-back pipe: bwrap passes its fds through, so the
    // supervisor's fd is the host pipe's number; pass that number on.
    args.push(supervisor.node, '-e', SUPERVISOR, '--', String(3 + readBackIndex), scratchPath, ...limited);
  } else {
    args.push(...limited);
  }

  let pinned: number | undefined;
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
    ...(request.onStdout ? { onStdout: request.onStdout } : {}),
    ...(limit ? { killTree: () => limit.killAll() } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(infoIndex >= 0
      ? {
          onSpawn: async (pid: number, control: LaunchControl) => {
            const childPid = await readChildPid(control.pipe(infoIndex));
            limit?.add([pid, childPid]);
            if (pinScratch) pinned = await pinScratchDir(childPid, SCRATCH_DIR, scratchName, request.timeoutMs);
            control.pipe(blockIndex).end('1');
          },
        }
      : {}),
  });
  // The group is empty or being emptied; removing it (with retries while the kernel releases the
  // last tasks) does not hold up the result.
  void limit?.close();
  let pinnedCopy: ReturnType<typeof readPinned> | undefined;
  if (pinned !== undefined) {
    try {
      if (result.kind === 'exit') pinnedCopy = readPinned(pinned, scratchName, request.maxStdoutBytes);
    } finally {
      closeSync(pinned);
    }
  }

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
      if (result.code === 1 && /^bwrap: /.test(result.stderr) && result.stdout.byteLength === 0) {
        return { kind: 'error', message: result.stderr.split('\n')[0]!, ms };
      }
      let scratchFile: Uint8Array | undefined;
      if (pinnedCopy) {
        if ('tooLarge' in pinnedCopy) return { kind: 'output-limit', ms, bytes: pinnedCopy.tooLarge, stderr: result.stderr };
        if ('error' in pinnedCopy) return { kind: 'error', message: pinnedCopy.error, ms };
        scratchFile = pinnedCopy.content;
      } else if (request.scratchFile) {
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
    if (home && home !== '/' && isInside(home, path)) {
      return `refusing to expose ${path}: it contains the home directory`;
    }
    if (!existsSync(path)) return `does not exist: ${path}`;
  }
  return undefined;
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
