// `formatbox format`'s native Biome pass (src/node/project/native-biome-pass.ts, src/node/biome-native.ts):
// formatbox's own native Biome run once in the real bwrap sandbox over real code (rxjs's sources
// from node_modules), its report read fail-closed, and every file's outcome the same as with Biome's
// wasm build alone, and the written bytes the same as `biome format --write`'s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkWithNativeBiome, findNativeBiome, judgeSummaryReport, SummaryReportReader } from '../../src/node/biome-native.js';
import { bwrapSandbox, noSandbox } from '../../src/node/sandbox/index.js';
import { discoverProjectFiles } from '../../src/node/discover.js';
import { openFormatCache } from '../../src/node/format-cache.js';
import { openPrecheck } from '../../src/node/project/precheck.js';
import { earlyTargets, guessNativeBiomePass, nativeBiomeCandidates, startNativeBiomePass, walkTargets } from '../../src/node/project/native-biome-pass.js';
import { writeNatively } from '../../src/node/project/native-biome-write.js';
import { findBwrap } from '../../src/node/sandbox/bwrap.js';
import type { Sandbox, SandboxRequest } from '../../src/core/sandbox.js';
import { tempTree } from './temp-tree.js';
import { missing } from '../sandbox/helpers.js';

const REPO = resolve('.');
const CLI = ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];

const tree = (files: Record<string, string>): string => tempTree('fb-format-native-', files);

/** Runs `formatbox format …` with `--root` set to the last argument's project (`base/root`). */
function cli(args: string[], base: string): { code: number; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...CLI, args[0]!, '--root', join(base, 'root'), ...args.slice(1)], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), XDG_CACHE_HOME: join(base, 'cache') },
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

