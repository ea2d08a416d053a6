/**
 * The second local user of the hostile tests: a real other uid (`nobody`), reached with `setpriv`
 * (CI runs as root). Outside CI without root the suites that need it skip and say why; in CI they run.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NOBODY = 65534;
const canDropPrivileges = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
export const skipWithoutOtherUser: string | undefined = !canDropPrivileges && !process.env.CI ? 'needs root and setpriv to act as a second user (nobody); CI runs as root' : undefined;

/** Runs `node script args…` as nobody, synchronously; throws when it fails. */
export function asNobody(script: string, args: string[]): string {
  const run = spawnSync('setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', process.execPath, script, ...args], { encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`as nobody: ${script} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

/** A world-writable, sticky directory (like /tmp or a shared /tmp/cache): where both users meet. */
export function sharedDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o1777);
  return dir;
}

/** The environment without npm's own variables (so the user's registry settings are believed, as in a shell). */
export function outsideNpm(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const key of Object.keys(out)) if (key.startsWith('npm_')) delete out[key];
  return out;
}
