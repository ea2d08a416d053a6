// The Node bundles load, from node_modules, only packages the package declares as dependencies:
// whatever is a dev dependency (the MCP SDK; the Svelte, XML, PHP and Java Prettier plugins, which
// are bundled into lazy entries of their own; the small config parsers build.mjs bundles) must be
// in dist/ itself, or an install from the
// tarball breaks. Scans the real build's static imports and `import()`s; then runs the built CLI
// with a node_modules that holds the dependencies only, on a file for each bundled plugin, against
// Prettier with the plugin package itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import * as prettier from 'prettier';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };

/** `@scope/name` or `name` of a bare specifier. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const dir = mkdtempSync(join(tmpdir(), 'fb-deps-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const { buildNode } = (await import(join(root, 'build.mjs'))) as { buildNode: (outdir: string) => Promise<void> };
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

/** The built package with a node_modules of its production dependencies only (as an install from the tarball has). */
function productionInstall(): string {
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8' });
  const paths = listed.stdout.split('\n').filter((p) => p.startsWith(join(root, 'node_modules') + '/'));
  assert.ok(paths.length > 0, listed.stderr);
  for (const path of paths) {
    const target = join(dir, relative(root, path));
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(path, target);
  }
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
  const cli = productionInstall();
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
