// formatTree (src/node/project/format-tree.ts), the project-wide batch as a library function: outcomes
// in path order, the cache as a decorator (a second run answers from it, a changed file is formatted
// again, every verdict kind is kept), writes equal to the formatter's own output. Real Prettier and
// real Biome (native in the sandbox where bwrap is there), on rxjs's sources from node_modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as prettier from 'prettier';
import { formatTree, type TreeOutcome } from '../../src/node/index.js';
import { findBwrap } from '../../src/node/sandbox/bwrap.js';
import { findNativeBiome } from '../../src/node/biome-native.js';
import { tempTree } from '../cli/temp-tree.js';

const require = createRequire(import.meta.url);
const RXJS = join(dirname(require.resolve('rxjs/package.json')), 'src', 'internal', 'operators');
/** rxjs operators (real code nobody here wrote), sorted by name. */
const SOURCES = readdirSync(RXJS).filter((name) => name.endsWith('.ts')).sort().slice(0, 24);
const BROKEN = 'zz-broken.ts';

process.env.XDG_CACHE_HOME = tempTree('fb-format-tree-cache-', {});

/** A project with `config` and the rxjs operators under src/, plus a file that does not parse. */
function project(config: Record<string, string>): string {
  const root = tempTree('fb-format-tree-', { '.git/HEAD': 'ref: refs/heads/main\n', ...config, [`src/${BROKEN}`]: 'export const = ;\n' });
  for (const name of SOURCES) cpSync(join(RXJS, name), join(root, 'src', name));
  return root;
}

async function collect(run: AsyncIterable<TreeOutcome>): Promise<TreeOutcome[]> {
  const out: TreeOutcome[] = [];
  for await (const outcome of run) out.push(outcome);
  return out;
}

/** Prettier's own verdict on a file: formatted as it is, would change, or fails to parse. */
async function prettierVerdict(root: string, path: string): Promise<'unchanged' | 'formatted' | 'failed'> {
  const text = readFileSync(join(root, path), 'utf8');
  try {
    return (await prettier.format(text, { filepath: join(root, path) })) === text ? 'unchanged' : 'formatted';
  } catch {
    return 'failed';
  }
}

const expectedPaths = (): string[] => ['.prettierrc', ...SOURCES.map((name) => `src/${name}`), `src/${BROKEN}`].sort();

test('outcomes come in path order, one per file, each the formatter\'s own verdict; a second run answers all from the cache', async () => {
  const root = project({ '.prettierrc': '{}\n' });
  const first = await collect(formatTree({ root, check: true, threads: 2 }));
  assert.deepEqual(first.map((o) => o.path), expectedPaths());
  for (const outcome of first) {
    assert.equal(outcome.kind, await prettierVerdict(root, outcome.path), outcome.path);
    assert.equal(outcome.cached, false, outcome.path);
  }
  const kinds = new Set(first.map((o) => o.kind));
  assert.ok(kinds.has('unchanged') && kinds.has('formatted') && kinds.has('failed'), `every verdict kind is in the tree: ${[...kinds].join(', ')}`);

  const run = formatTree({ root, check: true });
  const second = await collect(run);
  assert.deepEqual(second.map((o) => [o.path, o.kind]), first.map((o) => [o.path, o.kind]));
  // Formatted, would change and failed: all answered before any engine or worker started.
  for (const outcome of second) {
    assert.ok(outcome.kind !== 'error' && outcome.cached && outcome.receipt.formatter === undefined, `${outcome.path} from the cache`);
  }
  assert.match(run.report.cache.file ?? '', /\.json$/);
  assert.equal(run.report.files, expectedPaths().length);

  // A changed file is judged again; the others still come from the cache.
  const changed = `src/${SOURCES[3]}`;
  appendFileSync(join(root, changed), '\n\n\nexport   const   extra=1\n');
  const third = await collect(formatTree({ root, check: true }));
  for (const outcome of third) {
    assert.notEqual(outcome.kind, 'error');
    if (outcome.kind === 'error') continue;
    assert.equal(outcome.cached, outcome.path !== changed, outcome.path);
    if (outcome.path === changed) assert.equal(outcome.kind, 'formatted');
  }
});

