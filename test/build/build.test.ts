import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { BUILTIN_WASM_FILES } from '../../src/formatters/builtins.js';
import { builtinWasmPath } from '../../src/node/builtins.js';

const root = new URL('../../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; exports: Record<string, unknown>; files: string[] };

test('the universal bundle rejects a node: import anywhere in its graph', async () => {
  const { buildUniversal } = await import(join(root, 'build.mjs'));
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-build-'));
  try {
    writeFileSync(join(dir, 'dep.ts'), "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n");
    writeFileSync(join(dir, 'bare.ts'), "import { join } from 'path';\nexport const j = join;\n");
    writeFileSync(join(dir, 'entry.ts'), "export { read } from './dep.js';\n");
    await assert.rejects(buildUniversal(join(dir, 'entry.ts'), join(dir, 'out.js'), 'silent'), /must not import "node:fs"/);
    await assert.rejects(buildUniversal(join(dir, 'bare.ts'), join(dir, 'out2.js'), 'silent'), /must not import "path"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm run build produces every entry, declarations and a wasm manifest matching the installed modules', { timeout: 300_000 }, async () => {
  const result = spawnSync(process.execPath, ['build.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr + result.stdout);
  for (const file of ['dist/index.js', 'dist/node.js', 'dist/cli.js', 'dist/format-worker.js', 'dist/formatbox.sb', 'dist/types/index.d.ts', 'dist/types/node/index.d.ts']) {
    assert.ok(existsSync(join(root, file)), `${file} is built`);
  }
  assert.doesNotMatch(readFileSync(join(root, 'dist/index.js'), 'utf8'), /from ["']node:/);
  const manifest = JSON.parse(readFileSync(join(root, 'wasm/manifest.json'), 'utf8')) as Array<{ name: string; package: string; file: string; source: string; version: string; sha256: string }>;
  assert.deepEqual(manifest.map((m) => m.name).sort(), ['biome', 'clang-format', 'dprint-dockerfile', 'dprint-json', 'dprint-markdown', 'editorconfig', 'gofmt', 'ruff', 'ruff_fmt', 'sh-syntax', 'sql_fmt', 'stylua', 'toml']);
  for (const entry of manifest) {
    const pkgJson = require.resolve(`${entry.package}/package.json`);
    const bytes = readFileSync(join(pkgJson, '..', entry.source));
    assert.equal(createHash('sha256').update(bytes).digest('hex'), entry.sha256, `${entry.name} hash`);
    // Modules built here (package 'formatbox') carry their own version (the EditorConfig normaliser's).
    if (entry.package !== 'formatbox') {
      assert.equal(JSON.parse(readFileSync(pkgJson, 'utf8')).version, entry.version, `${entry.name} version`);
      // Pinned exactly: a newer wasm never meets older glue. A build-time dependency only: its glue is
      // bundled and its wasm shipped once, in wasm/ (an install holds no second copy).
      assert.equal(pkg.devDependencies[entry.package], entry.version, `${entry.package} pinned`);
      assert.equal(pkg.dependencies[entry.package], undefined, `${entry.package} is not installed with formatbox`);
    }
    // Shipped in the package under the name the code expects, byte-identical to the package's file.
    assert.equal(createHash('sha256').update(readFileSync(join(root, 'wasm', entry.file))).digest('hex'), entry.sha256, `wasm/${entry.file}`);
    assert.equal(BUILTIN_WASM_FILES[entry.name as keyof typeof BUILTIN_WASM_FILES], entry.file, `${entry.name} file name`);
    // Node reads that copy too, not the wasm package's.
    assert.equal(builtinWasmPath(entry.name), join(root, 'wasm', entry.file), `${entry.name}: Node reads formatbox's copy`);
  }
  assert.ok(pkg.files.includes('!dist/**/*.map'), 'no source maps in the package');
  for (const subpath of ['./wasm/*', './wasm/manifest.json', './core', './biome', './prettier', './ruff', './gofmt', './toml', './node']) assert.ok(pkg.exports[subpath], `exports ${subpath}`);
  for (const entry of ['core', 'biome', 'prettier', 'ruff', 'gofmt', 'clang-format', 'toml', 'dprint', 'shfmt', 'stylua', 'sql', 'editorconfig', 'wasi']) assert.ok(existsSync(join(root, `dist/${entry}.js`)), `dist/${entry}.js`);
  // The sizes are printed per entry and per profile.
  assert.match(result.stdout, /formatbox\/biome all +[\d.]+ MB raw +[\d.]+ MB gzip +[\d.]+ MB brotli/);
  assert.match(result.stdout, /edge \(Prettier, ruff_fmt, gofmt, TOML\) +[\d.]+ MB raw/);
});

test('the built universal bundle formats with wasm passed in as bytes', { timeout: 120_000 }, async () => {
  const bundle = join(root, 'dist/index.js');
  assert.ok(existsSync(bundle), 'run after the build test');
  const script = `
    import { readFileSync } from 'node:fs';
    const fb = await import(${JSON.stringify(bundle)});
    const biomeWasm = readFileSync(${JSON.stringify(join(require.resolve('@biomejs/wasm-web/package.json'), '..', 'biome_wasm_bg.wasm'))});
    const engine = fb.createEngine({ formatters: [fb.prettierFormatter(), fb.biomeFormatter({ wasm: biomeWasm })],
      projectFiles: { 'biome.json': '{}', '.prettierrc': '{"semi":false}' } });
    const ts = await engine.format({ path: 'a.ts', text: 'const a={b:1}' });
    const md = await engine.format({ path: 'a.md', text: '# T\\n*  x' });
    console.log(JSON.stringify([ts.status, ts.formatter.name, ts.content, md.formatter.name, md.content]));
    process.exit(0);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout.trim()), ['formatted', 'biome', 'const a = { b: 1 };\n', 'prettier', '# T\n\n- x\n']);
});

test('pay for what you use: a Biome-only app ships no Prettier code, and Prettier\'s plugins are lazy chunks', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(join(root, 'dist/core.js')), 'run after the build test');
  const { build } = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-app-'));
  try {
    // Bundled as an app would (format esm, code splitting), importing the built package by name.
    const bundle = async (contents: string) => {
      const result = await build({ stdin: { contents, resolveDir: root, loader: 'js' }, bundle: true, format: 'esm', splitting: true, outdir: join(dir, String(Math.random()).slice(2)), platform: 'browser', write: false, metafile: true, logLevel: 'silent' });
      return result.outputFiles.map((file) => ({ path: file.path, text: file.text }));
    };
    const PRETTIER_CORE = "Couldn't resolve parser";
    const biomeOnly = await bundle("import { createEngine } from 'formatbox/core'; import { biomeFormatter } from 'formatbox/biome'; export const e = createEngine({ formatters: [biomeFormatter({ wasm: new URL('https://x/b.wasm') })] });");
    assert.ok(biomeOnly.every((file) => !file.text.includes(PRETTIER_CORE) && !file.text.includes('prettier/plugins')), 'no Prettier in a Biome-only app');
    const prettierApp = await bundle("import { createEngine } from 'formatbox/core'; import { prettierFormatter } from 'formatbox/prettier'; export const e = createEngine({ formatters: [prettierFormatter()] });");
    const [entry, ...chunks] = prettierApp;
    assert.ok(!entry!.text.includes(PRETTIER_CORE), 'Prettier is not in the entry chunk');
    assert.ok(chunks.some((file) => file.text.includes(PRETTIER_CORE)), 'Prettier is a lazy chunk');
    assert.ok(chunks.length >= 8, `one chunk per plugin (got ${chunks.length})`);
    // formatbox's shipped Prettier plugins (XML, Svelte) load only when a project's config lists them.
    const XML_PLUGIN = 'xmlWhitespaceSensitivity';
    assert.ok(!entry!.text.includes(XML_PLUGIN), 'the XML plugin is not in the entry chunk');
    assert.ok(chunks.some((file) => file.text.includes(XML_PLUGIN)), 'the XML plugin is a lazy chunk');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
