// The version the project pins, through the runtime: receipts that name both versions when the bytes
// came from another one, `"versions": "pinned"` refusing instead, a config written by a newer Biome
// (its own `biome init`, run here from the registry) called what it is rather than invalid, and doctor's rows.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/node/index.js';
import { writeTree } from '../write-tree.js';
import { fetchOrSkip } from '../pinned-helpers.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';

const repo = new URL('../../', import.meta.url);
const shippedPrettier = JSON.parse(readFileSync(new URL('node_modules/prettier/package.json', repo), 'utf8')).version as string;
const shippedBiome = JSON.parse(readFileSync(new URL('node_modules/@biomejs/wasm-web/package.json', repo), 'utf8')).version as string;

const roots: string[] = [];
const runtimes: Runtime[] = [];
after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-pins-'));
  roots.push(root);
  writeTree(root, { '.git/': '', ...files });
  return root;
}

/** Without a store (`pinned: false`) unless a case gives one: the shipped versions format, and say so. */
function runtime(root: string, options: Partial<RuntimeOptions> = {}): Runtime {
  const rt = createRuntime({ root, pinned: false, ...options });
  runtimes.push(rt);
  return rt;
}

const UNION = 'type A = { a: string } | { b: number } | { c: boolean } | { d: string } | { eeeeeeeeeeeeeeee: 1 };\n';

test('Prettier 3.3.3 pinned in package.json: the receipt names the version that ran and the pinned one', async () => {
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }), '.prettierrc': '{}\n' });
  const receipt = await runtime(root).write({ path: 'a.ts', content: UNION });
  assert.equal(receipt.status, 'formatted');
  assert.equal(receipt.formatter?.version, shippedPrettier);
  assert.equal(receipt.formatter?.pinned, '3.3.3');
  assert.equal(receipt.formatter?.pinnedIn, 'package.json');
  assert.equal(receipt.line, `formatted (prettier ${shippedPrettier}, js; the project pins 3.3.3): a.ts`);
  assert.ok(receipt.note.startsWith(receipt.line));
  const report = await runtime(root).doctor();
  assert.deepEqual(report.versions.find((v) => v.formatter === 'prettier'), {
    formatter: 'prettier', pinned: '3.3.3', pinnedIn: 'package.json', willRun: shippedPrettier, matches: false,
    detail: `files are formatted with ${shippedPrettier}, and each receipt says the project pins 3.3.3`,
    needs: 'prettier 3.3.3: its standalone.mjs and plugins/*.mjs (prettierFormatter({modules}))',
  });
});

test('a .prettierrc alone, or the shipped version pinned: nothing to say', async () => {
  const root = project({ '.prettierrc': '{}\n' });
  const rt = runtime(root);
  const receipt = await rt.write({ path: 'a.ts', content: UNION });
  assert.equal(receipt.line, `formatted (prettier ${shippedPrettier}, js): a.ts`);
  assert.equal(receipt.formatter?.pinned, undefined);
  const row = (await rt.doctor()).versions.find((v) => v.formatter === 'prettier');
  assert.equal(row?.matches, true);
  assert.equal(row?.pinned, '3');
  const exact = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: shippedPrettier } }), '.prettierrc': '{}\n' });
  assert.equal((await runtime(exact).write({ path: 'a.ts', content: UNION })).line, `formatted (prettier ${shippedPrettier}, js): a.ts`);
});

test('"versions": "pinned" refuses to format with another version, and says which', async () => {
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }), '.prettierrc': '{}\n' });
  const rt = runtime(root, { config: { versions: 'pinned' } });
  const receipt = await rt.write({ path: 'a.ts', content: UNION });
  assert.equal(receipt.status, 'refused');
  assert.equal(receipt.content, UNION);
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), UNION);
  assert.equal(receipt.line, `formatter refused (the project pins prettier 3.3.3; prettier ${shippedPrettier} is not that version): a.ts`);
  assert.match((await rt.doctor()).versions[0]!.detail, /refused/);
});

test('a lockfile written after the runtime started is read before the next format', async () => {
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '^3.0.0' } }), '.prettierrc': '{}\n' });
  const rt = runtime(root);
  assert.equal((await rt.write({ path: 'a.ts', content: UNION })).formatter?.pinned, undefined);
  writeFileSync(join(root, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/prettier': { version: '3.6.2' } } }));
  const receipt = await rt.write({ path: 'b.ts', content: UNION });
  assert.equal(receipt.formatter?.pinned, '3.6.2');
  assert.equal(receipt.formatter?.pinnedIn, 'package-lock.json');
});

