// Real projects whose Prettier setup is code (plugins, JS/TS configs, shared configs that are
// modules), built from real registry packages at pinned versions (setups.ts, corpus.ts), compared
// file by file with each project's own `prettier --write`: through an edit (runtime.edit) and
// project-wide (`formatbox format --write`). In untrusted mode formatbox must run none of that code
// in its own process; these tests pin down what it does with each file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import type { Receipt } from '../../src/core/types.js';
import { makeProject, prettierWrite, projectCache, projectsBase, type Project, type Reference } from './corpus.js';
import { PROJECT_SETUPS } from './setups.js';

const REPO = resolve('.');

/** Registry access is the one thing outside CI that may be missing: then the suite says so and skips. */
function registrySkip(): string | undefined {
  if (process.env.CI) return undefined;
  const run = spawnSync('npm', ['ping'], { encoding: 'utf8', timeout: 30_000 });
  return run.status === 0 ? undefined : `the npm registry is not reachable here (${(run.stderr || run.stdout).trim().split('\n')[0]})`;
}
const skip = registrySkip();

/** A marker line the edit removes: the prior file is W with this first, so the edit's region is the file's head. */
function markerFor(path: string): string | undefined {
  if (/\.(ts|tsx|js|mjs|cjs)$/.test(path)) return '// formatbox-corpus-marker\n';
  if (path.endsWith('.css')) return '/* formatbox-corpus-marker */\n';
  return undefined; // JSON has no comments: written whole
}

interface Outcome {
  identical: string[];
  refused: Map<string, string>;
  /** Path → what formatbox did instead (its receipt line), for every file neither identical nor refused. */
  other: Map<string, string>;
  /** Files left other than the edit made them (an edit must stand even when formatting is refused). */
  lost: string[];
  /** Receipts whose formatter ran in the sandbox (`via: 'sandbox'`). */
  sandboxed: number;
  ms?: number;
}

type Summary = Pick<Receipt, 'status' | 'line' | 'reason' | 'formatter'>;

function judge(project: Project, reference: Reference, receipts: Map<string, Summary>, ms?: number): Outcome {
  const outcome: Outcome = { identical: [], refused: new Map(), other: new Map(), lost: [], sandboxed: 0, ...(ms !== undefined ? { ms } : {}) };
  for (const path of project.files) {
    const receipt = receipts.get(path);
    if (receipt?.formatter?.via === 'sandbox') outcome.sandboxed++;
    const onDisk = readFileSync(join(project.root, path), 'utf8');
    if (receipt?.status === 'refused') {
      outcome.refused.set(path, receipt.reason ?? receipt.line);
      if (onDisk !== project.before.get(path)) outcome.lost.push(path);
    } else if (reference.outputs.has(path) && onDisk === reference.outputs.get(path)) outcome.identical.push(path);
    else outcome.other.set(path, receipt?.line ?? 'no receipt');
  }
  return outcome;
}

async function throughEdits(project: Project, projectCode?: 'refuse'): Promise<{ receipts: Map<string, Receipt>; ms: number }> {
  const receipts = new Map<string, Receipt>();
  for (const path of project.files) {
    const written = project.before.get(path)!;
    const marker = markerFor(path);
    if (marker) writeFileSync(join(project.root, path), marker + written);
  }
  const runtime = createRuntime({ root: project.root, limits: { timeoutMs: 60_000 }, ...(projectCode ? { projectCode } : {}) });
  const started = Date.now();
  try {
    for (const path of project.files) {
      const marker = markerFor(path);
      const receipt = marker ? await runtime.edit({ path, oldText: marker, newText: '' }) : await runtime.write({ path, content: project.before.get(path)! });
      receipts.set(path, receipt);
    }
  } finally {
    await runtime.close();
  }
  return { receipts, ms: Date.now() - started };
}

function projectWide(project: Project, base: string, extraEnv: NodeJS.ProcessEnv = {}): { code: number; receipts: Map<string, Summary>; stderr: string; ms: number } {
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), 'format', '--write', '--json', '--no-cache', '--root', project.root, ...project.files.map((path) => join(project.root, path))], {
    cwd: REPO, // where tsx resolves (a project may hold its own tsx)
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(base, 'no-config'), FORMATBOX_NO_DAEMON: '1', ...extraEnv },
  });
  const ms = Date.now() - started;
  const receipts = new Map<string, Summary>();
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as { path?: string; status?: Receipt['status']; line?: string; reason?: string; formatter?: Receipt['formatter'] };
    if (parsed.path && parsed.status) receipts.set(parsed.path, { status: parsed.status, line: parsed.line ?? '', ...(parsed.reason ? { reason: parsed.reason } : {}), ...(parsed.formatter ? { formatter: parsed.formatter } : {}) });
  }
  return { code: run.status ?? -1, receipts, stderr: run.stderr, ms };
}

/** What a refusal must name: the code formatbox would not run. */
const REFUSAL_NAMES = /plugin|is code|a module|shared config/;

const references = new Map<string, Reference>();

