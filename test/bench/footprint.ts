/**
 * What installing formatbox costs, against the three tools it stands in for (`prettier`,
 * `@biomejs/biome`, `@astral-sh/ruff-wasm-web`, at formatbox's pinned versions): the packed size, the
 * installed bytes of node_modules, the package count and the `npm install` time (from the local npm
 * cache, `--prefer-offline`; the median of three, alternating), each into a fresh temp project; formatbox's tarball is the one
 * `npm pack` makes here. Then native Biome, which is not in the install: what the first `formatbox
 * format` in a Biome project costs to fetch it into the formatter store (time and bytes), and what a
 * run says when it cannot be fetched (an unreachable registry). Then start-up: `formatbox mcp`
 * answering `initialize`, against a minimal MCP server on the SDK (the repository's dev dependency;
 * formatbox no longer depends on it) and `node -e 0`.
 *
 *   node --import tsx test/bench/footprint.ts [--runs N]
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, lstatSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { recordResult } from './report.js';
import { closedPort } from '../closed-port.js';
import type { AddressInfo } from 'node:net';

const REPO = resolve('.');
/** The three tools at the versions formatbox ships (the installed packages' own versions). */
const PKG = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> } & Record<string, unknown>;
const versionOf = (name: string): string => (JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const TOOLS = [`prettier@${versionOf('prettier')}`, `@biomejs/biome@${versionOf('@biomejs/wasm-web')}`, `@astral-sh/ruff-wasm-web@${versionOf('@astral-sh/ruff-wasm-web')}`];
const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] || 5) || 5;
const INSTALL_RUNS = 3;
const base = mkdtempSync(join(tmpdir(), 'fb-bench-footprint-'));

interface Install {
  bytes: number;
  packages: number;
  seconds: number;
  dir: string;
}

