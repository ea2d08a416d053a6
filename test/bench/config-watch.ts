/**
 * Cost of noticing config changes before each format (src/node/config-watch.ts), on a project with 50
 * config files: 10 packages, each with package.json, biome.json, .editorconfig, .gitignore and
 * .prettierrc, and source files 4 directories deep. Anchor: rediscovering the project's config on
 * every call (what the check avoids). Goal: ≤ 0.2 ms per call.
 *
 *   node --import tsx test/bench/config-watch.ts [calls]     (npm run bench -- config-watch)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createConfigWatch } from '../../src/node/config-watch.js';
import { readPinFiles } from '../../src/node/pin-files.js';
import { discoverProjectFiles } from '../../src/node/discover.js';

const calls = Number(process.argv[2] ?? 20_000);
const root = mkdtempSync(join(tmpdir(), 'formatbox-bench-watch-'));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
for (let p = 0; p < 10; p++) {
  const dir = p === 0 ? '' : `packages/p${p}/`;
  write(`${dir}package.json`, JSON.stringify({ name: `p${p}`, prettier: { semi: false } }));
  write(`${dir}biome.json`, p === 0 ? '{ "formatter": { "indentWidth": 2 } }' : '{ "root": false, "extends": "//" }');
  write(`${dir}.editorconfig`, '[*]\nindent_style = space\n');
  write(`${dir}.gitignore`, 'dist\n');
  write(`${dir}.prettierrc`, '{}');
  write(`${dir}src/lib/deep/file.ts`, 'export const x = 1;\n');
}
const discovered = await discoverProjectFiles(root);
const configCount = Object.keys(discovered.files).length;
// The files must be older than the racy window, as in a real project, or every check re-reads them.
const old = new Date(Date.now() - 60_000);
const { utimesSync } = await import('node:fs');
for (const file of Object.keys(discovered.files)) utimesSync(join(root, file), old, old);
for (let p = 0; p < 10; p++) for (const d of ['', 'src', 'src/lib', 'src/lib/deep']) utimesSync(join(root, p === 0 ? '' : `packages/p${p}`, d), old, old);
utimesSync(join(root, 'packages'), old, old);

const watch = createConfigWatch(root);
watch.reset(discovered.files, readPinFiles(root));
const path = 'packages/p3/src/lib/deep/file.ts';
if (watch.changed(path)) throw new Error('the watch saw a change where there was none');

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
function p95(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.95)] as number;
}

const checks: number[] = [];
for (let i = 0; i < calls; i++) {
  const started = performance.now();
  watch.changed(path);
  checks.push(performance.now() - started);
}
const rediscoveries: number[] = [];
for (let i = 0; i < 200; i++) {
  const started = performance.now();
  await discoverProjectFiles(root);
  rediscoveries.push(performance.now() - started);
}
// A change is seen on the next call.
write('packages/p3/src/.prettierrc', '{"semi": true}');
const seen = watch.changed(path);
rmSync(root, { recursive: true, force: true });

const ancestors = ['', ...path.split('/').slice(0, -1).map((_, i, all) => all.slice(0, i + 1).join('/'))];
const onPath = Object.keys(discovered.files).filter((file) => ancestors.includes(file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '')).length;
console.log(`project: ${configCount} config files; checked path ${path} (${ancestors.length} directories, ${onPath} config files on the way)`);
console.log('| per format call | median | p95 |');
console.log('|---|---|---|');
console.log(`| change check (stat along the path) | ${(median(checks) * 1000).toFixed(1)} µs | ${(p95(checks) * 1000).toFixed(1)} µs |`);
console.log(`| anchor: rediscover every config file | ${(median(rediscoveries) * 1000).toFixed(1)} µs | ${(p95(rediscoveries) * 1000).toFixed(1)} µs |`);
console.log(`check / rediscovery: ${(median(checks) / median(rediscoveries)).toFixed(3)}x; goal ≤ 200 µs per call: ${median(checks) * 1000 <= 200 ? 'met' : 'missed'}; a new config file seen on the next call: ${seen}`);