for (const setup of PROJECT_SETUPS) {
  test(`real project ${setup.id}: ${setup.about}`, { skip, timeout: 900_000 }, async () => {
    const base = projectsBase(`fb-projects-${setup.id}-`);
    try {
      const theirs = makeProject(setup, base, 'theirs');
      const reference = prettierWrite(setup, theirs);
      references.set(setup.id, reference);
      const changed = theirs.files.filter((path) => reference.outputs.get(path) !== theirs.before.get(path));
      assert.ok(theirs.files.length >= 20, `${setup.id}: ${theirs.files.length} files to format`);
      assert.ok(changed.length >= theirs.files.length / 2, `${setup.id}: the project's Prettier changed ${changed.length} of ${theirs.files.length} files`);

      const viaEdit = makeProject(setup, base, 'edit');
      const edited = await throughEdits(viaEdit);
      const edits = judge(viaEdit, reference, edited.receipts, edited.ms);
      const wide = makeProject(setup, base, 'wide');
      const run = projectWide(wide, base);
      const whole = judge(wide, reference, run.receipts, run.ms);
      console.log(`  # ${setup.id}: ${theirs.files.length} files, prettier --write changed ${changed.length}, rejected ${reference.rejected.size} (${reference.ms} ms); edits: ${edits.identical.length} identical (${edits.sandboxed} sandboxed, ${edits.ms} ms), ${edits.refused.size} refused; format: ${whole.identical.length} identical (${whole.sandboxed} sandboxed, ${run.ms} ms), ${whole.refused.size} refused, exit ${run.code}`);

      // In untrusted mode with an OS sandbox: the project's own Prettier, config and plugins run sandboxed, and every file is identical.
      for (const [how, outcome] of [['edit', edits], ['format', whole]] as const) {
        assert.deepEqual([...outcome.other], [], `${setup.id} (${how}): not identical to the project's prettier --write`);
        assert.deepEqual([...outcome.refused], [], `${setup.id} (${how}): refused`);
        assert.equal(outcome.identical.length, theirs.files.length, `${setup.id} (${how}): identical`);
        // Files whose nearest config is data (a package.json of their own with a "prettier" key) need no project code.
        assert.ok(outcome.sandboxed >= theirs.files.length / 2, `${setup.id} (${how}): ${outcome.sandboxed} formatted in the sandbox`);
      }
      assert.equal(run.code, 0, `${setup.id}: format --write exits 0\n${run.stderr.slice(0, 1000)}`);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}

test('plugin order matters: sort-imports then Tailwind differs from Tailwind then sort-imports', { skip }, (t) => {
  const combined = references.get('combined');
  const reversed = references.get('combined-reversed');
  if (!combined || !reversed) return t.skip('the combined setups did not run in this process');
  const differing = [...combined.outputs.keys()].filter((path) => combined.outputs.get(path) !== reversed.outputs.get(path));
  assert.ok(differing.length > 0, 'the two orders give the same bytes on every file');
  console.log(`  # plugin order: ${differing.length} of ${combined.outputs.size} files differ`);
});

test("projectCode: 'refuse': every file of a setup that is code refused, naming the code, and each edit stands as written", { skip, timeout: 900_000 }, async () => {
  const setup = PROJECT_SETUPS.find((s) => s.id === 'cjs-shared-config')!;
  const base = projectsBase('fb-projects-refuse-');
  try {
    const project = makeProject(setup, base, 'refuse');
    const reference = prettierWrite(setup, makeProject(setup, base, 'theirs'));
    const outcome = judge(project, reference, (await throughEdits(project, 'refuse')).receipts);
    assert.deepEqual([...outcome.other], []);
    assert.deepEqual(outcome.lost, []);
    // The files whose nearest config is data (a package.json with its own "prettier" key) are formatted, identically.
    assert.equal(outcome.refused.size + outcome.identical.length, project.files.length);
    assert.ok(outcome.refused.size >= project.files.length / 2, `${outcome.refused.size} refused`);
    for (const [path, reason] of outcome.refused) assert.match(reason, REFUSAL_NAMES, path);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

// A fresh clone: package.json, package-lock.json and the sources, no node_modules. The toolchain the
// lockfile names is fetched into the store (a cache of the test's own, kept between runs) on first use.
for (const id of ['tailwind-v3', 'esm-shared-config', 'cjs-shared-config']) {
  const setup = PROJECT_SETUPS.find((s) => s.id === id)!;
  test(`fresh clone ${id}: the lockfile's toolchain fetched, sandboxed, identical to the installed project's prettier --write`, { skip, timeout: 900_000 }, async () => {
    const base = projectsBase(`fb-projects-fresh-${id}-`);
    const cacheHome = join(projectCache(), 'xdg-cache');
    const savedCacheHome = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheHome;
    try {
      const reference = prettierWrite(setup, makeProject(setup, base, 'theirs'));
      const viaEdit = makeProject(setup, base, 'edit', { withModules: false });
      const edited = await throughEdits(viaEdit);
      const edits = judge(viaEdit, reference, edited.receipts, edited.ms);
      const wide = makeProject(setup, base, 'wide', { withModules: false });
      const run = projectWide(wide, base, { XDG_CACHE_HOME: cacheHome });
      const whole = judge(wide, reference, run.receipts, run.ms);
      console.log(`  # fresh clone ${id}: edits ${edits.identical.length}/${viaEdit.files.length} identical (${edits.sandboxed} sandboxed, ${edits.ms} ms); format ${whole.identical.length}/${wide.files.length} identical (${run.ms} ms), exit ${run.code}`);
      for (const [how, outcome, project] of [['edit', edits, viaEdit], ['format', whole, wide]] as const) {
        assert.deepEqual([...outcome.refused], [], `${id} (${how}): refused`);
        assert.deepEqual([...outcome.other], [], `${id} (${how}): not identical`);
        assert.ok(outcome.sandboxed >= project.files.length / 2, `${id} (${how}): ${outcome.sandboxed} sandboxed`);
        assert.equal(existsSync(join(project.root, 'node_modules')), false, 'nothing installed into the project');
      }
      assert.equal(run.code, 0, run.stderr.slice(0, 1000));
    } finally {
      if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = savedCacheHome;
      rmSync(base, { recursive: true, force: true });
    }
  });
}