try {
  console.log(`footprint bench: load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const packed = npmJson(['pack', '--json', '--pack-destination', base], REPO)[0] as { filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> };
  const tarball = join(base, packed.filename);
  const maps = packed.files.filter((f) => f.path.endsWith('.map')).length;
  const anchorPacked = (npmJson(['pack', '--dry-run', '--json', ...TOOLS], base) as Array<{ size: number }>).reduce((n, p) => n + p.size, 0);
  console.log(`packed: formatbox ${mb(packed.size)} (${mb(packed.unpackedSize)} unpacked, ${maps} source maps); the three tools ${mb(anchorPacked)}`);

  // Installs alternate (ours, theirs, ours, …) and the median counts: the machine is shared, and one
  // install is a few seconds of a load that swings.
  // formatbox's dependencies alone, by name from the cache as the tools come: what the package count
  // costs, apart from npm reading and unpacking a local tarball (a registry install reads a cached one).
  const dependencies = Object.keys(PKG.dependencies).map((name) => `${name}@${versionOf(name)}`);
  const oursRuns: Install[] = [];
  const ours0 = (): Install => oursRuns[0]!;
  const theirsRuns: Install[] = [];
  const depsRuns: Install[] = [];
  for (let i = 0; i < INSTALL_RUNS; i++) {
    oursRuns.push(install(`formatbox-${i}`, [tarball]));
    theirsRuns.push(install(`tools-${i}`, TOOLS));
    depsRuns.push(install(`dependencies-${i}`, dependencies));
  }
  // As a user installs from a registry: formatbox's tarball served by a loopback registry (everything
  // else proxied to the user's registry, tarballs then read from the npm cache), the tools through it too.
  const viaRegistry = await withLoopbackRegistry(tarball, async (registry) => {
    const oursSeconds: number[] = [];
    const theirsSeconds: number[] = [];
    for (let i = 0; i < INSTALL_RUNS + 1; i++) {
      // The first round fills the npm cache with the loopback registry's packuments (a user's earlier install).
      const o = await installAsync(`registry-formatbox-${i}`, [`formatbox@${PKG.version}`], registry);
      const t = await installAsync(`registry-tools-${i}`, TOOLS, registry);
      if (i > 0) {
        oursSeconds.push(o.seconds);
        theirsSeconds.push(t.seconds);
      } else if (o.packages !== ours0().packages) {
        throw new Error(`the loopback registry's install has ${o.packages} packages, the tarball's ${ours0().packages}`);
      }
    }
    return { ours: oursSeconds, theirs: theirsSeconds };
  });
  const ours = { ...oursRuns[0]!, seconds: median(oursRuns.map((r) => r.seconds)) };
  const theirs = { ...theirsRuns[0]!, seconds: median(theirsRuns.map((r) => r.seconds)) };
  const deps = { ...depsRuns[0]!, seconds: median(depsRuns.map((r) => r.seconds)) };
  for (const [name, i] of [['formatbox', ours], ['the three tools', theirs], ['formatbox\'s dependencies alone', deps]] as const) {
    console.log(`${name.padEnd(28)} ${mb(i.bytes).padStart(10)}  ${String(i.packages).padStart(4)} packages  npm install ${i.seconds.toFixed(1)} s (median of ${INSTALL_RUNS})`);
  }
  const against = TOOLS.join(' + ');
  recordResult({ group: 'footprint', name: 'packed tarball', value: packed.size / 2 ** 20, unit: 'MB', anchor: `${against} (packed)`, anchorValue: anchorPacked / 2 ** 20, note: `${mb(packed.unpackedSize)} unpacked; ${maps} source maps` });
  recordResult({ group: 'footprint', name: 'installed node_modules, from the packed tarball into a fresh project', value: ours.bytes / 2 ** 20, unit: 'MB', anchor: against, anchorValue: theirs.bytes / 2 ** 20, goal: '≤ 1.5', note: `${ours.packages} packages vs ${theirs.packages}` });
  recordResult({ group: 'footprint', name: 'npm install time, the tarball from a local file (dependencies from the local npm cache)', value: ours.seconds, unit: 's', anchor: against, anchorValue: theirs.seconds, goal: '≤ 1.5', note: `median of ${INSTALL_RUNS}, alternating; formatbox ${oursRuns.map((r) => r.seconds.toFixed(1)).join('/')} s, the tools ${theirsRuns.map((r) => r.seconds.toFixed(1)).join('/')} s; load ${loadavg()[0]!.toFixed(1)}` });
  recordResult({ group: 'footprint', name: 'npm install time, both from a registry (loopback; tarballs from the npm cache)', value: median(viaRegistry.ours), unit: 's', anchor: against, anchorValue: median(viaRegistry.theirs), goal: '≤ 1.5', note: `median of ${INSTALL_RUNS} after one that fills the cache, alternating; formatbox ${viaRegistry.ours.map((v) => v.toFixed(1)).join('/')} s, the tools ${viaRegistry.theirs.map((v) => v.toFixed(1)).join('/')} s; load ${loadavg()[0]!.toFixed(1)}` });
  console.log(`from a loopback registry: formatbox ${median(viaRegistry.ours).toFixed(1)} s, the three tools ${median(viaRegistry.theirs).toFixed(1)} s`);
  recordResult({ group: 'footprint', name: 'npm install time of formatbox\'s dependencies alone (by name, from the local npm cache)', value: deps.seconds, unit: 's', anchor: against, anchorValue: theirs.seconds, note: `${deps.packages} packages: ${dependencies.join(' ')}; median of ${INSTALL_RUNS}, ${depsRuns.map((r) => r.seconds.toFixed(1)).join('/')} s; the rest of formatbox's time is npm reading and unpacking its local tarball` });

  // Native Biome on first use: fetched into a fresh formatter store by the first `format` in a Biome project.
  const project = join(base, 'biome-project');
  mkdirSync(project);
  spawnSync('git', ['init', '-q', project]);
  writeFileSync(join(project, 'biome.json'), '{}\n');
  writeFileSync(join(project, 'a.ts'), 'export const a=1\n');
  const formatbox = join(ours.dir, 'node_modules/.bin/formatbox');
  // Not under npm's environment (npm run bench): the store reads the registry from the user's settings, as a user's run would.
  const userEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  const formatCheck = (cache: string, extraEnv: Record<string, string> = {}) => {
    const started = performance.now();
    const run = spawnSync(formatbox, ['format', '--check', '--json', '--no-cache', '--root', project, project], { encoding: 'utf8', env: { ...userEnv, XDG_CACHE_HOME: cache, ...extraEnv } });
    const summary = run.stdout.trim().split('\n').map((l) => { try { return JSON.parse(l) as { summary?: { nativeBiome?: { files?: number; notUsed?: string[] } } }; } catch { return {}; } }).find((l) => l.summary);
    return { ms: performance.now() - started, native: summary?.summary?.nativeBiome, stderr: run.stderr };
  };
  const cache = join(base, 'cache');
  const first = formatCheck(cache);
  const second = formatCheck(cache);
  const storeDir = join(cache, 'formatbox', 'formatters');
  const stored = readdirSync(storeDir).filter((n) => n.startsWith('@biomejs+cli-'));
  const storedBytes = stored.reduce((n, name) => n + measureTree(join(storeDir, name)).bytes, 0);
  console.log(`native Biome on first use: fetched ${stored.join(', ') || 'nothing'} (${mb(storedBytes)}); first format --check ${first.ms.toFixed(0)} ms (native: ${JSON.stringify(first.native)}), second ${second.ms.toFixed(0)} ms (native: ${JSON.stringify(second.native)})`);
  recordResult({ group: 'footprint', name: 'native Biome, fetched into the formatter store by the first format in a Biome project: first run', value: first.ms / 1000, unit: 's', anchor: 'the next run (stored)', anchorValue: second.ms / 1000, note: `${mb(storedBytes)} stored (${stored.join(', ') || 'nothing'}); one small file; native used: ${first.native?.files ?? 0} then ${second.native?.files ?? 0} files` });
  const offline = formatCheck(join(base, 'cache-offline'), { npm_config_registry: `http://127.0.0.1:${await closedPort()}/` });
  console.log(`unreachable registry: format --check says: ${offline.native?.notUsed?.join('; ') ?? offline.stderr.split('\n').find((l) => l.includes('native Biome')) ?? '(nothing about native Biome)'}`);

  // Start-up: `initialize` answered, median of RUNS.
  const minimal = join(ours.dir, 'minimal-mcp.mjs');
  const sdk = join(REPO, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
  writeFileSync(minimal, `import { McpServer } from ${JSON.stringify(join(sdk, 'server/mcp.js'))};\nimport { StdioServerTransport } from ${JSON.stringify(join(sdk, 'server/stdio.js'))};\nconst server = new McpServer({ name: 'minimal', version: '1.0.0' });\nawait server.connect(new StdioServerTransport());\n`);
  const nodeStart = median(Array.from({ length: RUNS }, () => timed(() => spawnSync(process.execPath, ['-e', '0']))));
  const minimalMs = median(await sequential(RUNS, () => initializeMs([process.execPath, minimal], ours.dir)));
  const mcpMs = median(await sequential(RUNS, () => initializeMs([process.execPath, join(ours.dir, 'node_modules/formatbox/dist/cli.js'), 'mcp', '--root', project], ours.dir)));
  console.log(`mcp initialize: formatbox ${mcpMs.toFixed(0)} ms, minimal SDK server ${minimalMs.toFixed(0)} ms, node -e 0 ${nodeStart.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(1)})`);
  recordResult({ group: 'footprint', name: 'formatbox mcp: initialize answered', value: mcpMs, unit: 'ms', anchor: 'a minimal server on the MCP SDK', anchorValue: minimalMs, goal: '≤ 1.15', note: `node -e 0: ${nodeStart.toFixed(0)} ms; installed from the tarball; formatbox's own MCP server (no SDK); load ${loadavg()[0]!.toFixed(1)}` });
} finally {
  rmSync(base, { recursive: true, force: true });
}

/** A fresh project with `specs` installed from the local npm cache. */
function install(name: string, specs: string[], extra: string[] = []): Install {
  const dir = join(base, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `bench-${name}`, version: '1.0.0', private: true, type: 'module' }));
  const seconds = timed(() => npm(['install', '--no-audit', '--no-fund', '--prefer-offline', ...extra, ...specs], dir)) / 1000;
  const { bytes, packages } = measureTree(join(dir, 'node_modules'));
  return { bytes, packages, seconds, dir };
}

