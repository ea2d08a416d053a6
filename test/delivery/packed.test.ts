// The README's recipes against the packed tarball, not the repository: `npm pack` (prepack builds
// dist/ and wasm/), `npm install <tarball>` into a fresh project (dependencies from the npm cache),
// then each recipe there, with every receipt compared to Node's for the same cases and formatters:
//   Node (universal entry + wasmFiles() from formatbox/node), types under four moduleResolution modes,
//   workerd (examples/worker edge and full, built from the installed package), headless Chromium
//   (an esbuild app and a Vite app under a strict CSP, on a page and in a module Web Worker), and Deno (file: URLs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { copyFileSync, cpSync, existsSync, symlinkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createEngine, prettierFormatter, biomeFormatter, ruffFormatter, ruffFmtFormatter, gofmtFormatter, tomlFormatter } from '../../src/index.js';
import type { FormatterAdapter } from '../../src/core/types.js';
import { unavailableFormatters } from '../../src/formatters/rustfmt/unavailable.js';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { CASES, runCases } from '../runtimes/cases.js';
import { nodeReceipts, resultsIn } from '../runtimes/hosts.js';
import { serveWorker } from './workerd-serve.js';

const root = process.cwd();
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const DENO = join(root, 'node_modules/.bin/deno');
const WORKERD = join(root, 'node_modules/.bin/workerd');
const missing = (path: string, why: string) => (existsSync(path) || process.env['CI'] ? false : why);
const skipChromium = missing(CHROMIUM, `no Chromium at ${CHROMIUM}`);
const skipDeno = missing(DENO, 'deno is not installed (npm ci installs it)');
const skipWorkerd = missing(WORKERD, 'workerd is not installed (npm ci installs it)');
for (const skip of [skipChromium, skipDeno, skipWorkerd]) if (skip) console.log(`# skipping a packed-tarball recipe: ${skip}`);

let work = '';
let project = '';
let inNode: unknown[] = [];

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } });
  const output = `${result.stdout}\n${result.stderr}`;
  assert.equal(result.status, 0, `${command} ${args.join(' ')}\n${output.slice(-3000)}`);
  return output;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'formatbox-packed-'));
  // Packed from a staging copy of the sources (node_modules linked), so this build never races another
  // test file's build of the repository's own dist/. prepack builds dist/ and wasm/ there.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const entry of ['package.json', 'README.md', 'build.mjs', 'tsconfig.json', 'src']) cpSync(join(root, entry), join(stage, entry), { recursive: true });
  mkdirSync(join(stage, 'wasm'));
  // The one module built here (C source, build script, committed module): the build checks and ships it.
  cpSync(join(root, 'wasm/editorconfig'), join(stage, 'wasm/editorconfig'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'));
  run('npm', ['pack', '--pack-destination', work, '--silent'], stage);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'recipe', private: true, type: 'module' }));
  run('npm', ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], project);
  // The shared cases as plain JS next to the recipes (they import only types).
  await build({ entryPoints: [join(root, 'test/runtimes/cases.ts')], outfile: join(project, 'cases.mjs'), bundle: true, format: 'esm', platform: 'neutral', logLevel: 'silent' });
  inNode = await nodeReceipts();
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the package holds every wasm under the names the code expects, and its manifest is importable', () => {
  const pkg = join(project, 'node_modules/formatbox');
  const script = `
    import manifest from 'formatbox/wasm/manifest.json' with { type: 'json' };
    import { BUILTIN_WASM_FILES } from 'formatbox';
    import { existsSync } from 'node:fs';
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    const missing = Object.values(BUILTIN_WASM_FILES).filter((file) => !existsSync(require.resolve('formatbox/wasm/' + file)));
    console.log('RESULTS ' + JSON.stringify({ files: manifest.map((m) => m.file).sort(), missing }));`;
  const output = run(process.execPath, ['--input-type=module', '-e', script], project);
  const { files, missing: absent } = resultsIn<{ files: string[]; missing: string[] }>(output);
  assert.deepEqual(absent, []);
  assert.deepEqual(files, readdirSync(join(pkg, 'wasm')).filter((f) => f.endsWith('.wasm')).sort());
  assert.ok(!existsSync(join(pkg, 'wasm/test')), 'test modules are not shipped');
  assert.ok(!existsSync(join(pkg, 'wasm/editorconfig')), 'editorconfig.wasm ships once, as wasm/editorconfig.wasm');
});

