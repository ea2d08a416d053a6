// Hostile trees for the file walk (issue 9, class 8: "the CLI's format walk follows symlinks").
// Each variant is a real directory. For each:
//   - the shared walker (src/node/walk.ts, used by `format` and by config discovery) runs in a child
//     process that reports its wall time and peak RSS: both must stay under the case's bounds;
//   - `formatbox format --check --json` runs on the same tree: it finishes (time bound), formats the
//     ordinary file, never aborts for the bad entry, and never prints a name from outside the root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve('.');
const CLI = ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];
/** A name that exists only outside the root: it must never show up in any output. */
const OUTSIDE_NAME = 'outside-secret-name';

interface WalkCase {
  name: string;
  /** Builds the hostile part under `root` (the project) and `base` (its parent, outside the root). */
  build(root: string, base: string): void;
  /** Wall clock of the walk alone (safety bound, not a speed measurement). */
  walkBoundMs: number;
  /** Peak RSS of the child that walks. */
  memoryBoundMb: number;
  /** Project-relative paths the walk must list (besides ok.ts). */
  mustFind?: string[];
  /** A reason the walk must give for some entry. */
  reason?: RegExp;
}

const CASES: WalkCase[] = [
  {
    name: '24 directories cross-linked by 48 symlinks (the review saw >60 s)',
    build(root) {
      for (let i = 0; i < 24; i++) mkdirSync(join(root, `d${i}`), { recursive: true });
      for (let i = 0; i < 24; i++) {
        symlinkSync(join(root, `d${(i + 1) % 24}`), join(root, `d${i}`, 'next'));
        symlinkSync('..', join(root, `d${i}`, 'up'));
        writeFileSync(join(root, `d${i}`, 'x.ts'), 'const x=1\n');
      }
    },
    walkBoundMs: 5_000,
    memoryBoundMb: 200,
    mustFind: ['d0/x.ts', 'd23/x.ts'],
  },
  {
    name: 'a self -> . link and a loop -> .. link (the review saw the run abort)',
    build(root) {
      symlinkSync('.', join(root, 'self'));
      mkdirSync(join(root, 'a/b'), { recursive: true });
      symlinkSync('../..', join(root, 'a/b/loop'));
      symlinkSync('.', join(root, 'a/self.ts')); // a link named like a source file, to a directory
      writeFileSync(join(root, 'a/b/y.ts'), 'const y=2\n');
    },
    walkBoundMs: 5_000,
    memoryBoundMb: 200,
    mustFind: ['a/b/y.ts'],
    reason: /symlink to a directory/,
  },
  {
    name: 'links out of root: a directory and a file (the review saw outside names printed)',
    build(root, base) {
      mkdirSync(join(base, 'outside'), { recursive: true });
      writeFileSync(join(base, 'outside', `${OUTSIDE_NAME}.ts`), 'const secret=1\n');
      symlinkSync(join(base, 'outside'), join(root, 'out-dir'));
      symlinkSync(join(base, 'outside', `${OUTSIDE_NAME}.ts`), join(root, 'out-file.ts'));
      symlinkSync('/etc', join(root, 'etc'));
    },
    walkBoundMs: 5_000,
    memoryBoundMb: 200,
    reason: /leaves the project root/,
  },
  {
    name: 'a 300-level deep directory chain',
    build(root) {
      let dir = root;
      for (let i = 0; i < 300; i++) dir = join(dir, 'd');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'deep.ts'), 'const deep=1\n');
    },
    walkBoundMs: 5_000,
    memoryBoundMb: 200,
    reason: /deeper than 64 directories/,
  },
  {
    name: 'a FIFO and a dangling link named like source files',
    build(root) {
      execFileSync('mkfifo', [join(root, 'pipe.ts')]);
      symlinkSync(join(root, 'nowhere.ts'), join(root, 'dangling.ts'));
    },
    walkBoundMs: 5_000,
    memoryBoundMb: 200,
    reason: /FIFO|does not exist/,
  },
  {
    name: '5,000 directories, every tenth with a .gitignore',
    build(root) {
      for (let i = 0; i < 50; i++) {
        for (let j = 0; j < 100; j++) {
          const dir = join(root, `w${i}`, `v${j}`);
          mkdirSync(dir, { recursive: true });
          if (j % 10 === 0) writeFileSync(join(dir, '.gitignore'), `*.tmp\n!keep.tmp\n${'x'.repeat(50)}/**/*.js\n`);
        }
      }
    },
    walkBoundMs: 30_000,
    memoryBoundMb: 300,
  },
];

