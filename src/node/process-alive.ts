/**
 * Whether a process still runs, for sweeps and stale locks: `kill(pid, 0)` succeeds for a zombie
 * too (a child killed mid-write whose parent has not reaped it yet), so on Linux a pid whose
 * /proc/<pid>/stat state is Z (zombie) or X (dead) counts as gone: it will never finish its write.
 */
import { readFileSync } from 'node:fs';

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // No /proc (macOS) or no access: trust kill(0).
  }
  // "pid (comm) S …": comm may hold spaces and parentheses; the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(')') + 1).trim()[0];
  return state === 'Z' || state === 'X';
}
