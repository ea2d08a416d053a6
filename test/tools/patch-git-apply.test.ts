// Differential test: formatbox's unified-diff path against `git apply`. Patches are made by
// `git diff` (-U0 … -U5, renames with -M, added and deleted files, files without final newline,
// some CRLF files) from random, seeded edits of real text files (node_modules). Each patch is
// applied by `git apply` to a copy of its base (sometimes a base that drifted, so hunks must be
// sought, matched at their edges or refused: a line removed, inserted or repeated, whitespace added
// to a line's end, the final newline added or removed) and by formatbox in memory; the resulting
// trees must be equal, or both must refuse. A patch without any context line is applied with
// `git apply --unidiff-zero`, which is what formatbox does with such a patch (README.md).
// Batched: 250 cases per git repository, one `git diff` and up to four `git apply` runs per batch,
// on tmpfs when there is one. FORMATBOX_LONG=1: 30,000 cases. FORMATBOX_SEED=<n>: another seed.
//
// The corpus is whatever node_modules holds, so a change of dependencies changes every case (and its
// id). A failure therefore names the seed, the corpus files (paths under node_modules) and the drift,
// and leaves the case's files (base, drifted base, patch, both results) in a directory it prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyPatchText } from '../../src/tools/index.js';
import { gitEnv, skipWithoutGit } from './git.js';
import { mulberry32 as rng } from '../eval/prng.js';

const CASES = process.env.FORMATBOX_LONG ? 30_000 : 5_000;
const SEED = Number(process.env.FORMATBOX_SEED ?? 15);
const BATCH = 250;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));


/** Scratch space: tmpfs when there is one (the test writes ~10 files per case, three times). */
const SCRATCH = existsSync('/dev/shm') && statSync('/dev/shm').isDirectory() ? '/dev/shm' : tmpdir();
const GIT_ENV = gitEnv(SCRATCH);

function git(cwd: string, args: string[], input?: string): { status: number; stdout: string; stderr: string } {
  const result = spawnSync('git', ['-c', 'core.quotepath=false', '-c', 'core.autocrlf=false', '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 1 << 28, ...(input !== undefined ? { input } : {}),
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}


interface Source {
  /** Path under the repository root (node_modules/…), for failure reports. */
  path: string;
  text: string;
}

/**
 * Real text files from node_modules: UTF-8, no NUL, 200 B – 20 KB, in path order. Symbolic links are
 * not followed (no cycles, no file twice through node_modules/.bin).
 */
function corpus(limit: number): Source[] {
  const out: Source[] = [];
  const walk = (dir: string): void => {
    if (out.length >= limit) return;
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length >= limit) return;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && /\.(js|ts|md|json|css|txt)$/.test(entry.name)) {
        const size = statSync(full).size;
        if (size < 200 || size > 20_000) continue;
        const bytes = readFileSync(full);
        const text = bytes.toString('utf8');
        if (!text.includes('\0') && Buffer.from(text, 'utf8').equals(bytes)) out.push({ path: relative(ROOT, full), text });
      }
    }
  };
  walk(join(ROOT, 'node_modules'));
  return out;
}

type Tree = Map<string, string>;

/** Random line edits: replaced, removed and inserted lines; sometimes the final newline toggled. */
function edit(text: string, random: () => number, donor: string): string {
  const lines = text.split('\n');
  const donorLines = donor.split('\n');
  const edits = 1 + Math.floor(random() * 4);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (lines.length + 1));
    const remove = Math.floor(random() * 4);
    const add = Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.5 ? (donorLines[Math.floor(random() * donorLines.length)] ?? '') : (lines[Math.floor(random() * lines.length)] ?? '')));
    lines.splice(at, remove, ...add);
  }
  let out = lines.join('\n');
  if (random() < 0.15) out = out.endsWith('\n') ? out.replace(/\n+$/, '') : out + '\n';
  return out;
}

interface Case {
  dir: string;
  base: Tree;
  next: Tree;
  /** The base git apply and formatbox get (the base, or a drifted copy). */
  applied: Tree;
  /** Where each base file and the added file came from, and the drift, for failure reports. */
  origin: string[];
}

/**
 * The base the patch is applied to differs from the one it was made from: a line removed, inserted
 * (a copy of another) or repeated in place, spaces or a tab added at a line's end, or the final
 * newline added or removed. The last three probe where a match may end: git compares a line without
 * newline (`\ No newline at end of file`) as a byte prefix, so `end` also matches `end\n` or `end \n`.
 */