test('Node recipe: the universal entry with wasmFiles() from formatbox/node gives the shared receipts', () => {
  writeFileSync(
    join(project, 'node-recipe.mjs'),
    `import * as formatbox from 'formatbox';
import { wasmFiles } from 'formatbox/node';
import { runCases } from './cases.mjs';
console.log('RESULTS ' + JSON.stringify(await runCases(formatbox, () => formatbox.createFormatters(wasmFiles()))));
`,
  );
  assert.deepEqual(resultsIn(run(process.execPath, ['node-recipe.mjs'], project)), inNode);
});

test('types resolve under node16, nodenext, bundler and node; the universal entries need no @types/node', () => {
  writeFileSync(
    join(project, 'types-check.ts'),
    `import { createEngine, createFormatters, wasmUrls, type Receipt } from 'formatbox';
import { createEngine as coreEngine, checkedWasm } from 'formatbox/core';
import { biomeFormatter } from 'formatbox/biome';
import { prettierFormatter } from 'formatbox/prettier';
import { ruffFmtFormatter } from 'formatbox/ruff';
const engine = createEngine({ formatters: createFormatters(wasmUrls('https://example.com/wasm/')) });
const other = coreEngine({ formatters: [prettierFormatter(), biomeFormatter({ wasm: checkedWasm('biome', new URL('https://example.com/b.wasm')) }), ruffFmtFormatter({ wasm: new Uint8Array() })] });
export const receipt: Promise<Receipt> = engine.afterEdit({ path: 'a.ts', prior: '', input: { content: 'x' } });
export const checked = other.check();
`,
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  for (const [module, resolution] of [['node16', 'node16'], ['nodenext', 'nodenext'], ['esnext', 'bundler'], ['commonjs', 'node']]) {
    // types: [] — no @types/node, as in a browser app.
    const compilerOptions = { noEmit: true, strict: true, skipLibCheck: false, types: [], lib: ['es2022', 'dom'], target: 'es2022', module, moduleResolution: resolution };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['types-check.ts'] }));
    const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    const errors = (result.stdout + result.stderr).split('\n').filter((line) => /error TS/.test(line));
    const unresolved = errors.filter((line) => /TS2307|TS7016|TS2792|Cannot find module|could not be resolved/.test(line));
    assert.deepEqual(unresolved, [], `${resolution}: ${errors.join('\n')}`);
    if (resolution !== 'node') assert.deepEqual(errors, [], `${resolution}: ${errors.join('\n')}`);
  }
});

/**
 * Cases whose Prettier plugin the edge worker build leaves out (examples/worker/build.mjs: formatbox's
 * shipped XML and Svelte plugins): there they are `skipped`, saying so.
 */
const EDGE_LEFT_OUT = /^(xml|svelte):/;

/** The adapters of a worker profile, built in Node from the repository's sources and the packages' wasm. */
function profileAdapters(profile: 'edge' | 'full'): FormatterAdapter[] {
  const wasm = (name: string) => readFileSync(resolvePackageFile(BUILTIN_WASM[name]!));
  const tail = [gofmtFormatter({ wasm: wasm('gofmt') }), tomlFormatter({ wasm: wasm('toml') })];
  if (profile === 'edge') return [prettierFormatter(), ruffFmtFormatter({ wasm: wasm('ruff_fmt') }), ...tail];
  return [prettierFormatter(), biomeFormatter({ wasm: wasm('biome') }), ruffFormatter({ wasm: wasm('ruff'), ruffFmtWasm: wasm('ruff_fmt') }), ...tail];
}

