/**
 * Temp-file mode's read-back, for bwrap.ts: the formatter's copy in the sandbox's tmpfs comes back
 * either through a directory fd the host pins via /proc/<pid>/root before the command starts (needs
 * CAP_SYS_PTRACE), or from a fixed supervisor (Node itself, no shell) that runs the formatter inside
 * the sandbox and sends the copy back on a pipe.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { binaryNeeds } from './binary-deps.js';

/** /proc/<pid>/root of the sandbox needs ptrace-read access: CAP_SYS_PTRACE (bit 19) in effect. */
export function canReadSandboxRoots(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return hex !== undefined && (BigInt(`0x${hex}`) & (1n << 19n)) !== 0n;
  } catch {
    return false;
  }
}

export function readChildPid(stream: NodeJS.ReadableStream): Promise<number> {
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

/**
 * Waits until the sandbox (bwrap's child, blocked before it starts the command) has its final root,
 * then opens its scratch directory (`scratchDir`, as the sandbox sees it) and returns that fd. The fd keeps the tmpfs alive after the
 * sandbox is gone, so the copy can be read afterwards. Before the final pivot, /proc/<pid>/root is
 * the host's root (or bwrap's setup tmpfs); the checks make sure the host's /tmp is never taken.
 */
export async function pinScratchDir(pid: number, scratchDir: string, name: string, timeoutMs: number): Promise<number> {
  const hostRoot = statSync('/');
  const hostTmp = statSync('/tmp');
  const deadline = performance.now() + timeoutMs;
  const root = `/proc/${pid}/root`;
  while (performance.now() < deadline) {
    if (!existsSync(`/proc/${pid}`)) throw new Error('the sandbox exited during setup');
    try {
      const rootStat = statSync(`${root}/`);
      if (rootStat.dev !== hostRoot.dev || rootStat.ino !== hostRoot.ino) {
        const fd = openSync(`${root}${scratchDir}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
        const dir = fstatSync(fd);
        if (dir.dev !== hostTmp.dev && dir.dev !== hostRoot.dev && existsSync(`/proc/self/fd/${fd}/${name}`)) return fd;
        closeSync(fd);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') throw new Error(`cannot reach the sandbox's scratch dir (${code})`);
      // otherwise: not set up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error('timed out waiting for the sandbox to set up');
}

/**
 * Reads the copy through the pinned directory fd. Never follows a symlink (it would resolve on the
 * host), never blocks on a FIFO, and only reads a regular file within the size cap.
 */
export function readPinned(dirFd: number, name: string, maxBytes: number): { content?: Uint8Array } | { tooLarge: number } | { error: string } {
  let fd: number;
  try {
    fd = openSync(`/proc/self/fd/${dirFd}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    return { error: code === 'ELOOP' ? 'the formatter replaced the file with a symlink' : `cannot read the formatted copy: ${code}` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { error: 'the formatter replaced the file with something that is not a regular file' };
    if (stat.size > maxBytes) return { tooLarge: stat.size };
    return { content: new Uint8Array(readFileSync(fd)) };
  } finally {
    closeSync(fd);
  }
}

export function nodeForSupervisor(): { node: string; bind: string[] } {
  const node = realpathSync(process.execPath);
  // e.g. ~/.nvm/versions/node/v20/bin/node: that binary (and any library it loads from outside /usr),
  // never its install prefix (whose etc/npmrc may hold a registry token).
  return { node, bind: binaryNeeds(node).paths };
}

/**
 * Runs inside the sandbox as `node -e SUPERVISOR -- <fd> <file> <argv…>`: runs argv (no shell),
 * then writes `{"present":…}\n` and the file's bytes to <fd>, and exits with the command's status.
 */
export const SUPERVISOR = `
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const [fdText, file, ...argv] = process.argv.slice(1);
const fd = Number(fdText);
// The read-back pipe has no close-on-exec: in the formatter's fd table its slot is /dev/null, so the
// formatter gets stdin, stdout and stderr and nothing that leads back to the host.
const stdio = ['ignore', 'inherit', 'inherit'];
for (let slot = 3; slot <= fd; slot++) stdio.push(slot === fd ? fs.openSync('/dev/null', 'r') : 'ignore');
const r = spawnSync(argv[0], argv.slice(1), { stdio });
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

/** The supervisor's read-back: one JSON line, then the file's bytes. */
export function parseReadBack(bytes: Uint8Array): { content?: Uint8Array } | undefined {
  const newline = bytes.indexOf(10);
  if (newline < 0) return undefined;
  try {
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(0, newline))) as { present?: boolean };
    return header.present ? { content: bytes.subarray(newline + 1) } : {};
  } catch {
    return undefined;
  }
}