test('an install that changes the installed version in place (same size), then its removal, is read before the next edit', async () => {
  const installed = (version: string) => JSON.stringify({ name: 'prettier', version });
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '^3.0.0' } }), '.prettierrc': '{}\n', 'node_modules/prettier/package.json': installed('3.3.3'), 'a.ts': 'const a = 1\n' });
  const rt = runtime(root);
  const first = await rt.edit({ path: 'a.ts', oldText: 'const a = 1', newText: 'const a = 2' });
  assert.equal(first.formatter?.pinned, '3.3.3');
  writeFileSync(join(root, 'node_modules/prettier/package.json'), installed('3.6.2'));
  const second = await rt.edit({ path: 'a.ts', oldText: 'const a = 2', newText: 'const a = 3' });
  assert.equal(second.formatter?.pinned, '3.6.2');
  assert.equal(second.formatter?.pinnedIn, 'node_modules/prettier/package.json');
  rmSync(join(root, 'node_modules'), { recursive: true });
  const third = await rt.edit({ path: 'a.ts', oldText: 'const a = 3', newText: 'const a = 4' });
  assert.equal(third.formatter?.pinned, undefined, 'the range ^3.0.0 alone pins no exact version the shipped one misses');
});

test("Biome 2.6.8's own biome init config is not called invalid: the receipt says it needs the pinned version", async (t) => {
  const root = project({ 'package.json': JSON.stringify({ name: 'x', devDependencies: { '@biomejs/biome': '2.6.8' } }) });
  try {
    execFileSync('npx', ['-y', '@biomejs/biome@2.6.8', 'init'], { cwd: root, stdio: 'pipe', timeout: 180_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
  } catch (error) {
    if (process.env.CI) throw error;
    t.skip(`Biome 2.6.8 could not be fetched from the registry here: ${(error as Error).message.split('\n')[0]}`);
    return;
  }
  const config = readFileSync(join(root, 'biome.json'), 'utf8');
  assert.match(config, /"preset"/, 'biome init of 2.6.8 writes linter.rules.preset');
  const rt = runtime(root);
  const receipt = await rt.write({ path: 'src/a.ts', content: 'const  x = 1\n' });
  assert.equal(receipt.status, 'refused');
  assert.doesNotMatch(receipt.line, /invalid/);
  assert.match(receipt.line, new RegExp(`^not formatted \\(the config needs biome 2\\.6\\.8, the version the project pins; biome ${shippedBiome.replace(/\./g, '\\.')} rejects it: biome\\.json:\\d+:\\d+: Found an unknown key \`preset\`\\.\\): src/a\\.ts$`));
  assert.equal(receipt.formatter?.pinned, '2.6.8');
  const row = (await rt.doctor()).versions.find((v) => v.formatter === 'biome');
  assert.deepEqual({ pinned: row?.pinned, pinnedIn: row?.pinnedIn, willRun: row?.willRun, matches: row?.matches }, { pinned: '2.6.8', pinnedIn: 'package.json', willRun: shippedBiome, matches: false });
});

test('a config the shipped Biome rejects while the project pins that same version stays invalid', async () => {
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { '@biomejs/biome': shippedBiome } }), 'biome.json': '{ "linter": { "rules": { "preset": "recommended" } } }\n' });
  const receipt = await runtime(root).write({ path: 'a.ts', content: 'const  x = 1\n' });
  assert.equal(receipt.status, 'failed');
  assert.match(receipt.line, /invalid project config: biome\.json:1:\d+: Found an unknown key `preset`/);
});