test('workerd: the edge and full workers built from the tarball answer /edit and /format like Node', { skip: skipWorkerd, timeout: 300_000 }, async () => {
  const sources = join(project, 'worker');
  mkdirSync(sources);
  for (const file of ['edge.js', 'edge-biome.js', 'full.js', 'serve.js']) copyFileSync(join(root, 'examples/worker', file), join(sources, file));
  const output = run(process.execPath, [join(root, 'examples/worker/build.mjs'), '--from', sources, '--out', join(sources, 'dist')], project);
  console.log(output.trim().split('\n').filter((line) => !line.startsWith('  ')).map((line) => `# ${line}`).join('\n'));
  for (const profile of ['edge', 'full'] as const) {
    const expected = await runCases({ createEngine }, () => profileAdapters(profile));
    const served = await serveWorker(join(sources, 'dist', profile));
    try {
      const receipts: unknown[] = [];
      for (const c of CASES) {
        const response = await fetch(`${served.origin}/edit`, { method: 'POST', body: JSON.stringify({ path: c.path, prior: c.prior, input: c.input, projectFiles: c.projectFiles, config: c.config ?? {} }) });
        assert.equal(response.status, 200, `${profile} ${c.name}`);
        const { ms: _ms, ...receipt } = (await response.json()) as { ms?: number };
        receipts.push({ name: c.name, receipt });
      }
      if (profile === 'edge') {
        for (const [index, c] of CASES.entries()) {
          if (!EDGE_LEFT_OUT.test(c.name)) continue;
          const receipt = (receipts[index] as { receipt: { status: string; reason?: string } }).receipt;
          assert.deepEqual([receipt.status, /left out of this build of formatbox/.test(receipt.reason ?? '')], ['skipped', true], `edge ${c.name}: ${receipt.reason}`);
        }
        const kept = (list: unknown[]) => list.filter((_, index) => !EDGE_LEFT_OUT.test(CASES[index]!.name));
        assert.deepEqual(kept(receipts), kept(expected), profile);
      } else assert.deepEqual(receipts, expected, profile);
      const formatted = (await (await fetch(`${served.origin}/format`, { method: 'POST', body: JSON.stringify({ path: 'a.py', text: "x = {'a':1}\n" }) })).json()) as { content: string; formatter: { version: string } };
      assert.equal(formatted.content, 'x = {"a": 1}\n');
      assert.equal(formatted.formatter.version, profile === 'edge' ? '0.15.20' : '0.16.9');
      // The edge profile leaves Prettier's optional parsers out, and says so instead of formatting otherwise.
      const flow = (await (await fetch(`${served.origin}/format`, { method: 'POST', body: JSON.stringify({ path: 'a.js', text: 'let a=1\n', projectFiles: { '.prettierrc': '{"parser":"flow"}' }, config: {} }) })).json()) as { status: string; reason?: string; content: string };
      if (profile === 'edge') assert.deepEqual([flow.status, flow.reason], ['skipped', 'prettier parser "flow" is left out of this build of formatbox (its optional parsers are not bundled)']);
      // Prettier's flow plugin compiles wasm from bytes at run time, which workerd forbids: a failed receipt.
      else assert.deepEqual([flow.status, flow.reason], ['failed', 'WebAssembly.Module(): Wasm code generation disallowed by embedder']);
    } finally {
      await served.stop();
    }
  }
});

const CSP_STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'";
const CSP_NO_WASM = "default-src 'self'";