function drift(text: string, random: () => number): { text: string; what: string } {
  const roll = random();
  if (roll < 0.2) return text.endsWith('\n') ? { text: text.slice(0, -1), what: 'final newline removed' } : { text: text + '\n', what: 'final newline added' };
  const lines = text.split('\n');
  const at = Math.floor(random() * lines.length);
  let what: string;
  if (roll < 0.45) {
    lines.splice(at, 1);
    what = `line ${at + 1} removed`;
  } else if (roll < 0.7) {
    lines.splice(at, 0, lines[Math.floor(random() * lines.length)] ?? 'drift');
    what = `a line inserted before line ${at + 1}`;
  } else if (roll < 0.85) {
    lines.splice(at, 0, lines[at] as string);
    what = `line ${at + 1} repeated`;
  } else {
    lines[at] = (lines[at] as string).replace(/\r?$/, (cr) => (random() < 0.5 ? ' ' : '\t') + cr);
    what = `whitespace added at the end of line ${at + 1}`;
  }
  return { text: lines.join('\n'), what };
}

function makeCase(index: number, random: () => number, files: readonly Source[]): Case {
  const pick = (): Source => files[Math.floor(random() * files.length)] as Source;
  const dir = `c${String(index).padStart(5, '0')}`;
  const origin: string[] = [];
  const base: Tree = new Map();
  const count = 1 + Math.floor(random() * 3);
  for (let k = 0; k < count; k++) {
    const source = pick();
    let text = source.text;
    const crlf = random() < 0.08;
    if (crlf) text = text.replace(/\r?\n/g, '\r\n');
    base.set(`${dir}/f${k}.txt`, text);
    origin.push(`f${k}.txt = ${source.path}${crlf ? ' (as CRLF)' : ''}`);
  }
  const next: Tree = new Map(base);
  for (const [path, text] of base) {
    const roll = random();
    if (roll < 0.1) next.delete(path);
    else if (roll < 0.25) {
      // A rename, often with a small change (similar enough for -M).
      next.delete(path);
      next.set(path.replace(/f(\d)\.txt$/, 'renamed$1.txt'), random() < 0.5 ? text : edit(text, random, pick().text));
    } else next.set(path, edit(text, random, pick().text));
  }
  if (random() < 0.15) {
    const source = random() < 0.1 ? undefined : pick();
    next.set(`${dir}/added.txt`, source?.text ?? '');
    origin.push(`added.txt = ${source?.path ?? '(empty)'}`);
  }
  const applied: Tree = new Map(base);
  if (random() < 0.25) {
    const [path, text] = [...base][Math.floor(random() * base.size)] as [string, string];
    const drifted = drift(text, random);
    applied.set(path, drifted.text);
    origin.push(`drift in ${path.slice(dir.length + 1)}: ${drifted.what}`);
  }
  return { dir, base, next, applied, origin };
}

function writeTree(root: string, tree: Tree): void {
  for (const [path, text] of tree) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function readTree(root: string, dir: string): Tree {
  const out: Tree = new Map();
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs, { withFileTypes: true })) {
      const full = join(abs, name.name);
      if (name.isDirectory()) walk(full);
      else out.set(relative(root, full), readFileSync(full, 'utf8'));
    }
  };
  // git apply removes a directory it emptied.
  if (statSync(join(root, dir), { throwIfNoEntry: false })) walk(join(root, dir));
  return out;
}

/** Splits `git diff` output into each case's part (by the case directory of its paths). */
function splitByCase(diff: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of diff.split(/^(?=diff --git )/m)) {
    const names = /^diff --git a\/(c\d{5})\/\S+ b\/(c\d{5})\//.exec(part);
    if (!names) continue;
    if (names[1] !== names[2]) continue; // a rename across cases: not a case of its own
    parts.set(names[1] as string, (parts.get(names[1] as string) ?? '') + part);
  }
  return parts;
}

interface Run {
  c: Case;
  patch: string;
  zero: boolean;
  /** formatbox's tree, or undefined when it refused (why). */
  ours?: Tree;
  why?: string;
}

/** formatbox's result for a case: the tree after the patch, or why it refused. */
function oursOf(c: Case, patch: string): { ours?: Tree; why?: string } {
  try {
    const ours = new Map(c.applied);
    for (const [path, text] of applyPatchText(patch, (path) => c.applied.get(path))) {
      if (text === null) ours.delete(path);
      else ours.set(path, text);
    }
    return { ours };
  } catch (error) {
    return { why: (error as Error).message };
  }
}

/** Where failing cases are kept (created on the first failure; left for whoever reads the report). */
let keptFailures: string | undefined;

/**
 * A failure report that stands without this corpus: the seed, the corpus files the case was made
 * from, the drift, the patch; the case's files are kept on disk (base/, applied/, git/, formatbox/).
 */
function failure(r: Run, context: number, what: string, theirs?: Tree): string {
  keptFailures ??= mkdtempSync(join(tmpdir(), 'fb-gitapply-failures-'));
  const kept = join(keptFailures, r.c.dir);
  writeTree(join(kept, 'base'), r.c.base);
  writeTree(join(kept, 'applied'), r.c.applied);
  if (theirs) writeTree(join(kept, 'git'), theirs);
  if (r.ours) writeTree(join(kept, 'formatbox'), r.ours);
  writeFileSync(join(kept, 'patch.diff'), r.patch);
  const shown = r.patch.length > 4000 ? `${r.patch.slice(0, 4000)}\n[… ${r.patch.length - 4000} more characters in patch.diff]` : r.patch;
  return `${r.c.dir} (seed ${SEED}, -U${context}${r.zero ? ', --unidiff-zero' : ''}): ${what}\n${r.c.origin.join('\n')}\nfiles kept in ${kept}\n${shown}`;
}