test('offline (the registry unreachable): the shipped version formats, and the receipt names both versions and why', async (t) => {
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }), '.prettierrc': '{}\n' });
  const store = createFormatterStore({ dir: join(root, '..', `${root.split('/').pop()}-store`), env: { HOME: '/nonexistent', npm_config_registry: 'http://127.0.0.1:9/' } });
  t.after(() => rmSync(store.dir, { recursive: true, force: true }));
  const pinned = createPinnedFormatters({ store, timeoutMs: 10_000 });
  t.after(() => pinned.close());
  const rt = runtime(root, { pinned });
  const receipt = await rt.write({ path: 'a.ts', content: UNION });
  assert.equal(receipt.status, 'formatted');
  assert.equal(receipt.formatter?.version, shippedPrettier);
  assert.equal(receipt.formatter?.pinned, '3.3.3');
  assert.match(receipt.line, new RegExp(`^formatted \\(prettier ${shippedPrettier.replace(/\./g, '\\.')}, js; the project pins 3\\.3\\.3: .*127\\.0\\.0\\.1:9/prettier: unreachable.*\\): a\\.ts$`));
  const row = (await rt.doctor()).versions.find((v) => v.formatter === 'prettier');
  assert.equal(row?.willRun, shippedPrettier);
  assert.match(row?.detail ?? '', /unreachable/);
  // "versions": "pinned" refuses instead, and says why.
  const strict = runtime(root, { pinned, config: { versions: 'pinned' } });
  const refused = await strict.write({ path: 'b.ts', content: UNION });
  assert.equal(refused.status, 'refused');
  assert.match(refused.line, /not that version: .*unreachable/);
});

test("format's native Biome pass stays out of a project that pins another Biome", async () => {
  const { nativeBiomeCandidates } = await import('../../src/node/project/native-biome-pass.js');
  const files = { 'biome.json': '{}\n', 'package.json': JSON.stringify({ devDependencies: { '@biomejs/biome': '2.5.14' } }) };
  assert.deepEqual(nativeBiomeCandidates(['a.ts'], { projectFiles: files, trust: 'untrusted' }), { reason: `the project pins Biome 2.5.14; the native build is ${shippedBiome}` });
  const lock = { 'package-lock.json': JSON.stringify({ packages: { 'node_modules/@biomejs/biome': { version: '2.6.8' } } }) };
  assert.deepEqual(nativeBiomeCandidates(['a.ts'], { projectFiles: { 'biome.json': '{}\n' }, pinFiles: lock, trust: 'untrusted' }), { reason: `the project pins Biome 2.6.8; the native build is ${shippedBiome}` });
  assert.deepEqual(nativeBiomeCandidates(['a.ts'], { projectFiles: { 'biome.json': '{}\n', 'package.json': JSON.stringify({ devDependencies: { '@biomejs/biome': shippedBiome } }) }, trust: 'untrusted' }), ['a.ts']);
});

test('the universal engine: the host gives the pinned Prettier build through pinnedAdapter, and doctor says which it needs without one', async (t) => {
  const { createEngine } = await import('../../src/engine/engine.js');
  const { prettierFormatter } = await import('../../src/formatters/prettier/adapter.js');
  const { pathToFileURL } = await import('node:url');
  const store = createFormatterStore({ dir: mkdtempSync(join(tmpdir(), 'fb-pins-store-')) });
  t.after(() => rmSync(store.dir, { recursive: true, force: true }));
  const stored = await fetchOrSkip(t, store, 'prettier', '3.3.3');
  if (!stored) return;
  const load = (file: string) => import(pathToFileURL(join(stored.dir, file)).href);
  const pinnedBuild = prettierFormatter({ modules: { standalone: () => load('standalone.mjs'), plugin: (name) => load(`plugins/${name}.mjs`) } });
  const projectFiles = { '.prettierrc': '{}', 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }) };
  const asked: string[] = [];
  const engine = createEngine({
    formatters: [prettierFormatter()],
    projectFiles,
    pinnedAdapter: async (formatter, pin) => {
      asked.push(`${formatter}@${pin.spec}`);
      return { adapter: pinnedBuild, version: pin.spec };
    },
  });
  const outcome = await engine.format({ path: 'a.ts', text: UNION });
  assert.deepEqual(outcome.formatter, { name: 'prettier', version: '3.3.3', via: 'js' });
  assert.equal(outcome.line, 'formatted (prettier 3.3.3, js): a.ts');
  assert.deepEqual(asked, ['prettier@3.3.3']);
  assert.equal((await engine.versions())[0]?.matches, true);
  const without = createEngine({ formatters: [prettierFormatter()], projectFiles });
  const row = (await without.versions())[0];
  assert.equal(row?.matches, false);
  assert.match(row?.needs ?? '', /standalone\.mjs/);
  await Promise.all([engine.dispose(), without.dispose()]);
});

