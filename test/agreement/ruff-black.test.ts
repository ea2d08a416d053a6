// Agreement: the Ruff wasm adapter (Ruff 0.16.9) against Debian's native Black (23.1) on the Python
// standard library. The two formatters share a style, but Black 23 predates Black 24's stable style
// (which Ruff follows) and Ruff's own 2025 style. So the test counts files formatted identically,
// and requires every difference to fall into a named, explained category below: each category is a
// predicate over one diff hunk (Black's lines vs Ruff's lines). A hunk no category explains fails.
//
// Normal mode: a deterministic sample (every 3rd stdlib module under 40 KB, ~46 files).
// FORMATBOX_LONG=1: all 171 top-level modules.
// Black is run once per batch on copies in a temp dir. Its output is cached in the OS temp dir,
// keyed by Black's version and the sha256 of the input, so repeated local runs skip Black's
// ~1 s/file; a cold run (CI) computes everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { structuredPatch } from 'diff';
import { ruffFormatter } from '../../src/formatters/ruff/adapter.js';

const LONG = process.env['FORMATBOX_LONG'] === '1';
const STDLIB = '/usr/lib/python3.11';

const blackVersion = spawnSync('black', ['--version'], { encoding: 'utf8' });
const blackMissing = blackVersion.status !== 0 || !existsSync(STDLIB);
const skip = blackMissing ? (process.env['CI'] ? false : 'needs Debian black and /usr/lib/python3.11') : false;
if (skip) console.log(`# skipping the Ruff/Black agreement test: ${skip}`);

// ---------------------------------------------------------------------------
// The categories. Order matters: the first predicate that holds names the hunk.

interface Hunk {
  /** Black's lines (removed in the Black → Ruff diff). */
  black: string[];
  /** Ruff's lines (added). */
  ruff: string[];
  /** True when the hunk starts inside a triple-quoted string of Black's output. */
  inTripleQuoted: boolean;
}

interface Category {
  id: string;
  why: string;
  matches(hunk: Hunk): boolean;
}