/** `install`, with npm run asynchronously (the loopback registry answers in this process) against `registry`. */
async function installAsync(name: string, specs: string[], registry: string): Promise<Install> {
  const dir = join(base, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `bench-${name}`, version: '1.0.0', private: true, type: 'module' }));
  const started = performance.now();
  await new Promise<void>((done, fail) => {
    const child = spawn('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--registry', registry, ...specs], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => (code === 0 ? done() : fail(new Error(`npm install ${specs.join(' ')} via ${registry}: ${stderr.slice(-600)}`))));
  });
  const seconds = (performance.now() - started) / 1000;
  return { ...measureTree(join(dir, 'node_modules')), seconds, dir };
}

/**
 * A registry on loopback that publishes formatbox's tarball as `formatbox@<version>` and proxies every
 * other request to the user's registry (whose tarball URLs the npm cache then answers by integrity).
 */
async function withLoopbackRegistry<T>(tarball: string, body: (registry: string) => Promise<T>): Promise<T> {
  const upstream = npm(['config', 'get', 'registry'], base).trim().replace(/\/?$/, '/');
  const bytes = readFileSync(tarball);
  const dist = { integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`, shasum: createHash('sha1').update(bytes).digest('hex') };
  const tarballPath = `/formatbox/-/formatbox-${PKG.version}.tgz`;
  const server = createHttpServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const origin = `http://${request.headers.host}`;
    if (url.pathname === '/formatbox') {
      const packument = { name: 'formatbox', 'dist-tags': { latest: PKG.version }, versions: { [PKG.version]: { ...PKG, _id: `formatbox@${PKG.version}`, dist: { ...dist, tarball: origin + tarballPath } } } };
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(packument));
      return;
    }
    if (url.pathname === tarballPath) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes);
      return;
    }
    fetch(upstream + url.pathname.slice(1) + url.search, { headers: { accept: request.headers.accept ?? 'application/json' } })
      .then(async (answer) => {
        const content = Buffer.from(await answer.arrayBuffer());
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': content.length, 'cache-control': 'max-age=300' }).end(content);
      })
      .catch((error: unknown) => response.writeHead(502).end(String(error)));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.close();
  }
}