test("trusted mode runs the project's own installed Prettier at the pinned version, with no fetch", async (t) => {
  const { cpSync } = await import('node:fs');
  const source = createFormatterStore({ dir: mkdtempSync(join(tmpdir(), 'fb-pins-own-')) });
  t.after(() => rmSync(source.dir, { recursive: true, force: true }));
  const real = await fetchOrSkip(t, source, 'prettier', '3.3.3');
  if (!real) return;
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }), '.prettierrc': '{}\n' });
  cpSync(real.dir, join(root, 'node_modules', 'prettier'), { recursive: true });
  const offline = createFormatterStore({ dir: join(source.dir, 'empty'), env: { HOME: '/nonexistent', npm_config_registry: 'http://127.0.0.1:9/' } });
  const pinned = createPinnedFormatters({ store: offline, timeoutMs: 10_000 });
  t.after(() => pinned.close());
  const trusted = await runtime(root, { pinned, trust: 'trusted' }).write({ path: 'a.ts', content: UNION });
  assert.equal(trusted.line, 'formatted (prettier 3.3.3, js): a.ts');
  assert.equal(trusted.formatter?.pinned, undefined);
  // Untrusted, the same installed copy never runs: the offline store has nothing, and the receipt says so.
  const untrusted = await runtime(root, { pinned }).write({ path: 'b.ts', content: UNION });
  assert.equal(untrusted.formatter?.version, shippedPrettier);
  assert.match(untrusted.line, /the project pins 3\.3\.3: .*unreachable/);
});

test('the first use of a version starts its fetch in the background: an edit does not wait for a registry that does not answer', async (t) => {
  const { createServer } = await import('node:http');
  const hanging: Array<import('node:http').ServerResponse> = [];
  const server = createServer((_request, response) => void hanging.push(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const response of hanging) response.destroy();
    server.close();
  });
  const port = (server.address() as { port: number }).port;
  const root = project({ 'package.json': JSON.stringify({ devDependencies: { prettier: '3.3.3' } }), '.prettierrc': '{}\n' });
  const store = createFormatterStore({ dir: join(root, '..', `${root.split('/').pop()}-slow-store`), env: { HOME: '/nonexistent', npm_config_registry: `http://127.0.0.1:${port}/` } });
  t.after(() => rmSync(store.dir, { recursive: true, force: true }));
  const pinned = createPinnedFormatters({ store, timeoutMs: 10_000, waitMs: 200 });
  t.after(() => pinned.close());
  const receipt = await runtime(root, { pinned }).write({ path: 'a.ts', content: UNION });
  assert.equal(receipt.status, 'formatted');
  assert.equal(receipt.formatter?.version, shippedPrettier);
  assert.equal(receipt.line, `formatted (prettier ${shippedPrettier}, js; the project pins 3.3.3: prettier 3.3.3 is being fetched): a.ts`);
  assert.ok(hanging.length >= 1, 'the fetch was started');
  assert.equal(store.state('prettier', '3.3.3').state, 'fetching');
});

test('a native Biome binary that is not the version it should be is refused (asked in the real sandbox)', async (t) => {
  const { detectSandbox } = await import('../../src/node/sandbox/index.js');
  const { checkNativeBiome } = await import('../../src/node/pinned-biome-native.js');
  const sandbox = detectSandbox();
  if (sandbox.unavailable) {
    if (process.env.CI) assert.fail(sandbox.unavailable);
    t.skip(`no OS sandbox here: ${sandbox.unavailable}`);
    return;
  }
  // The shipped native Biome standing in for a 2.6.8 download: it says its own version.
  const { findNativeBiome } = await import('../../src/node/biome-native.js');
  const shippedNative = findNativeBiome();
  if ('unavailable' in shippedNative) {
    if (process.env.CI) assert.fail(shippedNative.unavailable);
    t.skip(shippedNative.unavailable);
    return;
  }
  assert.equal(await checkNativeBiome(sandbox, { binary: shippedNative.binary, packageDir: shippedNative.packageDir, version: shippedNative.version }), undefined);
  assert.match((await checkNativeBiome(sandbox, { binary: shippedNative.binary, packageDir: shippedNative.packageDir, version: '2.6.8' })) ?? '', new RegExp(`says "Version: ${shippedNative.version.replace(/\./g, '\\.')}", not Version: 2\\.6\\.8: refused`));
});