const noSpace = (text: string) => text.replace(/\s+/g, '');
/** Drops trailing commas before a closing bracket (or at the end) and all parentheses. */
const noParensOrTrailingCommas = (text: string) => text.replace(/,(?=[)\]}]|$)/g, '').replace(/[()]/g, '');
const joined = (lines: string[]) => lines.map((line) => line.trim()).join(' ');
const hasTripleQuote = (lines: string[]) => lines.some((line) => line.includes('"""') || line.includes("'''"));
/** `"a" "b"`, `'a' f'b'`, or a line ending in a string followed by a line starting with one. */
const IMPLICIT_CONCATENATION = /(["'])\s+(?<![\w])[rRbBfFuU]{0,2}["']/;

export const CATEGORIES: Category[] = [
  {
    id: 'blank-lines',
    why:
      "Black 24's stable style, which Ruff follows, changed blank lines: one blank line after the module docstring, " +
      'none before a class docstring, empty lines allowed at the start of blocks, none before `else`/`except` after a block. Black 23 predates it.',
    matches: (h) => [...h.black, ...h.ruff].every((line) => line.trim() === ''),
  },
  {
    id: 'trailing-comma-after-last-parameter',
    why:
      'Ruff adds the magic trailing comma to the last parameter of a split signature or call even after `*args`, `**kwargs` or keyword-only ' +
      "parameters. Black 23 adds it there only when it infers from the file that the target is Python 3.6+ (it is a syntax error before).",
    matches: (h) => h.black.length === 1 && h.ruff.length === 1 && h.ruff[0] === `${h.black[0]},`,
  },
  {
    id: 'hex-escape-case',
    why: 'Black 24 and Ruff lowercase hex digits in escapes (`\\xA6` → `\\xa6`); Black 23 keeps them as written.',
    matches: (h) =>
      h.black.join('\n').replace(/\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\\N\{[^}]*\}/g, (escape) => escape.toLowerCase()) ===
      h.ruff.join('\n'),
  },
  {
    id: 'implicit-string-concatenation',
    why:
      "Ruff's 2025 style joins implicitly concatenated strings (`\"a \" \"b\"` → `\"a b\"`) when the result fits, and otherwise puts each part " +
      'on its own line; Black 23 keeps the parts as written.',
    matches: (h) => {
      if (!IMPLICIT_CONCATENATION.test(joined(h.black)) && !IMPLICIT_CONCATENATION.test(joined(h.ruff))) return false;
      // Same tokens once string prefixes, quote kinds, the boundaries between parts, parentheses and trailing commas are ignored.
      const normal = (lines: string[]) =>
        noParensOrTrailingCommas(
          noSpace(joined(lines).replace(/(?<!\w)[rRbBfFuU]{1,2}(?=["'])/g, ''))
            .replace(/'/g, '"')
            .replace(/""/g, ''),
        );
      return normal(h.black) === normal(h.ruff);
    },
  },
  {
    id: 'f-string-quotes',
    why:
      "Ruff's 2025 style formats f-strings: it normalises the outer quotes to double quotes and flips the quotes inside replacement fields; " +
      'Black 23 leaves f-strings untouched.',
    matches: (h) => /(?<!\w)[rR]?[fF][rR]?["']/.test(h.black.join('\n')) && noSpace(h.black.join('')).replace(/'/g, '"') === noSpace(h.ruff.join('')).replace(/'/g, '"'),
  },
  {
    id: 'comment-placement',
    why:
      "Black 23 moves the trailing comments of a split boolean/binary expression onto other operands (fixed in Black 24); Ruff keeps each comment " +
      'with its operand and may parenthesise differently around them.',
    matches: (h) => {
      const code = (lines: string[]) => noParensOrTrailingCommas(noSpace(lines.map((line) => line.replace(/\s+#[^"']*$/, '')).join('')));
      const comments = (lines: string[]) =>
        lines
          .flatMap((line) => line.match(/#[^"']*$/)?.[0].split(/\s+(?=#)/) ?? [])
          .map((comment) => comment.trim())
          .sort()
          .join('\n');
      return comments(h.black) !== '' && code(h.black) === code(h.ruff) && comments(h.black) === comments(h.ruff);
    },
  },
  {
    id: 'docstring-normalisation',
    why:
      'Ruff normalises docstrings: it re-indents continuation lines to the docstring\'s indentation, strips the space after the opening quotes ' +
      'and puts the closing quotes of a one-line docstring on its line. Black 23 does less of this (module docstrings keep their indentation).',
    matches: (h) =>
      noSpace(h.black.join('')) === noSpace(h.ruff.join('')) &&
      (h.inTripleQuoted || h.black.some((line) => /^\s*[rRuU]?("""|''')/.test(line))) &&
      !h.black.some((line) => /\(\s*$/.test(line)),
  },
  {
    id: 'multiline-string-layout',
    why:
      'Ruff keeps a multiline (triple-quoted) string that is the only argument, or the start of a method chain, hugged by the brackets ' +
      '(`print("""…""")`, `"""…""".format(x)`) where Black 23 splits it onto its own lines.',
    matches: (h) =>
      (hasTripleQuote(h.black) || hasTripleQuote(h.ruff)) && noParensOrTrailingCommas(noSpace(h.black.join(''))) === noParensOrTrailingCommas(noSpace(h.ruff.join(''))),
  },
  {
    id: 'line-splitting',
    why:
      'Same code, split or parenthesised differently: Ruff (like Black 24) prefers splitting the right-hand side of an assignment, ' +
      'parenthesises a long assert message and groups `with` items in parentheses where the target version allows it, hugs a sole ' +
      'return value or lambda body, and drops redundant parentheses; Black 23 splits the left-hand side or the first bracket.',
    matches: (h) => noParensOrTrailingCommas(noSpace(h.black.join(''))) === noParensOrTrailingCommas(noSpace(h.ruff.join(''))),
  },
];

/** Names every hunk of the Black → Ruff diff; adjacent unexplained hunks (≤ 2 lines apart) are retried as one. */
export function classify(black: string, ruff: string): { counts: Map<string, number>; unexplained: string[] } {
  const counts = new Map<string, number>();
  const unexplained: string[] = [];
  const blackLines = black.split('\n');
  const ruffLines = ruff.split('\n');
  // jsdiff 9 gives an empty side the line number it is inserted before (1-based), like any other start.
  const hunks = structuredPatch('black', 'ruff', black, ruff, '', '', { context: 0 }).hunks;
  const tripleQuotesBefore = (line: number) => (blackLines.slice(0, line - 1).join('\n').match(/"""|'''/g) ?? []).length;
  const categorise = (oldStart: number, oldEnd: number, newStart: number, newEnd: number) => {
    const hunk: Hunk = {
      black: blackLines.slice(oldStart - 1, oldEnd - 1),
      ruff: ruffLines.slice(newStart - 1, newEnd - 1),
      inTripleQuoted: tripleQuotesBefore(oldStart) % 2 === 1,
    };
    return { hunk, category: CATEGORIES.find((c) => c.matches(hunk)) };
  };

  let index = 0;
  while (index < hunks.length) {
    const first = hunks[index]!;
    let last = index;
    let result = categorise(first.oldStart, first.oldStart + first.oldLines, first.newStart, first.newStart + first.newLines);
    // Retry a hunk that no category explains together with the next ones (a docstring's first line
    // and its closing quotes are often two hunks).
    while (!result.category && last + 1 < hunks.length && hunks[last + 1]!.oldStart - (hunks[last]!.oldStart + hunks[last]!.oldLines) <= 2) {
      last++;
      const end = hunks[last]!;
      result = categorise(first.oldStart, end.oldStart + end.oldLines, first.newStart, end.newStart + end.newLines);
    }
    if (result.category) {
      counts.set(result.category.id, (counts.get(result.category.id) ?? 0) + 1);
      index = last + 1;
    } else {
      const single = categorise(first.oldStart, first.oldStart + first.oldLines, first.newStart, first.newStart + first.newLines).hunk;
      unexplained.push(`@@ black line ${first.oldStart}\n${single.black.map((l) => `-${l}`).join('\n')}\n${single.ruff.map((l) => `+${l}`).join('\n')}`);
      index++;
    }
  }
  return { counts, unexplained };
}

// ---------------------------------------------------------------------------

function sample(): string[] {
  const modules = readdirSync(STDLIB)
    .filter((name) => name.endsWith('.py'))
    .sort()
    .map((name) => join(STDLIB, name));
  if (LONG) return modules;
  return modules.filter((file) => statSync(file).size < 40_000).filter((_, index) => index % 3 === 0);
}

/** Black's output for each source (Black's defaults: line length 88, target versions inferred). */
function blackFormatAll(sources: string[]): string[] {
  const version = blackVersion.stdout.split('\n')[0]!.replace(/[^\w.]+/g, '_');
  const cacheDir = join(tmpdir(), 'formatbox-black-cache', version);
  mkdirSync(cacheDir, { recursive: true });
  const keys = sources.map((source) => createHash('sha256').update(source).digest('hex'));
  const missing = keys.map((key, index) => (existsSync(join(cacheDir, `${key}.py`)) ? -1 : index)).filter((index) => index >= 0);
  if (missing.length > 0) {
    const dir = mkdtempSync(join(tmpdir(), 'formatbox-black-'));
    try {
      for (const index of missing) writeFileSync(join(dir, `f${index}.py`), sources[index]!);
      // --fast only skips Black's own AST-equivalence re-check; the output is the same.
      const run = spawnSync('black', ['-q', '--fast', '--line-length', '88', dir], { encoding: 'utf8', cwd: dir });
      assert.equal(run.status, 0, run.stderr);
      for (const index of missing) writeFileSync(join(cacheDir, `${keys[index]}.py`), readFileSync(join(dir, `f${index}.py`), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return keys.map((key) => readFileSync(join(cacheDir, `${key}.py`), 'utf8'));
}

test('the classifier leaves a real difference unexplained', () => {
  // A renamed variable, a changed operator and a reordered argument are not style.
  assert.equal(classify('x = a + b\n', 'x = a - b\n').unexplained.length, 1);
  assert.equal(classify('f(a, b)\n', 'f(b, a)\n').unexplained.length, 1);
  assert.equal(classify('s = "a" "b"\n', 's = "ab "\n').unexplained.length, 1);
  assert.equal(classify('def f():\n    """Doc."""\n', 'def f():\n    """Doc!"""\n').unexplained.length, 1);
  assert.deepEqual([...classify('x = 1\n\n\n\ny = 2\n', 'x = 1\n\n\ny = 2\n').counts], [['blank-lines', 1]]);
  assert.deepEqual([...classify('raise E(\n    "a " "b"\n)\n', 'raise E("a b")\n').counts], [['implicit-string-concatenation', 1]]);
});

test(`Ruff wasm agrees with Black on the Python stdlib, up to named style differences (${LONG ? 'all modules' : 'sample'})`, { skip, timeout: 900_000 }, async () => {
  const files = sample();
  const sources = files.map((file) => readFileSync(file, 'utf8'));
  const blacks = blackFormatAll(sources);
  const ruff = ruffFormatter({ wasm: async () => readFileSync('node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm') });

  let identical = 0;
  const hunksByCategory = new Map<string, number>();
  const filesByCategory = new Map<string, number>();
  const unexplained: string[] = [];
  for (let index = 0; index < files.length; index++) {
    const result = await ruff.format({ path: 'module.py', language: 'python', text: sources[index]!, settings: {} });
    assert.equal(result.kind, 'ok', `${files[index]}: ${JSON.stringify(result)}`);
    const ours = (result as { text: string }).text;
    if (ours === blacks[index]) {
      identical++;
      continue;
    }
    const { counts, unexplained: left } = classify(blacks[index]!, ours);
    for (const [id, count] of counts) {
      hunksByCategory.set(id, (hunksByCategory.get(id) ?? 0) + count);
      filesByCategory.set(id, (filesByCategory.get(id) ?? 0) + 1);
    }
    unexplained.push(...left.map((hunk) => `${files[index]}\n${hunk}`));
  }

  const version = blackVersion.stdout.split('\n')[0];
  console.log(`# Ruff ${(await ruff.info()).version} (wasm) vs ${version}: ${identical}/${files.length} stdlib modules identical; the other ${files.length - identical} differ only in:`);
  for (const category of CATEGORIES) {
    const hunks = hunksByCategory.get(category.id) ?? 0;
    if (hunks > 0) console.log(`#   ${category.id}: ${hunks} hunks in ${filesByCategory.get(category.id)} files`);
  }
  if (unexplained.length > 0) console.log(`# unexplained hunks:\n${unexplained.slice(0, 20).join('\n')}`);
  assert.deepEqual(unexplained, [], 'every difference must fall into a named category');
  // Measured: 80/171 modules identical over all of them. A drop means a new kind of difference.
  assert.ok(identical >= files.length * 0.35, `only ${identical}/${files.length} identical`);
});