/** Bytes of every regular file (du's apparent size) and the number of package directories. */
function measureTree(dir: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  const walk = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.bin' && lstatSync(join(full)).isDirectory() && isPackage(full)) packages++;
        walk(full);
      } else if (entry.isFile()) bytes += statSync(full).size;
    }
  };
  walk(dir);
  return { bytes, packages };
}

/** A directory right below a `node_modules` (or a scope in one) with a package.json. */
function isPackage(dir: string): boolean {
  const parts = dir.split('/');
  const parent = parts.at(-2) ?? '';
  const grand = parts.at(-3) ?? '';
  const placed = parent === 'node_modules' || (parent.startsWith('@') && grand === 'node_modules');
  try {
    return placed && statSync(join(dir, 'package.json')).isFile();
  } catch {
    return false;
  }
}

function npm(argv: string[], cwd: string): string {
  const result = spawnSync('npm', argv, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`npm ${argv.join(' ')} failed: ${result.stderr.slice(-600)}`);
  return result.stdout;
}

/** npm's JSON output (a build's own lines before it are skipped). */
function npmJson(argv: string[], cwd: string): unknown[] {
  const out = npm(argv, cwd);
  return JSON.parse(out.slice(out.indexOf('\n[') >= 0 ? out.indexOf('\n[') + 1 : out.indexOf('['))) as unknown[];
}

/** Milliseconds from spawning `argv` to its reply to an MCP `initialize` request on stdin. */
function initializeMs(argv: string[], cwd: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')}: no initialize reply in 30 s`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('"id":1')) {
        const ms = performance.now() - started;
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolvePromise(ms);
      }
    });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }) + '\n');
  });
}


async function sequential(n: number, body: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await body());
  return out;
}

function timed(body: () => unknown): number {
  const started = performance.now();
  body();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function mb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}
