// A formatter is one folder: adding one (Tiny, whose wasm is built here from tiny.wat with wabt's
// wat2wasm) in its own folder, plus its line in src/formatters/registry.ts, in a copy of the source,
// makes it selected for its extension, formatted (universal engine, Node built-ins, the Node runtime
// on a real directory), shipped (the build's wasm and entry lists, its entry bundled, its wasm copied)
// and exported (package.json, written by the build's derivation): no other file is edited by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/tiny', import.meta.url));
const COPIED = ['src', 'build.mjs', 'package.json', 'tsconfig.json', 'wasm/editorconfig'];
const hasWat2wasm = spawnSync('wat2wasm', ['--version']).status === 0;

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, base) : [relative(base, full)];
  });
}

test('a formatter added as one folder and one registry line is selected, formatted, built, shipped and exported', { skip: !hasWat2wasm && !process.env.CI ? 'wat2wasm (Debian: wabt) is not installed; CI installs it' : false }, () => {
  const work = mkdtempSync(join(tmpdir(), 'formatbox-add-formatter-'));
  try {
    const copy = join(work, 'copy');
    for (const entry of COPIED) cpSync(join(REPO, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const before = new Map(filesUnder(copy).filter((f) => !f.startsWith('node_modules')).map((f) => [f, readFileSync(join(copy, f), 'utf8')]));

    // The new formatter: its folder, and its line in the registry (an import and its place in the list).
    const folder = join(copy, 'src/formatters/tiny');
    mkdirSync(folder);
    for (const name of ['index.ts', 'builtin.ts', 'adapter.ts', 'entry.ts', 'tiny.wat']) cpSync(join(FIXTURE, name), join(folder, name));
    const wat = spawnSync('wat2wasm', [join(folder, 'tiny.wat'), '-o', join(folder, 'tiny.wasm')], { encoding: 'utf8' });
    assert.equal(wat.status, 0, wat.stderr);
    const registryPath = join(copy, 'src/formatters/registry.ts');
    const registry = readFileSync(registryPath, 'utf8');
    const added = registry.replace("import { editorconfig } from './editorconfig/index.js';", "import { editorconfig } from './editorconfig/index.js';\nimport { tiny } from './tiny/index.js';").replace('sql, editorconfig] as const;', 'sql, editorconfig, tiny] as const;');
    assert.notEqual(added, registry);
    writeFileSync(registryPath, added);

    // What the registry implies is stale until the build's derivation writes it (package.json, builtin-adapters.ts).
    const stale = spawnSync(process.execPath, ['build.mjs', '--check-exports'], { cwd: copy, encoding: 'utf8' });
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /package\.json exports, package\.json typesVersions, src\/formatters\/builtin-adapters\.ts: not what src\/formatters\/registry\.ts implies; run `node build\.mjs --write-exports`/);
    const derive = spawnSync(process.execPath, ['build.mjs', '--write-exports', '--check-exports'], { cwd: copy, encoding: 'utf8' });
    assert.equal(derive.status, 0, derive.stderr);

    cpSync(join(REPO, 'test/structure/fixtures/probe.ts'), join(copy, 'probe.ts'));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'probe.ts'], { cwd: copy, encoding: 'utf8', env: { ...process.env, PROBE_PROJECT: work }, timeout: 120_000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!);

    // Selection: the project's tiny.json declares it; without one nothing does; mode 'always' makes it the default.
    assert.deepEqual([out.declared.kind, out.declared.formatter, out.declared.language, out.declared.because, out.declared.settings], ['format', 'tiny', 'tiny', 'tiny.json declares Tiny', { shout: true }]);
    assert.equal(out.undeclared.kind, 'skip');
    assert.equal(out.always.because, "mode 'always': Tiny is the default for tiny");
    assert.equal(out.discovered, true);
    assert.equal(out.wasmFile, 'tiny.wasm');
    // Formatted by its wasm, in each host.
    assert.deepEqual([out.universal.status, out.universal.content, out.universal.formatter?.name], ['formatted', 'HELLO, TINY\n', 'tiny'], JSON.stringify(out.universal));
    assert.deepEqual([out.node.status, out.node.content], ['formatted', 'HELLO, NODE\n']);
    assert.equal(out.runtime.status, 'formatted', JSON.stringify(out.runtime));
    assert.equal(out.onDisk, 'HELLO, RUNTIME\n');
    // The build's lists, its entry bundled (no node: import), its wasm shipped under its file name.
    assert.deepEqual(out.assets, [{ name: 'tiny', package: 'formatbox', source: 'src/formatters/tiny/tiny.wasm', file: 'tiny.wasm', version: '0.0.1' }]);
    assert.equal(out.entry, 'src/formatters/tiny/entry.ts');
    assert.equal(out.bundled, true);
    assert.deepEqual([out.shipped[0].name, out.shipped[0].file, out.shipped[0].version, out.shipped[0].exports], ['tiny', 'tiny.wasm', '0.0.1', ['memory', 'format']]);
    // package.json as the derivation wrote it: the entry exported, the wasm shipped.
    assert.deepEqual(out.exported, { types: './dist/types/formatters/tiny/entry.d.ts', default: './dist/tiny.js' });
    assert.deepEqual(out.typesVersion, ['dist/types/formatters/tiny/entry.d.ts']);
    // Its wasm ships once, as the copy in wasm/ the code reads (out.shipped), never its source as well.
    assert.ok(out.files.includes('wasm/*.wasm') && !out.files.includes('src/formatters/tiny/tiny.wasm'), JSON.stringify(out.files));
    assert.match(out.builtinAdapters, /import \{ builtins as tinyBuiltins \} from '\.\/tiny\/builtin\.js';/);

    // No other file was touched by hand: what differs is the folder, the registry and what the build derived.
    const after = filesUnder(copy).filter((f) => !/^(node_modules|probe|probe-dist|probe-wasm)(\/|\.ts$)/.test(f));
    const changed = after.filter((f) => before.get(f) !== readFileSync(join(copy, f), 'utf8')).sort();
    assert.deepEqual(changed, [
      'package.json',
      'src/formatters/builtin-adapters.ts',
      'src/formatters/registry.ts',
      ...['adapter.ts', 'builtin.ts', 'entry.ts', 'index.ts', 'tiny.wasm', 'tiny.wat'].map((f) => `src/formatters/tiny/${f}`),
    ]);
    assert.deepEqual([...before.keys()].filter((f) => !after.includes(f)), []);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