/** Runs the walker in a child process; returns what it found, its time and its peak RSS. */
function walkInChild(root: string): { files: string[]; skipped: Array<{ rel: string; reason: string }>; ms: number; rssMb: number; truncated?: string } {
  const script = `
    import { walkTree } from ${JSON.stringify(join(REPO, 'src/node/walk.ts'))};
    import { SKIPPED_DIRS } from ${JSON.stringify(join(REPO, 'src/node/discover.ts'))};
    import { languageOf } from ${JSON.stringify(join(REPO, 'src/core/languages.ts'))};
    const started = performance.now();
    const result = await walkTree(process.argv[1], '', { maxDirs: 50000, maxEntries: 1000000, maxDepth: 64, skipDirNames: SKIPPED_DIRS, skipHiddenDirs: true, gitignore: true, wantFile: (name) => languageOf(name) !== undefined });
    const ms = performance.now() - started;
    console.log(JSON.stringify({ files: result.files.map((f) => f.rel), skipped: result.skipped, truncated: result.truncated, ms, rssMb: process.resourceUsage().maxRSS / 1024 }));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, root], { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

for (const c of CASES) {
  test(`hostile walk: ${c.name}`, { timeout: 180_000 }, (t) => {
    const base = mkdtempSync(join(tmpdir(), 'fb-hostile-walk-'));
    const root = join(base, 'root');
    try {
      mkdirSync(root);
      writeFileSync(join(root, 'biome.json'), '{}\n');
      writeFileSync(join(root, 'ok.ts'), 'const ok=1\n');
      c.build(root, base);

      const walked = walkInChild(root);
      t.diagnostic(`walk: ${walked.files.length} files, ${walked.skipped.length} entries not followed, ${walked.ms.toFixed(0)} ms (bound ${c.walkBoundMs}), peak RSS ${walked.rssMb.toFixed(0)} MB (bound ${c.memoryBoundMb})`);
      assert.ok(walked.ms < c.walkBoundMs, `walk took ${walked.ms.toFixed(0)} ms (bound ${c.walkBoundMs})`);
      assert.ok(walked.rssMb < c.memoryBoundMb, `walk peaked at ${walked.rssMb.toFixed(0)} MB (bound ${c.memoryBoundMb})`);
      assert.ok(walked.files.includes('ok.ts'));
      for (const path of c.mustFind ?? []) assert.ok(walked.files.includes(path), `${path} found`);
      if (c.reason) assert.ok(walked.skipped.some((s) => c.reason!.test(s.reason)), `some entry skipped for ${c.reason}: ${JSON.stringify(walked.skipped.slice(0, 5))}`);
      const all = JSON.stringify(walked);
      assert.ok(!all.includes(OUTSIDE_NAME) && !all.includes('passwd'), 'no name from outside the root');
      // Every listed file is inside the root and reached without a symlinked directory.
      for (const file of walked.files) assert.ok(!file.split('/').some((s) => s === 'next' || s === 'up' || s === 'self' || s === 'loop' || s === 'out-dir'), file);

      const started = performance.now();
      const cli = spawnSync(process.execPath, [...CLI, 'format', '--check', '--json', '--no-cache', '--threads', '1', '--root', root, root], {
        cwd: REPO,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), XDG_CACHE_HOME: join(base, 'cache') },
      });
      const cliMs = performance.now() - started;
      assert.ok(cliMs < 90_000, `format took ${cliMs.toFixed(0)} ms`);
      assert.equal(cli.status, 1, `exit 1 (ok.ts would change), not an abort: ${cli.stderr.slice(-500)}`);
      const lines = cli.stdout.trim().split('\n').map((l) => JSON.parse(l) as { path?: string; status?: string; summary?: unknown });
      assert.ok(lines.some((l) => l.path === 'ok.ts' && l.status === 'would-change'), 'ok.ts is checked');
      assert.ok(lines.at(-1)?.summary, 'the run ends with its summary');
      assert.ok(!cli.stdout.includes(OUTSIDE_NAME) && !cli.stderr.includes(OUTSIDE_NAME), 'no name from outside the root is printed');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}