type Line = { path?: string; status?: string; error?: { code: string }; summary?: Record<string, any> };
const lines = (stdout: string): Line[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
const statuses = (out: Line[]) => Object.fromEntries(out.filter((l) => l.path).map((l) => [l.path, l.status ?? l.error?.code]));

test('the summary report is read fail-closed and streamed: processed files, flagged files by category, counts that must add up', () => {
  const report = (lists: string[], counts: string[]) =>
    [...lists, ' VERBOSE  ━━━━━', '', '  i Files processed:', '  ', '  - src/a.ts', '  - src/b.ts', '  - src/c.ts', '  - src/x:1:2.ts', '', ' VERBOSE  ━━━━━', '', '  i Files fixed:', '  ', '  ! The list is empty.', '', 'Scanned project folder in 4ms.', ...counts, ''].join('\n');
  const lists = ['reporter/parse ━━━━━', '', '  i The following files have parsing errors:', '  ', '  - src/x:1:2.ts', '  ', 'reporter/format ━━━━━', '', '  i The following files need to be formatted:', '  ', '  - src/b.ts', '  - src/c.ts', '  - src/x:1:2.ts', '  '];
  const stdout = report(lists, ['Checked 4 files in 10ms. No fixes applied.', 'Found 3 errors.']);
  // Streamed in chunks that split lines and a multi-byte character anywhere.
  const bytes = new TextEncoder().encode(stdout.replaceAll('src/c.ts', 'src/ç.ts'));
  const reader = new SummaryReportReader('/project');
  for (let i = 0; i < bytes.length; i += 7) reader.push(bytes.subarray(i, i + 7));
  const judged = reader.end();
  assert.ok(!('reason' in judged), JSON.stringify(judged));
  assert.deepEqual([...judged.processed], ['src/a.ts', 'src/b.ts', 'src/ç.ts', 'src/x:1:2.ts']);
  assert.equal(judged.flagged.get('src/b.ts'), 'format: needs to be formatted');
  assert.equal(judged.flagged.get('src/x:1:2.ts'), 'parse: a diagnostic', 'the parse error says more than format');
  assert.ok(!judged.flagged.has('src/a.ts'));
  assert.deepEqual([...judged.wouldChange], ['src/b.ts', 'src/ç.ts'], 'a parse error is no "would change"');

  // A warning (Biome lists a file over files.maxSize under "format" too) or counts that differ: flagged, no verdict.
  const warned = judgeSummaryReport(report(lists, ['Checked 4 files in 10ms. No fixes applied.', 'Found 3 errors.', 'Found 1 warning.']), '/project');
  assert.ok(!('reason' in warned) && warned.flagged.size === 3 && warned.wouldChange.size === 0);
  const fewer = judgeSummaryReport(report(lists, ['Checked 3 files in 10ms. No fixes applied.', 'Found 3 errors.']), '/project');
  assert.ok(!('reason' in fewer) && fewer.wouldChange.size === 0);

  const reason = (out: string) => {
    const r = judgeSummaryReport(out, '/project');
    return 'reason' in r ? r.reason : undefined;
  };
  assert.match(reason(stdout.replace('Checked 4 files', 'Checked 5 files')) ?? '', /checked 5 files and listed 4/);
  assert.match(reason(report([], ['Checked 4 files in 10ms. No fixes applied.', 'Found 3 errors.'])) ?? '', /reported 3 errors and listed no file/);
  assert.match(reason(`something new at column 0\n${stdout}`) ?? '', /unknown line in its report/);
  assert.match(reason(stdout.replace('Scanned project', 'Skipped project')) ?? '', /unknown line in its report/);
  assert.match(reason(stdout.replace(/^Checked.*$/m, '')) ?? '', /no "Checked N files" line/);
  // A file named "src/a.ts\n  - src/never-processed.ts" prints as two list lines; the count still adds up.
  const forged = stdout.replace('  - src/b.ts\n  - src/c.ts', '  - src/a.ts\n  - src/never-processed.ts').replace('  - src/b.ts\n', '  - src/a.ts\n  - src/never-processed.ts\n');
  assert.match(reason(forged) ?? '', /listed src\/a\.ts twice/);
});

test('the summary reporter of the real native Biome: the same verdicts as its default reporter, no diff', async (t) => {
  const biome = findNativeBiome();
  if ('unavailable' in biome) return t.skip(biome.unavailable);
  const base = tree({ 'root/biome.json': '{ "files": { "maxSize": 200 } }\n', 'root/src/ok.ts': 'export const ok = 1;\n', 'root/src/ugly.ts': 'export const   ugly=[1,2 ,3]\n', 'root/src/bad.js': 'const a = ;\n', 'root/src/d.json': '{"a":1,\n "b":2}', 'root/src/big.ts': `export const big = ${'1 + '.repeat(60)}1;\n` });
  const root = join(base, 'root');
  const summary = spawnSync(biome.binary, ['format', '--reporter=summary', '--verbose', '--colors=off', 'src'], { cwd: root, encoding: 'utf8' });
  assert.doesNotMatch(summary.stdout, /ugly=/, 'no diff in the report');
  const judged = judgeSummaryReport(summary.stdout, root);
  assert.ok(!('reason' in judged), 'reason' in judged ? judged.reason : '');
  assert.deepEqual([...judged.processed].sort(), ['src/bad.js', 'src/big.ts', 'src/d.json', 'src/ok.ts', 'src/ugly.ts']);
  assert.deepEqual([...judged.flagged.keys()].sort(), ['src/bad.js', 'src/big.ts', 'src/d.json', 'src/ugly.ts']);
  assert.equal(judged.wouldChange.size, 0, 'a file over maxSize is listed as "needs formatting" with a warning: no verdict is taken');
  // Without the large file: the default reporter's own diagnostics name the same files that would change.
  writeFileSync(join(root, 'src/big.ts'), 'export const big = 1;\n');
  const again = judgeSummaryReport(spawnSync(biome.binary, ['format', '--reporter=summary', '--verbose', '--colors=off', 'src'], { cwd: root, encoding: 'utf8' }).stdout, root);
  assert.ok(!('reason' in again));
  const full = spawnSync(biome.binary, ['format', '--colors=off', '--max-diagnostics=none', 'src'], { cwd: root, encoding: 'utf8' }).stderr;
  const wouldPrint = [...full.matchAll(/^(src\/\S+) format ━+\n\n {2}× Formatter would have printed/gm)].map((m) => m[1]).sort();
  assert.deepEqual([...again.wouldChange].sort(), wouldPrint);
  assert.deepEqual(wouldPrint, ['src/d.json', 'src/ugly.ts']);
});

test('walk targets: below the deepest common directory, each entry that holds a candidate', () => {
  assert.deepEqual(walkTargets(['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts', 'src/c.ts']), ['src/a', 'src/b', 'src/c.ts']);
  assert.deepEqual(walkTargets(['pkg/one/a.ts', 'pkg/one/b.ts']), ['pkg/one/a.ts', 'pkg/one/b.ts']);
  assert.deepEqual(walkTargets(['a.ts', 'lib/b.ts']), ['a.ts', 'lib']);
  assert.deepEqual(walkTargets([]), []);
});

test('candidates: only files the per-file path gives Biome under one root config that Biome reads as formatbox does', () => {
  const files = ['a.ts', 'b.md', 'sub/c.ts', 'ignored/d.ts'];
  const plain = { 'biome.json': '{ "files": { "includes": ["**", "!ignored"] } }' };
  assert.deepEqual(nativeBiomeCandidates(files, { projectFiles: plain, trust: 'untrusted' }), ['a.ts', 'sub/c.ts']);
  assert.deepEqual(nativeBiomeCandidates(files, { projectFiles: { '.prettierrc': '{}' }, trust: 'untrusted' }), [], 'a Prettier project has none');
  const nested = nativeBiomeCandidates(files, { projectFiles: { ...plain, 'sub/biome.json': '{ "root": false }' }, trust: 'untrusted' });
  assert.match((nested as { reason: string }).reason, /nested Biome configs/);
  const plugins = nativeBiomeCandidates(files, { projectFiles: { 'biome.json': '{ "plugins": ["./rule.grit"] }' }, trust: 'untrusted' });
  assert.match((plugins as { reason: string }).reason, /leaves part of biome\.json out \(plugins/);
  const extending = nativeBiomeCandidates(files, { projectFiles: { 'biome.json': '{ "extends": ["./base.json"] }', 'base.json': '{}' }, trust: 'untrusted' });
  assert.match((extending as { reason: string }).reason, /extends other files/);
  // A user rule that gives TypeScript to Prettier takes those files out.
  assert.deepEqual(nativeBiomeCandidates(files, { projectFiles: plain, trust: 'untrusted', config: { formatters: { typescript: 'prettier' } } }), []);
});

/**
 * A recording stand-in for the sandbox port: these cases test which runs are started, kept and
 * stopped, not what runs (the real bwrap runs native Biome in the tests below). A run ends only when
 * its signal aborts.
 */
function recordingSandbox(): { sandbox: Sandbox; requests: SandboxRequest[] } {
  const requests: SandboxRequest[] = [];
  const sandbox: Sandbox = {
    kind: 'bwrap',
    describe: () => 'recording',
    run: (request) => {
      requests.push(request);
      return new Promise((resolve) => request.signal?.addEventListener('abort', () => resolve({ kind: 'aborted', ms: 0 })));
    },
  };
  return { sandbox, requests };
}

test('a native run started before discovery is kept only when the discovered project qualifies with the same targets, and stopped otherwise', async () => {
  const biome = findNativeBiome();
  if ('unavailable' in biome) assert.fail(`formatbox's optional native Biome is installed with it here: ${biome.unavailable}`);
  const guessAndStart = async (files: Record<string, string>, named: string[]) => {
    const root = join(tree(Object.fromEntries(Object.entries(files).map(([path, text]) => [`root/${path}`, text]))), 'root');
    const { sandbox, requests } = recordingSandbox();
    const ports = { sandbox: () => sandbox, biome: () => biome };
    const guessed = guessNativeBiomePass(root, named, ports);
    const discovered = await discoverProjectFiles(root);
    const started = guessed ? startNativeBiomePass(root, { projectFiles: discovered.files, trust: 'untrusted', ...ports }, (project) => earlyTargets(root, named, project.gitignore), guessed) : undefined;
    const targets = requests.map((r) => (r.argv as string[]).slice((r.argv as string[]).indexOf('--') + 1));
    return { guessed, started, requests, targets };
  };

  // Qualifies, same targets: the guess is the run (one start, not stopped).
  const kept = await guessAndStart({ 'biome.json': '{}\n', '.gitignore': 'build/\n', 'src/a.ts': 'a\n', 'build/b.ts': 'b\n', '.hidden/c.ts': 'c\n', 'node_modules/d.ts': 'd\n' }, ['']);
  // Biome's own walk enters dot-directories too, not node_modules.
  assert.deepEqual(kept.targets, [['.gitignore', '.hidden', 'biome.json', 'src']], 'the root .gitignore already applies to the guess');
  assert.ok(kept.started && 'running' in kept.started && kept.started.running === kept.guessed!.running);
  assert.equal(kept.requests[0]!.signal!.aborted, false);

  // A nested config: the project does not qualify, so the guess is stopped and nothing else starts.
  const nested = await guessAndStart({ 'biome.json': '{}\n', 'pkg/biome.json': '{ "root": false }\n', 'pkg/a.ts': 'a\n' }, ['']);
  assert.match((nested.started as { notUsed: string }).notUsed, /nested Biome configs/);
  assert.equal(nested.requests.length, 1);
  assert.equal(nested.requests[0]!.signal!.aborted, true);

  // A .gitignore below the root changes the targets: the guess is stopped and the right run started.
  const moved = await guessAndStart({ 'biome.json': '{}\n', 'src/.gitignore': 'gen/\n', 'src/gen/x.ts': 'x\n', 'src/a.ts': 'a\n' }, ['src']);
  assert.deepEqual(moved.targets, [['src/.gitignore', 'src/a.ts', 'src/gen'], ['src/.gitignore', 'src/a.ts']]);
  assert.equal(moved.requests[0]!.signal!.aborted, true);
  assert.equal(moved.requests[1]!.signal, undefined);

  // Any name Biome reads at the root starts the guess, as it qualifies the project.
  const dotted = await guessAndStart({ '.biome.jsonc': '{}\n', 'src/a.ts': 'a\n' }, ['']);
  assert.deepEqual(dotted.targets, [['.biome.jsonc', 'src']]);
  assert.ok(dotted.started && 'running' in dotted.started && dotted.started.running === dotted.guessed!.running);

  // No Biome config at the root: no guess.
  const none = await guessAndStart({ '.prettierrc': '{}\n', 'a.ts': 'a\n' }, ['']);
  assert.equal(none.guessed, undefined);
  assert.equal(none.requests.length, 0);
});

test('no sandbox: native Biome is not used, and says why', async () => {
  const biome = findNativeBiome();
  if ('unavailable' in biome) assert.fail(`formatbox's optional native Biome is installed with it here: ${biome.unavailable}`);
  const result = await checkWithNativeBiome(noSandbox('bubblewrap (bwrap) is not installed'), biome, '/nonexistent', ['a.ts']);
  assert.equal(result.kind, 'not-used');
  assert.match((result as { reason: string }).reason, /^no sandbox: .*bubblewrap \(bwrap\) is not installed/);
});

/** rxjs's TypeScript sources (a few hundred files, Prettier-formatted upstream, so Biome changes some). */
function rxjsProject(extra: Record<string, string>): { base: string; root: string } {
  const base = tree({ 'root/biome.json': '{ "formatter": { "indentStyle": "space", "lineWidth": 140 }, "javascript": { "formatter": { "quoteStyle": "single" } } }\n', ...extra });
  const root = join(base, 'root');
  const rxjs = join(dirname(createRequire(join(REPO, 'package.json')).resolve('rxjs/package.json')), 'src/internal/operators');
  cpSync(rxjs, join(root, 'src/operators'), { recursive: true });
  return { base, root };
}

test('native and wasm agree on every file of real code, and --write writes what `biome format --write` writes', async (t) => {
  if (missing()) return t.skip('no sandbox');
  const { base, root } = rxjsProject({
    'root/src/bad.ts': 'const = ;\n',
    'root/src/data.json': '{"a":1,\n  "b":   [1,2]}\n',
    'root/.gitignore': 'generated/\n',
    'root/generated/out.ts': 'const   skipped=1\n',
    'root/.hidden/h.ts': 'const   hidden=1\n',
  });
  appendFileSync(join(root, 'src/operators/map.ts'), '\nexport const   extra=[1,2 ,3]\n');
  const native = cli(['format', '--check', '--json', '--no-cache', root], base);
  const wasm = cli(['format', '--check', '--json', '--no-cache', '--no-native', root], base);
  assert.equal(native.code, wasm.code, native.stderr);
  const nativeLines = lines(native.stdout);
  const summary = nativeLines.at(-1)!.summary!;
  assert.ok(summary.nativeBiome, JSON.stringify(summary));
  assert.ok(summary.nativeBiome.files > 100, JSON.stringify(summary.nativeBiome));
  assert.equal(summary.nativeBiome.notUsed, undefined);
  // With --check, a file whose only diagnostic is "would change" is answered natively; bad.ts goes on to the wasm build.
  assert.ok(summary.nativeBiome.formatted > 0 && summary.nativeBiome.wouldChange >= 2 && summary.nativeBiome.leftToWasm === 1, JSON.stringify(summary.nativeBiome));
  assert.equal(lines(wasm.stdout).at(-1)!.summary!.nativeBiome, undefined, '--no-native');
  assert.deepEqual(statuses(nativeLines), statuses(lines(wasm.stdout)), 'the same outcome for every file');
  assert.equal(statuses(nativeLines)['src/bad.ts'], 'failed');
  assert.equal(statuses(nativeLines)['generated/out.ts'], undefined, 'gitignored: not walked, whatever Biome would walk');
  assert.equal(statuses(nativeLines)['.hidden/h.ts'], 'would-change', 'a dot-directory: Biome formats it, and so does formatbox');

  // Fidelity: formatbox --write against Biome's own CLI --write on a copy of the same tree.
  const copy = join(base, 'copy');
  cpSync(root, copy, { recursive: true });
  const written = cli(['format', '--write', '--json', '--no-cache', root], base);
  assert.equal(written.code, 2, written.stderr); // bad.ts cannot be parsed
  // The files native Biome found would change are written from its own output (a scratch copy in the sandbox), not formatted again.
  const writtenSummary = lines(written.stdout).at(-1)!.summary!;
  assert.equal(writtenSummary.nativeBiome.written, summary.nativeBiome.wouldChange, JSON.stringify(writtenSummary));
  assert.equal(writtenSummary.nativeBiome.leftToWasm, 1, 'only bad.ts goes on to the wasm build');
  const biome = findNativeBiome();
  assert.ok(!('unavailable' in biome));
  spawnSync(biome.binary, ['format', '--write', 'src', 'biome.json'], { cwd: copy, encoding: 'utf8' });
  const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();
  const ours = files(join(root, 'src'));
  assert.deepEqual(ours, files(join(copy, 'src')));
  const differing = ours.filter((f) => !readFileSync(join(root, 'src', f)).equals(readFileSync(join(copy, 'src', f))));
  assert.deepEqual(differing, [], 'every byte as biome format --write wrote it');
  assert.equal(cli(['format', '--check', '--no-cache', '--no-native', join(root, 'src/operators')], base).code, 0, 'formatted for the wasm build too');
});

test('--write on a tree half formatted: the other half gets exactly the bytes `biome format --write` writes, and a file it would not change keeps its bytes and mtime', async (t) => {
  if (missing()) return t.skip('no sandbox');
  const biome = findNativeBiome();
  if ('unavailable' in biome) return t.skip(biome.unavailable);
  // Double quotes: rxjs's single-quoted sources need formatting until native Biome has written them.
  const base = tree({ 'root/biome.json': '{ "formatter": { "indentStyle": "space" } }\n' });
  const root = join(base, 'root');
  const rxjs = join(dirname(createRequire(join(REPO, 'package.json')).resolve('rxjs/package.json')), 'src/internal');
  cpSync(rxjs, join(root, 'src'), { recursive: true });
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name))).sort();
  // Every other file formatted by native Biome first, spread over the tree.
  const preformatted = files.filter((_, i) => i % 2 === 0);
  spawnSync(biome.binary, ['format', '--write', ...preformatted], { cwd: root, encoding: 'utf8' });
  const copy = join(base, 'copy');
  cpSync(root, copy, { recursive: true });
  spawnSync(biome.binary, ['format', '--write', 'src'], { cwd: copy, encoding: 'utf8' });
  const before = new Map(files.map((f) => [f, { bytes: readFileSync(join(root, f)), stat: statSync(join(root, f), { bigint: true }) }]));
  // What Biome's own write leaves as it is, formatbox must not touch; what it changes, formatbox must write as it does.
  const unchanged = files.filter((f) => readFileSync(join(copy, f)).equals(before.get(f)!.bytes));
  const changed = files.filter((f) => !unchanged.includes(f));
  assert.ok(unchanged.length >= 50 && changed.length >= 50, `${unchanged.length} unchanged, ${changed.length} changed`);
  await sleep(20); // a rewrite of a file now would show in its mtime
  const written = cli(['format', '--write', '--json', '--no-cache', root], base);
  assert.equal(written.code, 0, written.stderr);
  const summary = lines(written.stdout).at(-1)!.summary!;
  assert.equal(summary.nativeBiome?.notUsed, undefined, JSON.stringify(summary.nativeBiome));
  assert.equal(summary.nativeBiome.written, changed.length, JSON.stringify(summary.nativeBiome));
  assert.deepEqual(changed.filter((f) => !readFileSync(join(root, f)).equals(readFileSync(join(copy, f)))), [], 'every byte as biome format --write wrote it');
  const touched = unchanged.filter((f) => {
    const now = statSync(join(root, f), { bigint: true });
    const was = before.get(f)!;
    return !readFileSync(join(root, f)).equals(was.bytes) || now.mtimeNs !== was.stat.mtimeNs || now.ino !== was.stat.ino;
  });
  assert.deepEqual(touched, [], 'a formatted file is neither rewritten nor replaced');
});

