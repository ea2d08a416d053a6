/**
 * Picks the OS sandbox for subprocess formatters: bubblewrap on Linux (checked with one trial
 * run, since bwrap may be installed where namespaces are not allowed), sandbox-exec on macOS,
 * otherwise `none`, which refuses every run with the reason. No option runs anything unsandboxed.
 */
import { spawnSync } from 'node:child_process';
import type { Sandbox } from '../../core/sandbox.js';
import { bwrapSandbox, findBwrap, systemLinks, type BwrapOptions } from './bwrap.js';
import { sandboxExecAvailable, sandboxExecSandbox } from './sandbox-exec.js';
import { noSandbox } from './none.js';

export { bwrapSandbox, type BwrapOptions } from './bwrap.js';
export { sandboxExecSandbox } from './sandbox-exec.js';
export { noSandbox } from './none.js';

interface DetectOptions extends BwrapOptions {
  /** For tests and `doctor`: pretend this platform. Default `process.platform`. */
  platform?: NodeJS.Platform;
}

const cache = new Map<string, Sandbox>();

/** The best sandbox available here. The result is cached per options. */
export function detectSandbox(options: DetectOptions = {}): Sandbox {
  const key = JSON.stringify(options);
  let sandbox = cache.get(key);
  if (!sandbox) {
    sandbox = detect(options);
    cache.set(key, sandbox);
  }
  return sandbox;
}

function detect(options: DetectOptions): Sandbox {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') {
    const bwrap = options.bwrapPath ?? findBwrap();
    if (!bwrap) return noSandbox('bubblewrap (bwrap) is not installed');
    const problem = trialRun(bwrap);
    if (problem) return noSandbox(`bwrap cannot create a sandbox here: ${problem}`);
    return bwrapSandbox({ ...options, bwrapPath: bwrap });
  }
  if (platform === 'darwin') {
    if (!sandboxExecAvailable()) return noSandbox('sandbox-exec is not available');
    const sandbox = sandboxExecSandbox();
    return sandbox.unavailable ? noSandbox(sandbox.unavailable) : sandbox;
  }
  return noSandbox(`no supported sandbox on ${platform}`);
}

/** Runs /usr/bin/true in the same kind of sandbox the backend builds; returns the error, if any. */
function trialRun(bwrap: string): string | undefined {
  const result = spawnSync(
    bwrap,
    ['--unshare-all', '--unshare-user', '--disable-userns', '--uid', '65534', '--gid', '65534', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--clearenv',
      '--ro-bind', '/usr', '/usr', ...systemLinks(), '--proc', '/proc', '--dev', '/dev', '--size', '1048576', '--tmpfs', '/tmp', '--remount-ro', '/', '--', '/usr/bin/true'],
    { env: {}, encoding: 'utf8', timeout: 5000 },
  );
  if (result.error) return result.error.message;
  if (result.status !== 0) return (result.stderr || `exit ${result.status}`).trim().split('\n')[0];
  return undefined;
}
