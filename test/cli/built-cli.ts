/**
 * The real built CLI for the daemon, hook, conventions and MCP tests: the bundles `npm run build`
 * makes (build.mjs `buildNode`), built into a private directory with package.json beside them and
 * node_modules linked, so a concurrent `npm run build` (test/build) cannot pull dist/ away, and so a
 * second copy can carry another version. Each test gets its own XDG_RUNTIME_DIR: no test touches a
 * real user daemon or another test's.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const REPO = resolve('.');

/** A private build of the package (dist + package.json, node_modules linked); `version` overrides package.json's. */
export async function installCopy(version?: string): Promise<{ dir: string; cli: string; version: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fb-built-'));
  const { buildNode } = (await import(pathToFileURL(join(REPO, 'build.mjs')).href)) as { buildNode: (outdir: string) => Promise<void> };
  await buildNode(join(dir, 'dist'));
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  if (version) pkg.version = version;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  // The package ships wasm/ beside dist/ (formatbox's own WASI modules are read from there).
  symlinkSync(join(REPO, 'wasm'), join(dir, 'wasm'));
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

/** A loopback TCP port that was free a moment ago (for the http hook's port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
