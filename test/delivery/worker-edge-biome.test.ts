// The edge-biome worker profile (examples/worker/edge-biome.js) built as `npm run worker:build` builds
// it, run by real workerd: within the 10 MB gzip limit, its wasm modules the official builds minus
// their custom sections, and a Biome project's file formatted to the bytes of native Biome.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildProfile } from '../../examples/worker/build.mjs';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { serveWorker, WORKERD } from './workerd-serve.js';

const root = process.cwd();
const skip = existsSync(WORKERD) || process.env['CI'] ? false : 'workerd is not installed';
if (skip) console.log(`# skipping the edge-biome worker: ${skip}`);

/**
 * A private copy of the package for the worker build to import as `formatbox` (package.json, the
 * universal entries as `npm run build` bundles them, wasm/ copied from the packages, node_modules
 * linked), so a concurrent `npm run build` (test/build) cannot pull dist/ away. The profile's entry
 * sits inside it and imports `formatbox/*` by the package's own name, as examples/worker/ does.
 */
async function packageCopy(): Promise<{ dir: string; entry: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-edge-biome-pkg-'));
  const { buildUniversalEntries, UNIVERSAL_ENTRIES, WASM_ASSETS } = (await import(pathToFileURL(join(root, 'build.mjs')).href)) as {
    buildUniversalEntries(entries: Record<string, string>, outdir: string): Promise<unknown>;
    UNIVERSAL_ENTRIES: Record<string, string>;
    WASM_ASSETS: Array<{ name: string; file: string }>;
  };
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'wasm'));
  for (const asset of WASM_ASSETS) if (BUILTIN_WASM[asset.name]) copyFileSync(resolvePackageFile(BUILTIN_WASM[asset.name]!), join(dir, 'wasm', asset.file));
  await buildUniversalEntries(UNIVERSAL_ENTRIES, join(dir, 'dist'));
  mkdirSync(join(dir, 'worker'));
  for (const file of ['edge-biome.js', 'serve.js']) copyFileSync(join(root, 'examples/worker', file), join(dir, 'worker', file));
  return { dir, entry: join(dir, 'worker/edge-biome.js') };
}

/** Each section of a wasm module as [id, bytes], in order. */
function sections(bytes: Buffer): Array<[number, Buffer]> {
  const found: Array<[number, Buffer]> = [];
  let offset = 8;
  while (offset < bytes.length) {
    const start = offset;
    const id = bytes[offset++]!;
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[offset++]!;
      size += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) break;
    }
    found.push([id, bytes.subarray(start, offset + size)]);
    offset += size;
  }
  return found;
}

/** What native Biome (the CLI installed beside the wasm build, same version) writes for `text` at `path` under `biomeJson`. */
function nativeBiome(path: string, text: string, biomeJson: string): string {
  const project = mkdtempSync(join(tmpdir(), 'formatbox-edge-biome-native-'));
  try {
    spawnSync('sh', ['-c', 'cat > biome.json'], { cwd: project, input: biomeJson });
    const run = spawnSync(process.execPath, [join(root, 'node_modules/@biomejs/biome/bin/biome'), 'format', `--stdin-file-path=${path}`], { cwd: project, input: text, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

test('workerd: the edge-biome profile fits 10 MB gzip and formats a Biome project as native Biome does', { skip, timeout: 300_000 }, async () => {
  const copy = await packageCopy();
  const out = join(copy.dir, 'built');
  try {
    const sizes = (await buildProfile(copy.entry, out, 'edge-biome')) as { gzip: number; modules: Array<{ name: string }> };
    console.log(`# edge-biome: ${(sizes.gzip / 1e6).toFixed(2)} MB gzip summed over ${sizes.modules.length} modules`);
    assert.ok(sizes.gzip <= 10e6, `edge-biome is ${sizes.gzip} bytes gzip`);

    // Each wasm module is the official file with its custom sections (id 0) left out, nothing else.
    const shipped = { 'biome_wasm_bg.wasm': 'biome', 'ruff_fmt_bg.wasm': 'ruff_fmt', 'gofmt.wasm': 'gofmt', 'dprint-toml.wasm': 'toml' } as const;
    assert.deepEqual(sizes.modules.map((module) => module.name).filter((name) => name.endsWith('.wasm')).sort(), Object.keys(shipped).sort());
    for (const [file, name] of Object.entries(shipped)) {
      const official = readFileSync(resolvePackageFile(BUILTIN_WASM[name]!));
      const built = readFileSync(join(out, file));
      assert.deepEqual(built.subarray(0, 8), official.subarray(0, 8), file);
      assert.deepEqual(sections(built), sections(official).filter(([id]) => id !== 0), file);
    }
    const officialBiome = readFileSync(resolvePackageFile(BUILTIN_WASM['biome']!));
    assert.ok(sections(officialBiome).some(([id, bytes]) => id === 0 && bytes.includes(Buffer.from('name'))), 'Biome\'s official build has a name section to leave out');

    const served = await serveWorker(out);
    try {
      const listed = (await (await fetch(`${served.origin}/`)).json()) as { profile: string; formatters: string[] };
      assert.deepEqual(listed, { profile: 'edge-biome', formatters: ['prettier', 'biome', 'ruff', 'gofmt', 'toml'] });

      // Real code nobody here wrote, in a Biome project.
      const biomeJson = '{ "formatter": { "indentStyle": "space" } }';
      const post = async (body: object) => (await (await fetch(`${served.origin}/format`, { method: 'POST', body: JSON.stringify(body) })).json()) as {
        status: string;
        content: string;
        reason?: string;
        formatter?: { name: string; version: string; via: string };
      };
      for (const [path, source] of [
        ['src/Subject.ts', 'node_modules/rxjs/src/internal/Subject.ts'],
        ['lib/index.js', 'node_modules/esbuild/lib/main.js'],
      ] as const) {
        const text = readFileSync(join(root, source), 'utf8');
        const outcome = await post({ path, text, projectFiles: { 'biome.json': biomeJson }, config: {} });
        assert.equal(outcome.status, 'formatted', `${path}: ${outcome.reason}`);
        assert.deepEqual(outcome.formatter, { name: 'biome', version: JSON.parse(readFileSync(join(root, 'node_modules/@biomejs/biome/package.json'), 'utf8')).version, via: 'wasm' });
        assert.notEqual(outcome.content, text, `${path} is not already Biome-formatted, so the comparison means something`);
        assert.equal(outcome.content, nativeBiome(path, text, biomeJson), path);
      }
      // A syntax error is refused as native Biome refuses it, not formatted around.
      const broken = await post({ path: 'src/a.ts', text: 'const a = ;\nlet   b = 1\n', projectFiles: { 'biome.json': biomeJson }, config: {} });
      assert.notEqual(broken.status, 'formatted', JSON.stringify(broken));

      // Python stays on ruff_fmt, named as such.
      const python = await post({ path: 'a.py', text: "x = {'a':1}\n" });
      assert.deepEqual([python.content, python.formatter?.version], ['x = {"a": 1}\n', '0.15.20']);
    } finally {
      await served.stop();
    }
  } finally {
    rmSync(copy.dir, { recursive: true, force: true });
  }
});
