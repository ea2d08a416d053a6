// The Node bundles load, from node_modules, only packages the package declares as dependencies:
// whatever is a dev dependency (the MCP SDK; the Svelte, XML, PHP and Java Prettier plugins, which
// are bundled into lazy entries of their own; the small config parsers build.mjs bundles) must be
// in dist/ itself, or an install from the
// tarball breaks. Scans the real build's static imports and `import()`s; then runs the built CLI
// with a node_modules that holds the dependencies only, on a file for each bundled plugin, against
// Prettier with the plugin package itself; and `format` in a Biome project there, where native Biome
// is not installed: fetched from the real registry on first use, and with an unreachable registry a
// run that says why while Biome's wasm build gives the verdicts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import * as prettier from 'prettier';
import { closedPort } from '../closed-port.js';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };

/** `@scope/name` or `name` of a bare specifier. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const dir = mkdtempSync(join(tmpdir(), 'fb-deps-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const { buildNode, shipWasm, WASM_ASSETS } = (await import(join(root, 'build.mjs'))) as { buildNode: (outdir: string) => Promise<void>; shipWasm: (assets: unknown, dir: string) => unknown; WASM_ASSETS: unknown };
await buildNode(join(dir, 'dist'));

test('every package a Node bundle imports is a dependency (dev dependencies are bundled)', () => {
  {
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const undeclared: string[] = [];
    const seen = new Set<string>();
    for (const name of readdirSync(join(dir, 'dist')).filter((n) => n.endsWith('.js'))) {
      const code = readFileSync(join(dir, 'dist', name), 'utf8');
      // Static imports, bare imports, and import() calls (not JSDoc's {import('x').T}).
      const specifiers = [...code.matchAll(/^import\s[^;]*?from\s*["']([^"']+)["']/gm), ...code.matchAll(/^import\s*["']([^"']+)["']/gm), ...code.matchAll(/(?<![{|<\w.])import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
      for (const specifier of specifiers) {
        if (specifier.startsWith('.') || specifier.startsWith('/') || builtins.has(specifier) || builtins.has(specifier.split('/')[0]!)) continue;
        const owner = packageOf(specifier);
        seen.add(owner);
        if (!declared.has(owner)) undeclared.push(`${name}: ${specifier}`);
      }
      // The lazy stubs' require() (build.mjs: `x ??= require('pkg')`); other require( text in bundled code is often inside strings.
      for (const [, specifier] of code.matchAll(/\?\?= (?:__)?require\(\s*["']([@\w][\w@/.-]*)["']\s*\)/g)) {
        if (builtins.has(specifier!)) continue;
        seen.add(packageOf(specifier!));
        if (!declared.has(packageOf(specifier!))) undeclared.push(`${name}: require(${specifier})`);
      }
    }
    assert.deepEqual(undeclared, [], 'imported from node_modules but not a dependency');
    assert.ok(seen.has('prettier') && seen.has('yaml'), `the scan saw the externals (${[...seen].join(', ')})`);
    for (const dev of BUNDLED) assert.equal(declared.has(dev), false, `${dev} is not a dependency`);
  }
});

const BUNDLED = ['@modelcontextprotocol/sdk', 'svelte', 'prettier-plugin-svelte', '@prettier/plugin-xml', '@prettier/plugin-php', 'prettier-plugin-java', 'json5', 'jsonc-parser', 'picomatch', 'smol-toml', 'diff'];

let productionCliPath: string | undefined;
/** The built CLI in a package with a node_modules of its production dependencies only (as an install from the tarball has). */
function productionCli(): string {
  return (productionCliPath ??= productionInstall());
}

function productionInstall(): string {
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8' });
  const paths = listed.stdout.split('\n').filter((p) => p.startsWith(join(root, 'node_modules') + '/'));
  assert.ok(paths.length > 0, listed.stderr);
  for (const path of paths) {
    const target = join(dir, relative(root, path));
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(path, target);
  }
  // The package's wasm/, as the build ships it (a checkout's Node falls back to the wasm packages, which are dev dependencies).
  shipWasm(WASM_ASSETS, join(dir, 'wasm'));
  copyFileSync(join(root, 'wasm', 'manifest.json'), join(dir, 'wasm', 'manifest.json'));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  return join(dir, 'dist', 'cli.js');
}

const PLUGIN_CASES = [
  { plugin: 'prettier-plugin-svelte', path: 'src/Counter.svelte', content: '<script>\nlet   count=0\n</script>\n<button on:click={()=>count++}>{count}</button>\n' },
  { plugin: '@prettier/plugin-xml', path: 'icon.xml', content: '<svg xmlns="http://www.w3.org/2000/svg"><circle   cx="1" cy="1" r="1"/></svg>' },
  { plugin: '@prettier/plugin-php', path: 'index.php', content: '<?php\nfunction f($a,$b){return $a+$b;}\necho f(1,2);\n' },
  { plugin: 'prettier-plugin-java', path: 'src/A.java', content: 'class A{int f(int a){return a+1;}}\n' },
  { plugin: 'prettier-plugin-astro', path: 'src/pages/index.astro', content: '---\nconst  a=1\n---\n<p>{a}</p>\n' },
];

