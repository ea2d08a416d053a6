/**
 * A process-count limit for one sandboxed run: a pids cgroup (v1 `pids` hierarchy, or cgroup v2
 * with the pids controller) that the sandbox's processes are moved into before the command starts.
 * A PID namespace hides processes but does not bound how many there are, and RLIMIT_NPROC does not
 * apply to root; without this a fork bomb could use up the host's PIDs before the timeout.
 * Needs a writable cgroup tree (root, or a delegated subtree); otherwise `openPidsLimit` returns undefined.
 */
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PARENT_NAME = 'formatbox-sandbox';
let counter = 0;

/** The writable directory under which per-run cgroups are made, or undefined. Cached. */
let base: string | null | undefined;

function findBase(): string | undefined {
  if (base !== undefined) return base ?? undefined;
  base = null;
  const candidates: string[] = [];
  // cgroup v1: a dedicated pids hierarchy.
  candidates.push('/sys/fs/cgroup/pids');
  // cgroup v2 (unified at /sys/fs/cgroup, or hybrid at /sys/fs/cgroup/unified) with pids enabled for children.
  // A non-root user's delegated subtree (systemd: …/user@UID.service/…): next to our own cgroup,
  // since a cgroup with processes in it cannot also have controller-enabled children.
  const own = ownCgroupV2();
  const delegated = own && own !== '/' ? [join('/sys/fs/cgroup', own, '..'), join('/sys/fs/cgroup/unified', own, '..')] : [];
  for (const root of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified', ...delegated]) {
    try {
      const subtree = readFileSync(join(root, 'cgroup.subtree_control'), 'utf8');
      if (subtree.split(/\s+/).includes('pids')) candidates.push(root);
    } catch {
      // not cgroup v2 here
    }
  }
  for (const candidate of candidates) {
    try {
      accessSync(join(candidate, 'cgroup.procs'), constants.W_OK);
      const dir = join(candidate, PARENT_NAME);
      mkdirSync(dir, { recursive: true });
      if (candidate.endsWith('/pids') || readFileSync(join(dir, 'cgroup.controllers'), 'utf8').includes('pids')) {
        // For v2 the parent must pass pids on to the per-run children.
        try {
          writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids');
        } catch {
          // v1 has no subtree_control
        }
        // Probe: make and remove one child with a limit.
        const probe = join(dir, `probe-${process.pid}`);
        mkdirSync(probe);
        writeFileSync(join(probe, 'pids.max'), '1');
        rmdirSync(probe);
        sweep(dir);
        base = dir;
        return dir;
      }
    } catch {
      // not writable or no pids controller; try the next
    }
  }
  return undefined;
}

/** Removes empty groups left by formatbox processes that died (a group with processes stays). */
function sweep(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const owner = /^run-(\d+)-\d+$/.exec(entry)?.[1];
    if (!owner || existsSync(`/proc/${owner}`)) continue;
    try {
      rmdirSync(join(dir, entry));
    } catch {
      // still has processes, or already gone
    }
  }
}

function ownCgroupV2(): string | undefined {
  try {
    return /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

export interface PidsLimit {
  readonly max: number;
  /** Moves these processes (by host pid) into the group. Children forked afterwards stay in it. */
  add(pids: readonly number[]): void;
  /** SIGKILLs every process still in the group. */
  killAll(): void;
  /** Kills what is left and removes the group (retries briefly while processes exit). */
  close(): Promise<void>;
}

/** A fresh pids cgroup limited to `max` processes/threads, or undefined when cgroups are not writable here. */
export function openPidsLimit(max: number): PidsLimit | undefined {
  const parent = findBase();
  if (!parent) return undefined;
  const dir = join(parent, `run-${process.pid}-${++counter}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'pids.max'), String(max));
  } catch {
    return undefined;
  }
  const members = (): number[] => {
    try {
      return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  };
  const killAll = () => {
    for (const pid of members()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  return {
    max,
    add(pids) {
      for (const pid of pids) writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    },
    killAll,
    async close() {
      for (let attempt = 0; attempt < 50; attempt++) {
        killAll();
        try {
          rmdirSync(dir);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
  };
}

/** True when per-run pids cgroups can be made here (for `describe()`). */
export function pidsLimitAvailable(): boolean {
  return findBase() !== undefined;
}