test('--write from native Biome: its scratch copy is the only thing it writes; a file changed meanwhile, or a symlink it leaves, is never written through', async (t) => {
  if (missing()) return t.skip('no sandbox');
  const biome = findNativeBiome();
  if ('unavailable' in biome) return t.skip(biome.unavailable);
  const base = tree({ 'root/biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'root/src/a.ts': 'export const   a=1\n', 'root/src/b.ts': 'export const   b=2\n', 'root/lib/c.ts': 'export const   c=3\n', 'outside/c.ts': 'export const planted = 1;\n' });
  const root = join(base, 'root');
  const real = bwrapSandbox({ bwrapPath: findBwrap()! });
  const requests: SandboxRequest[] = [];
  // The real sandbox, with the world moving around it: a.ts is edited while native Biome runs, and
  // the copy of lib/ is swapped for a symlink to a directory outside once it has written.
  const sandbox: Sandbox = {
    kind: real.kind,
    describe: () => real.describe(),
    run: async (request) => {
      requests.push(request);
      writeFileSync(join(root, 'src/a.ts'), 'export const   a=10\n');
      const result = await real.run(request);
      rmSync(join(request.root!, 'lib'), { recursive: true });
      symlinkSync(join(base, 'outside'), join(request.root!, 'lib'));
      return result;
    },
  };
  const discovered = await discoverProjectFiles(root);
  const writes = await writeNatively(root, ['lib/c.ts', 'src/a.ts', 'src/b.ts'], { projectFiles: discovered.files, trust: 'untrusted', sandbox: () => sandbox, biome: () => biome });
  assert.equal(writes.notUsed, undefined);
  assert.deepEqual([...writes.written], ['src/b.ts']);
  assert.equal(readFileSync(join(root, 'src/b.ts'), 'utf8'), 'export const b = 2;\n');
  assert.equal(writes.failed.get('src/a.ts')?.code, 'MODIFIED_SINCE_READ', 'the edit made meanwhile is kept, and the write is refused');
  assert.equal(readFileSync(join(root, 'src/a.ts'), 'utf8'), 'export const   a=10\n');
  assert.equal(readFileSync(join(root, 'lib/c.ts'), 'utf8'), 'export const   c=3\n', 'not read through the symlink: left to the per-file path');
  assert.equal(requests.length, 1);
  assert.equal(requests[0]!.writableRoot, true);
  assert.notEqual(requests[0]!.root, root, 'the project itself is never the writable root');
  assert.ok(!existsSync(requests[0]!.root!), 'the scratch copy is removed');
});

test('--write from native Biome: a symlink in the project, or a project directory swapped for one while it runs, is never written through', async (t) => {
  if (missing()) return t.skip('no sandbox');
  const biome = findNativeBiome();
  if ('unavailable' in biome) return t.skip(biome.unavailable);
  const unformatted = 'export const   c=3\n';
  const base = tree({ 'root/biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'root/src/b.ts': 'export const   b=2\n', 'root/lib/c.ts': unformatted, 'outside/c.ts': unformatted, 'outside/d.ts': unformatted });
  const root = join(base, 'root');
  symlinkSync(join(base, 'outside/d.ts'), join(root, 'src/link.ts'));
  symlinkSync(join(base, 'outside'), join(root, 'src/out'));
  const real = bwrapSandbox({ bwrapPath: findBwrap()! });
  // While native Biome runs, lib/ is swapped for a symlink to a directory outside that holds the very bytes it read.
  const sandbox: Sandbox = {
    kind: real.kind,
    describe: () => real.describe(),
    run: async (request) => {
      const result = await real.run(request);
      renameSync(join(root, 'lib'), join(base, 'lib-aside'));
      symlinkSync(join(base, 'outside'), join(root, 'lib'));
      return result;
    },
  };
  const discovered = await discoverProjectFiles(root);
  const writes = await writeNatively(root, ['lib/c.ts', 'src/b.ts', 'src/link.ts', 'src/out/c.ts'], { projectFiles: discovered.files, trust: 'untrusted', sandbox: () => sandbox, biome: () => biome });
  assert.equal(writes.notUsed, undefined);
  assert.deepEqual([...writes.written], ['src/b.ts']);
  assert.equal(readFileSync(join(root, 'src/b.ts'), 'utf8'), 'export const b = 2;\n');
  assert.equal(writes.failed.get('lib/c.ts')?.code, 'PATH_REFUSED', 'the swapped directory is refused at the commit');
  assert.match(writes.failed.get('lib/c.ts')!.message, /^refused lib\/c\.ts: a directory on its path is now a symlink.*nothing was read or written through it/);
  for (const name of ['c.ts', 'd.ts']) assert.equal(readFileSync(join(base, 'outside', name), 'utf8'), unformatted, `outside/${name} is untouched`);
  assert.equal(readFileSync(join(base, 'lib-aside/c.ts'), 'utf8'), unformatted);
  for (const path of ['src/link.ts', 'src/out/c.ts']) assert.ok(!writes.fixed.has(path) && !writes.written.has(path) && !writes.failed.has(path), `${path} (through a symlink) is not handed to native Biome`);
  assert.equal(readdirSync(base).filter((name) => name.includes('formatbox')).length, 0);
});

test('native answers fill the cache only for files provably unchanged since they were hashed', async (t) => {
  if (missing()) return t.skip('no sandbox');
  const { base, root } = rxjsProject({});
  await sleep(250); // older than the racy margin
  const first = lines(cli(['format', '--check', '--json', root], base).stdout).at(-1)!.summary!;
  assert.ok(first.nativeBiome.formatted > 20, JSON.stringify(first));
  assert.ok(first.nativeBiome.wouldChange > 20, JSON.stringify(first));
  const second = cli(['format', '--check', '--json', root], base);
  const again = lines(second.stdout).at(-1)!.summary!;
  assert.equal(again.fromCacheBeforeStart, first.files, 'every verdict native Biome reached (formatted, would change) is a cache hit');
  assert.equal(again.wouldChange, first.wouldChange);
  assert.equal(again.nativeBiome, undefined, 'nothing is left to check');
  assert.deepEqual(statuses(lines(second.stdout)), statuses(lines(cli(['format', '--check', '--json', '--no-cache', '--no-native', root], base).stdout)), "the same verdicts as Biome's wasm build");

  // The rule itself: a file changed in the same clock tick as the read, or after it, is never recorded.
  const cache = openFormatCache(root, { version: 'test', env: { XDG_CACHE_HOME: join(base, 'cache2') } });
  const precheck = openPrecheck(root, cache, await discoverProjectFiles(root), { build: 'test' });
  const judgeStarted = Date.now();
  writeFileSync(join(root, 'fresh.ts'), 'export const a = 1;\n');
  const fresh = precheck.entryOf('fresh.ts')!;
  assert.equal(precheck.confirmUnchangedSince(fresh, 'fresh.ts', judgeStarted), false, 'changed within the racy margin of the read');
  const settled = precheck.entryOf('src/operators/map.ts')!;
  writeFileSync(join(root, 'src/operators/map.ts'), readFileSync(join(root, 'src/operators/map.ts')));
  assert.equal(precheck.confirmUnchangedSince(settled, 'src/operators/map.ts', judgeStarted), false, 'rewritten after the read');
  // Native Biome starts before formatbox hashes: a file written after the judge started and settled
  // before the hash was maybe read by the judge in its old form, so it is not recorded either.
  await sleep(250);
  const hashedAfterTheWrite = precheck.entryOf('src/operators/map.ts')!;
  assert.equal(precheck.confirmUnchangedSince(hashedAfterTheWrite, 'src/operators/map.ts', judgeStarted), false, 'changed after the judge started');
  assert.equal(precheck.confirmUnchangedSince(hashedAfterTheWrite, 'src/operators/map.ts', Date.now()), true, 'the same file, judged from now on');
  const untouched = precheck.entryOf('src/operators/filter.ts')!;
  assert.equal(precheck.confirmUnchangedSince(untouched, 'src/operators/filter.ts', judgeStarted), true);
  assert.ok(cache.has(untouched.key));
});

test('a project native Biome cannot answer for says so, and the wasm build formats it', (t) => {
  if (missing()) return t.skip('no sandbox');
  const base = tree({ 'root/biome.json': '{}\n', 'root/pkg/biome.json': '{ "root": false, "formatter": { "indentStyle": "space" } }\n', 'root/pkg/a.ts': 'const a=1\n', 'root/b.ts': 'const b = 1;\n' });
  const run = cli(['format', '--check', '--json', '--no-cache', join(base, 'root')], base);
  assert.equal(run.code, 1, run.stderr);
  const out = lines(run.stdout);
  assert.match(out.at(-1)!.summary!.nativeBiome.notUsed[0], /nested Biome configs/);
  assert.equal(statuses(out)['pkg/a.ts'], 'would-change');
  // Why the native pass stood aside is a detail: said with --verbose, not on every run.
  const text = cli(['format', '--check', '--verbose', '--no-cache', join(base, 'root')], base);
  assert.match(text.stderr, /native Biome not used \(the project has nested Biome configs\)/);
});

test('doctor says whether formatbox format can use native Biome, and where the binary is', async (t) => {
  if (missing()) return t.skip('no sandbox');
  const { createRuntime } = await import('../../src/node/index.js');
  const runtime = createRuntime({ root: tree({ 'root/biome.json': '{}\n' }) });
  try {
    const native = (await runtime.doctor()).subprocess.find((s) => s.name.startsWith('biome (native'));
    assert.ok(native?.available, JSON.stringify(native));
    assert.match(native.detail, /@biomejs\/cli-[\w-]+\/biome(\.exe)? 2\.4\.15$/);
  } finally {
    await runtime.close();
  }
});

test('on a terminal: the native pass is announced, then a progress line, then the summary', (t) => {
  if (missing()) return t.skip('no sandbox');
  const scriptBin = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));
  if (!scriptBin) {
    if (process.env.CI) assert.fail('CI has util-linux script (Debian bsdutils)');
    console.log('# skipped: no `script` to give the CLI a terminal');
    return t.skip('no script');
  }
  const { base, root } = rxjsProject({});
  const command = [process.execPath, ...CLI, 'format', '--check', '--no-cache', '--root', root, root].map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(' ');
  const run = spawnSync(scriptBin, ['-qec', command, '/dev/null'], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), XDG_CACHE_HOME: join(base, 'cache') },
  });
  // On a terminal the summary is coloured; the words are asserted without the escape sequences.
  const out = run.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  if (/pseudo-terminal|openpty|\/dev\/pts/i.test(`${run.stderr}${out}`) && !/files:/.test(out)) {
    console.log(`# skipped: no terminal can be made here (${run.stderr.trim().split('\n')[0]})`);
    return t.skip('no pty');
  }
  assert.match(out, /checking \d+ files \(native Biome first\)…/, out.slice(-600));
  assert.match(out, /\[\d+\/\d+\] \d+ files\/s, ETA \d+ s/);
  assert.match(out, /Checked \d+ files: \d+ would change, \d+ already formatted/);
  assert.ok(out.indexOf('native Biome first') < out.search(/\[\d+\/\d+\]/), 'announced before the progress line');
});