test('the built CLI with only the dependencies installed formats with each shipped plugin as the plugin package does', { timeout: 120_000 }, async () => {
  const cli = productionCli();
  for (const name of BUNDLED) assert.equal(existsSync(join(dir, 'node_modules', name)), false, `${name} is not installed here`);
  const project = mkdtempSync(join(tmpdir(), 'fb-deps-project-'));
  after(() => rmSync(project, { recursive: true, force: true }));
  mkdirSync(join(project, '.git'));
  writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  // YAML, so the lazily required yaml package is loaded too.
  writeFileSync(join(project, '.prettierrc.yaml'), `plugins:\n${PLUGIN_CASES.map((c) => `  - "${c.plugin}"\n`).join('')}`);
  const env = { ...process.env, FORMATBOX_NO_DAEMON: '1', FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(project, '.no-config'), XDG_CACHE_HOME: join(project, '.cache') };
  for (const c of PLUGIN_CASES) {
    const run = spawnSync(process.execPath, [cli, 'apply', '--json'], { cwd: project, env, encoding: 'utf8', input: JSON.stringify({ root: project, path: c.path, input: { content: c.content } }) });
    assert.equal(run.status, 0, `${c.plugin}: ${run.stderr}`);
    const receipt = JSON.parse(run.stdout) as { status: string; content: string; formatter?: { name: string } };
    const plugin = (await import(c.plugin)) as { default?: unknown };
    const expected = await prettier.format(c.content, { filepath: join(project, c.path), plugins: [(plugin.default ?? plugin) as prettier.Plugin] });
    assert.equal(receipt.status, 'formatted', `${c.plugin}: ${run.stdout}`);
    assert.equal(receipt.content, expected, c.plugin);
  }
});

test('the built CLI with only the dependencies: format fetches native Biome on first use, and offline says why while the wasm build checks the files', { timeout: 180_000 }, async (t) => {
  const cli = productionCli();
  assert.equal(existsSync(join(dir, 'node_modules', '@biomejs')), false, 'no native Biome is installed');
  const { detectSandbox } = await import('../../src/node/sandbox/index.js');
  const sandbox = detectSandbox();
  if (sandbox.unavailable) {
    if (process.env.CI) assert.fail(sandbox.unavailable);
    t.skip(`no OS sandbox here (nothing is fetched without one): ${sandbox.unavailable}`);
    return;
  }
  const project = mkdtempSync(join(tmpdir(), 'fb-deps-biome-'));
  after(() => rmSync(project, { recursive: true, force: true }));
  mkdirSync(join(project, '.git'));
  writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(project, 'biome.json'), '{}\n');
  writeFileSync(join(project, 'a.ts'), 'export const a=1\n');
  writeFileSync(join(project, 'b.ts'), 'export const b = 2;\n');
  // Not npm's environment (npm test): the store reads the registry from the user's settings, as a user's run does.
  const userEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  const check = (cache: string, extra: Record<string, string> = {}) => {
    const run = spawnSync(process.execPath, [cli, 'format', '--check', '--json', '--no-cache', '--root', project, project], { cwd: project, encoding: 'utf8', env: { ...userEnv, FORMATBOX_NO_DAEMON: '1', FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(project, '.no-config'), XDG_CACHE_HOME: cache, ...extra } });
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { path?: string; status?: string; formatter?: { via?: string }; summary?: { nativeBiome?: { files: number; notUsed?: string[] } } });
    const verdict = (path: string) => { const l = lines.find((x) => x.path === path); return `${l?.status} ${l?.formatter?.via}`; };
    return { status: run.status, verdict, native: lines.find((l) => l.summary)?.summary?.nativeBiome, stderr: run.stderr };
  };

  // The store outside the project: the walk enters dot-directories, as Biome's does.
  const cache = join(mkdtempSync(join(tmpdir(), 'fb-deps-cache-')), 'cache');
  const first = check(cache);
  assert.equal(first.status, 1, first.stderr);
  if (first.native?.notUsed?.some((r) => /could not be fetched/.test(r)) && !process.env.CI) {
    t.skip(`the npm registry is not reachable here: ${first.native.notUsed.join('; ')}`);
    return;
  }
  assert.equal(first.native?.files, 3, JSON.stringify(first.native)); // a.ts, b.ts, biome.json
  assert.equal(first.native?.notUsed, undefined);
  assert.ok(existsSync(join(cache, 'formatbox', 'formatters', `${nativeBiomeEntry()}`, 'package', 'biome')), 'fetched into the store');
  assert.equal(first.verdict('a.ts'), 'would-change sandbox');
  assert.equal(first.verdict('b.ts'), 'unchanged sandbox');

  // Offline, with nothing stored: the run says why, and Biome's wasm build gives the same verdicts.
  const offline = check(join(dirname(cache), 'cache-offline'), { npm_config_registry: `http://127.0.0.1:${await closedPort()}/` });
  assert.equal(offline.status, 1, offline.stderr);
  assert.match(offline.native?.notUsed?.join('\n') ?? '', /native Biome \d+\.\d+\.\d+ is not installed and could not be fetched \(.*ECONNREFUSED/);
  assert.equal(offline.verdict('a.ts'), 'would-change wasm');
  assert.equal(offline.verdict('b.ts'), 'unchanged wasm');

  // A root config under any name Biome reads (here `.biome.jsonc`) qualifies the project, so it is
  // fetched for too: offline, the run says the fetch failed, not that it has yet to happen.
  rmSync(join(project, 'biome.json'));
  writeFileSync(join(project, '.biome.jsonc'), '{}\n');
  const dotted = check(join(project, '.cache-dotted'), { npm_config_registry: `http://127.0.0.1:${await closedPort()}/` });
  assert.equal(dotted.status, 1, dotted.stderr);
  assert.match(dotted.native?.notUsed?.join('\n') ?? '', /native Biome \d+\.\d+\.\d+ is not installed and could not be fetched \(.*ECONNREFUSED/);
  assert.equal(dotted.verdict('a.ts'), 'would-change wasm');
});

function nativeBiomeEntry(): string {
  return `@biomejs+cli-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}@${JSON.parse(readFileSync(join(root, 'node_modules', '@biomejs', 'wasm-web', 'package.json'), 'utf8')).version}`;
}