async function serveSite(dir: string): Promise<{ server: Server; origin: string }> {
  const types: Record<string, string> = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html', '.json': 'application/json' };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    // /strict/… is the same site under a CSP without 'wasm-unsafe-eval'.
    const strict = url.pathname.startsWith('/strict/');
    const path = (strict ? url.pathname.slice('/strict'.length) : url.pathname).replace(/\/$/, '/index.html');
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'content-security-policy': strict ? CSP_NO_WASM : CSP_STRICT }).end(readFileSync(file));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return { server, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/** The tarball's .wasm files, copied into `dir`: both browser recipes ship them beside the app. */
function copyShippedWasm(dir: string): void {
  const from = join(project, 'node_modules/formatbox/wasm');
  for (const file of readdirSync(from)) if (file.endsWith('.wasm')) copyFileSync(join(from, file), join(dir, file));
}

/**
 * Serves `site`, starts headless Chromium and hands `use` a page already at `/`, with the page's
 * uncaught errors collected in `errors`; closes the browser and the server afterwards.
 */
async function inChromium(site: string, use: (page: Page, context: { browser: Browser; origin: string; errors: string[] }) => Promise<void>): Promise<void> {
  const { server, origin } = await serveSite(site);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/`);
    await use(page, { browser, origin, errors });
  } finally {
    await browser?.close();
    await new Promise((done) => server.close(done));
  }
}

test('Chromium: an esbuild app (format esm, splitting) under a strict CSP, on a page and in a module Web Worker', { skip: skipChromium, timeout: 300_000 }, async () => {
  const app = join(project, 'app');
  const site = join(app, 'site');
  mkdirSync(join(site, 'wasm'), { recursive: true });
  writeFileSync(
    join(app, 'main.js'),
    `import * as formatbox from 'formatbox';
import { runCases } from '../cases.mjs';
// The recipe: the .wasm files copied from node_modules/formatbox/wasm/ to /wasm/ beside the bundle.
const wasm = () => formatbox.wasmUrls(new URL('./wasm/', import.meta.url));
const run = () => runCases(formatbox, () => formatbox.createFormatters(wasm()));
const check = () => formatbox.createEngine({ formatters: formatbox.createFormatters({ gofmt: wasm().gofmt }) }).check();
if (typeof document !== 'undefined') Object.assign(globalThis, { runFormatboxCases: run, checkFormatbox: check });
else onmessage = async () => { try { postMessage({ ok: true, results: await run() }); } catch (error) { postMessage({ ok: false, error: String(error?.stack ?? error) }); } };
`,
  );
  await build({ entryPoints: [join(app, 'main.js')], outdir: site, bundle: true, format: 'esm', splitting: true, platform: 'browser', absWorkingDir: project, logLevel: 'silent' });
  copyShippedWasm(join(site, 'wasm'));
  writeFileSync(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  await inChromium(site, async (page, { browser, origin, errors }) => {
    await page.waitForFunction(() => typeof (globalThis as { runFormatboxCases?: unknown }).runFormatboxCases === 'function');
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as { runFormatboxCases(): Promise<unknown[]> }).runFormatboxCases()), inNode);
    const reply = await page.evaluate(async () => {
      const worker = new Worker('./main.js', { type: 'module' });
      return await new Promise<{ ok: boolean; results?: unknown[]; error?: string }>((resolve) => {
        worker.onmessage = (event) => resolve(event.data);
        worker.onerror = (event) => resolve({ ok: false, error: event.message });
        worker.postMessage('run');
      });
    });
    assert.ok(reply.ok, reply.error);
    assert.deepEqual(reply.results, inNode);
    assert.deepEqual(errors, []);

    // Without 'wasm-unsafe-eval' the page cannot compile wasm: check() says so, naming the module and the fix.
    const strict = await browser.newPage();
    await strict.goto(`${origin}/strict/`);
    await strict.waitForFunction(() => typeof (globalThis as { checkFormatbox?: unknown }).checkFormatbox === 'function');
    const report = await strict.evaluate(() => (globalThis as unknown as { checkFormatbox(): Promise<{ ok: boolean; problems: Array<{ formatter: string; wasm: string; problem: string }> }> }).checkFormatbox());
    assert.equal(report.ok, false);
    assert.deepEqual(report.problems.map((p) => [p.formatter, p.wasm]), [['gofmt', 'gofmt.wasm']]);
    assert.match(report.problems[0]!.problem, /'wasm-unsafe-eval'/);
  });
});

test('Chromium: a Vite app (vite build, module worker) with the wasm in public/, under a strict CSP', { skip: skipChromium, timeout: 300_000 }, async () => {
  const app = join(project, 'vite-app');
  mkdirSync(join(app, 'public/wasm'), { recursive: true });
  copyShippedWasm(join(app, 'public/wasm'));
  // The recipe: public/wasm/ is served at /wasm/; an absolute URL, since Vite rewrites new URL('./…', import.meta.url) as an asset.
  const recipe = `import * as formatbox from 'formatbox';
import { runCases } from '../cases.mjs';
export const runAll = () => runCases(formatbox, () => formatbox.createFormatters(formatbox.wasmUrls(new URL('/wasm/', location.href))));
`;
  writeFileSync(join(app, 'run.js'), recipe);
  writeFileSync(join(app, 'worker.js'), "import { runAll } from './run.js';\nonmessage = async () => { try { postMessage({ ok: true, results: await runAll() }); } catch (error) { postMessage({ ok: false, error: String(error?.stack ?? error) }); } };\n");
  writeFileSync(
    join(app, 'main.js'),
    `import { runAll } from './run.js';
const inWorker = () => new Promise((resolve) => {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => resolve({ ok: false, error: event.message });
  worker.postMessage('run');
});
Object.assign(globalThis, { runFormatboxCases: runAll, runInWorker: inWorker });
`,
  );
  writeFileSync(join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>');
  writeFileSync(join(app, 'vite.config.mjs'), "export default { logLevel: 'warn', build: { target: 'es2022' }, worker: { format: 'es' } };\n");
  run(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build'], app);
  await inChromium(join(app, 'dist'), async (page, { errors }) => {
    await page.waitForFunction(() => typeof (globalThis as { runInWorker?: unknown }).runInWorker === 'function');
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as { runFormatboxCases(): Promise<unknown[]> }).runFormatboxCases()), inNode);
    const reply = await page.evaluate(() => (globalThis as unknown as { runInWorker(): Promise<{ ok: boolean; results?: unknown[]; error?: string }> }).runInWorker());
    assert.ok(reply.ok, reply.error);
    assert.deepEqual(reply.results, inNode);
    assert.deepEqual(errors, []);
  });
});

test('Deno: the tarball from node_modules, wasm by file: URL (Deno\'s fetch reads them)', { skip: skipDeno, timeout: 300_000 }, async () => {
  writeFileSync(
    join(project, 'deno-recipe.mjs'),
    `import * as formatbox from 'formatbox';
import { runCases } from './cases.mjs';
const wasm = formatbox.wasmUrls(new URL('./node_modules/formatbox/wasm/', import.meta.url));
const all = await runCases(formatbox, () => formatbox.createFormatters(wasm));
// The edge profile's builds (Prettier, ruff_fmt, gofmt, TOML) give the same receipts here as in Node and workerd.
const edge = await runCases(formatbox, () => formatbox.createFormatters({ ruff_fmt: wasm.ruff_fmt, gofmt: wasm.gofmt, toml: wasm.toml }));
console.log('RESULTS ' + JSON.stringify({ all, edge }));
`,
  );
  const output = run(DENO, ['run', '--no-prompt', `--allow-read=${project}`, 'deno-recipe.mjs'], project, { DENO_DIR: join(work, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' });
  const inDeno = resultsIn<{ all: unknown[]; edge: unknown[] }>(output);
  assert.deepEqual(inDeno.all, inNode);
  // createFormatters adds the adapter that says why Rust is not formatted outside Node.
  assert.deepEqual(inDeno.edge, await runCases({ createEngine }, () => [...profileAdapters('edge'), ...unavailableFormatters()]));
});