test('a write leaves every file as Prettier writes it, and a check afterwards finds nothing to change', async () => {
  const root = project({ '.prettierrc': '{"semi": false}\n' });
  const expected = new Map<string, string>();
  for (const name of SOURCES) {
    const path = join(root, 'src', name);
    expected.set(name, await prettier.format(readFileSync(path, 'utf8'), { filepath: path, semi: false }));
  }
  const written = await collect(formatTree({ root, cache: false }));
  assert.deepEqual(written.map((o) => o.path), expectedPaths());
  for (const name of SOURCES) assert.equal(readFileSync(join(root, 'src', name), 'utf8'), expected.get(name), name);
  const after = await collect(formatTree({ root, check: true, cache: false }));
  assert.deepEqual(after.filter((o) => o.kind !== 'unchanged').map((o) => [o.path, o.kind]), [[`src/${BROKEN}`, 'failed']]);
});

test('ending the iteration early stops the run without an error', async () => {
  const root = project({ '.prettierrc': '{}\n' });
  const seen: string[] = [];
  for await (const outcome of formatTree({ root, check: true, cache: false, threads: 1 })) {
    seen.push(outcome.path);
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen, expectedPaths().slice(0, 2));
});

const nativeMissing = !findBwrap() ? 'bubblewrap is not installed' : 'unavailable' in findNativeBiome() ? 'no native Biome build' : undefined;

test('native Biome answers a check in a Biome project, and its verdicts are cached too', { skip: !process.env.CI && nativeMissing ? nativeMissing : false }, async () => {
  const root = project({ 'biome.json': '{"formatter": {"indentStyle": "space"}}\n' });
  // Last changed well before the run (the cache's "racily clean" rule for a judge that reads files itself).
  const old = new Date(Date.now() - 60_000);
  for (const path of ['biome.json', ...[...SOURCES, BROKEN].map((name) => `src/${name}`)]) utimesSync(join(root, path), old, old);
  await sleep(300); // the ctime (which utimes sets to now) too
  const run = formatTree({ root, check: true });
  const first = await collect(run);
  assert.ok(run.report.native && 'used' in run.report.native, `native Biome used: ${JSON.stringify(run.report.native)}`);
  const nativeAnswered = first.filter((o) => o.kind !== 'error' && o.receipt.formatter?.via === 'sandbox');
  assert.ok(nativeAnswered.some((o) => o.kind === 'formatted'), 'native Biome answered a "would change"');
  const second = await collect(formatTree({ root, check: true }));
  assert.deepEqual(second.map((o) => [o.path, o.kind]), first.map((o) => [o.path, o.kind]));
  for (const outcome of second) assert.ok(outcome.kind !== 'error' && outcome.cached, `${outcome.path} from the cache: ${JSON.stringify([first.find((o) => o.path === outcome.path), outcome])}`);
  // The bytes native Biome would write: a write through formatTree, compared with a check after it.
  writeFileSync(join(root, 'src', BROKEN), 'export const ok = 1;\n');
  const write = formatTree({ root });
  const written = await collect(write);
  assert.equal(written.filter((o) => o.kind === 'error').length, 0);
  // One native run wrote them (no check first): the files it fixed are reported written by native Biome.
  const pass = write.report.native && 'used' in write.report.native ? write.report.native.used : undefined;
  assert.ok(pass?.written && pass.written.written.size > 0, 'native Biome wrote the files');
  assert.deepEqual(written.filter((o) => o.kind === 'formatted').map((o) => o.path).sort(), [...pass.written.written].sort());
  const after = await collect(formatTree({ root, check: true, native: false, cache: false }));
  assert.deepEqual(after.filter((o) => o.kind !== 'unchanged' && o.kind !== 'skipped').map((o) => o.path), []);
});
