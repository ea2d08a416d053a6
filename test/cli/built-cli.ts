/**
 * The real built CLI for the daemon, hook, conventions and MCP tests: `npm run build` output
 * (dist/cli.js), rebuilt when older than the sources, then copied with package.json into a private
 * directory (node_modules linked), so a concurrent `npm run build` elsewhere cannot pull it away,
 * and so a second copy can carry another version. Each test gets its own XDG_RUNTIME_DIR: no test
 * touches a real user daemon or another test's.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO = resolve('.');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const stats = statSync(full);
    newest = Math.max(newest, stats.isDirectory() ? newestMtime(full) : stats.mtimeMs);
  }
  return newest;
}

/** Builds dist/ when missing or stale. */
export function ensureBuilt(): void {
  const cli = join(REPO, 'dist/cli.js');
  const needed = ['cli.js', 'cli-main.js', 'cli-local.js', 'cli-mcp.js', 'format-worker.js', 'node.js'].map((f) => join(REPO, 'dist', f));
  if (needed.every((f) => existsSync(f)) && statSync(cli).mtimeMs >= newestMtime(join(REPO, 'src'))) return;
  const run = spawnSync(process.execPath, ['build.mjs'], { cwd: REPO, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`npm run build failed: ${run.stderr}${run.stdout}`);
}

/** A private copy of the built package (dist + package.json, node_modules linked); `version` overrides package.json's. */
export function installCopy(version?: string): { dir: string; cli: string; version: string } {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'fb-built-'));
  cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true, filter: (src) => !src.includes(`${join(REPO, 'dist', 'types')}`) });
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  if (version) pkg.version = version;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return { dir, cli: join(dir, 'dist', 'cli.js'), version: pkg.version };
}

/** A fresh XDG_RUNTIME_DIR (0700) and an environment without any user config or daemon settings. */
export function isolatedEnv(extra: Record<string, string> = {}): { env: NodeJS.ProcessEnv; runtimeDir: string } {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'fb-xdg-'));
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(runtimeDir, 'no-config'), ...extra };
  for (const key of ['FORMATBOX_NO_DAEMON', 'FORMATBOX_SOCKET', 'FORMATBOX_DAEMON_IDLE_MS', 'CLAUDE_PROJECT_DIR']) if (!(key in extra)) delete env[key];
  return { env, runtimeDir };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(cli: string, args: string[], options: { env: NodeJS.ProcessEnv; input?: string; cwd?: string }): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...args], { env: options.env, cwd: options.cwd ?? REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code, signal) => done({ code: code ?? (signal ? -1 : -2), stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Pids of daemons serving sockets under `runtimeDir` (from /proc). */
export function daemonPids(runtimeDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const argv = cmdline.split('\0');
    if (argv.includes('daemon') && argv.includes('run') && argv.some((a) => a.startsWith(runtimeDir))) pids.push(Number(name));
  }
  return pids;
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops every daemon of this runtime dir and removes the dirs. */
export async function cleanUp(runtimeDir: string, ...dirs: string[]): Promise<void> {
  for (const pid of daemonPids(runtimeDir)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone
    }
  }
  await waitFor(() => daemonPids(runtimeDir).length === 0, 15_000, 'daemons to stop').catch(() => {
    for (const pid of daemonPids(runtimeDir)) process.kill(pid, 'SIGKILL');
  });
  for (const dir of [runtimeDir, ...dirs]) rmSync(dir, { recursive: true, force: true });
}

export function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-proj-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}