const hasNoContext = (patch: string): boolean => !patch.split('\n').some((line, i, all) => line.startsWith(' ') && !(all[i - 1] ?? '').startsWith('diff --git'));

test(`formatbox applies ${CASES} git-diff patches exactly as git apply does (or both refuse)`, { skip: skipWithoutGit(), timeout: 20 * 60_000 }, () => {
  const files = corpus(1500);
  assert.ok(files.length >= 500, `corpus: ${files.length} files`);
  const random = rng(SEED);
  const work = mkdtempSync(join(SCRATCH, 'fb-gitapply-'));
  const stats = { cases: 0, applied: 0, refusedBoth: 0, renames: 0, noEol: 0, unidiffZero: 0, drifted: 0 };
  const failures: string[] = [];
  try {
    for (let first = 0; stats.cases < CASES; first += BATCH) {
      const context = (first / BATCH) % 6;
      const repo = join(work, `repo${first}`);
      const scratch = join(work, `scratch${first}`);
      mkdirSync(repo);
      mkdirSync(scratch);
      const cases = Array.from({ length: BATCH }, (_, k) => makeCase(first + k, random, files));
      assert.equal(git(repo, ['init', '-q']).status, 0);
      for (const c of cases) writeTree(repo, c.base);
      git(repo, ['add', '-A']);
      assert.equal(git(repo, ['commit', '-q', '-m', 'base']).status, 0);
      for (const c of cases) for (const path of c.base.keys()) rmSync(join(repo, path));
      for (const c of cases) writeTree(repo, c.next);
      git(repo, ['add', '-A']);
      const diff = git(repo, ['diff', '--cached', '-M', `-U${context}`, '--no-color', '--no-ext-diff', 'HEAD']);
      assert.equal(diff.status, 0, diff.stderr);
      const parts = splitByCase(diff.stdout);
      const runs: Run[] = [];
      for (const c of cases) {
        const patch = parts.get(c.dir);
        if (patch === undefined || stats.cases >= CASES) continue;
        stats.cases++;
        if (/^rename from /m.test(patch)) stats.renames++;
        if (patch.includes('\\ No newline at end of file')) stats.noEol++;
        if ([...c.applied].some(([path, text]) => c.base.get(path) !== text)) stats.drifted++;
        const zero = hasNoContext(patch);
        if (zero) stats.unidiffZero++;
        writeTree(scratch, c.applied);
        runs.push({ c, patch, zero, ...oursOf(c, patch) });
      }
      // One `git apply` per group (with or without --unidiff-zero; applied or refused by formatbox).
      for (const zero of [false, true]) {
        const flag = zero ? ['--unidiff-zero'] : [];
        const refused = runs.filter((r) => r.zero === zero && r.ours === undefined);
        if (refused.length > 0) {
          const check = git(scratch, ['apply', '--check', ...flag, '-'], refused.map((r) => r.patch).join(''));
          for (const r of refused) {
            if (check.stderr.includes(`${r.c.dir}/`)) stats.refusedBoth++;
            else failures.push(failure(r, context, `formatbox refused (${r.why}) but git apply --check found nothing wrong`));
          }
        }
        const applied = runs.filter((r) => r.zero === zero && r.ours !== undefined);
        if (applied.length === 0) continue;
        const together = git(scratch, ['apply', ...flag, '-'], applied.map((r) => r.patch).join(''));
        // When git refuses the group, apply each patch alone to find which.
        const alone = (r: Run) => (together.status === 0 ? together : git(scratch, ['apply', ...flag, '-'], r.patch));
        for (const r of applied) {
          const byGit = alone(r);
          if (byGit.status !== 0) {
            failures.push(failure(r, context, `git apply refused (${byGit.stderr.trim().split('\n')[0]}) but formatbox applied it`));
            continue;
          }
          const theirs = readTree(scratch, r.c.dir);
          const ours = r.ours as Tree;
          const same = theirs.size === ours.size && [...theirs].every(([path, text]) => ours.get(path) === text);
          if (same) stats.applied++;
          else failures.push(failure(r, context, 'different trees', theirs));
        }
      }
      rmSync(repo, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
      if (failures.length >= 5) break;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`# git apply differential (seed ${SEED}): ${JSON.stringify(stats)}`);
  assert.deepEqual(failures, []);
  assert.equal(stats.cases, CASES);
  assert.ok(stats.renames > 0 && stats.noEol > 0 && stats.unidiffZero > 0 && stats.refusedBoth > 0, JSON.stringify(stats));
});
