// Property tests of the reconciliation invariant with real formatters on real code:
// Biome and Prettier on TypeScript (rxjs sources, typescript lib .d.ts), Ruff on the Python stdlib,
// gofmt on the Go stdlib, dprint's TOML plugin on TOML files found on this machine.
//
// Random edits (edit, multiEdit, replaceAll, write), half of them deliberately unformatted, on files
// that are formatted and on files that are not, with LF, CRLF, mixed endings and BOMs. Every receipt
// must satisfy: replay(P, receipt.input), then receipt.diff, equals the bytes on disk.
//
// Case counts: 10,000 by default (2,500 per language); FORMATBOX_LONG=1 runs 100,000;
// FORMATBOX_PROPERTY_RUNS=<n> sets the total (e.g. small while iterating). FORMATBOX_SEED fixes the seed.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEdit, type PatchReceipt } from '../../src/reconcile/index.js';
import { applyInput, applyPatchText, occurrences, renderFilePatch, toolKind, wrapPatch, type RenderRegion } from '../../src/tools/index.js';
import { applyUnifiedDiff } from '../../src/core/diff.js';
import type { EditInput, MultiEditInput, Receipt, SingleFileInput } from '../../src/core/types.js';
import { loadCorpus, type Language, type Unit } from './corpus.js';
import { formatWith } from '../reconcile/real-formatters.js';

const TOTAL = Number(process.env.FORMATBOX_PROPERTY_RUNS ?? (process.env.FORMATBOX_LONG === '1' ? 100_000 : 10_000));
const PER_LANGUAGE = Math.ceil((TOTAL * 0.95) / 4);
/** Multi-file patches (each formats 1–3 files): the remaining 5% of the cases. */
const PATCHES = Math.max(10, Math.ceil(TOTAL * 0.05));
const SEED = process.env.FORMATBOX_SEED ? Number(process.env.FORMATBOX_SEED) : undefined;

const corpus = loadCorpus(200);
const formatters = {
  biome: formatWith('biome'),
  prettier: formatWith('prettier'),
  ruff: formatWith('ruff'),
  gofmt: formatWith('gofmt'),
  toml: formatWith('toml'),
};

// ---------------------------------------------------------------------------
// Generating P and inputs from fast-check's numbers

interface EditSeed {
  pos: number;
  len: number;
  wholeLines: boolean;
  change: number;
  unformatted: boolean;
  noise: number;
}

interface CaseSeed {
  unit: number;
  variant: 'raw' | 'formatted' | 'mangled';
  eol: 'lf' | 'crlf' | 'mixed';
  bom: boolean;
  tool: 'edit' | 'multiEdit' | 'replaceAll' | 'write';
  edits: EditSeed[];
  lfInCrlf: number;
  prettier: boolean;
}

const editSeed: fc.Arbitrary<EditSeed> = fc.record({
  pos: fc.nat(),
  len: fc.nat({ max: 120 }),
  wholeLines: fc.boolean(),
  change: fc.nat({ max: 9 }),
  unformatted: fc.boolean(), // half of the edits are deliberately unformatted
  noise: fc.nat(),
});

const caseSeed: fc.Arbitrary<CaseSeed> = fc.record({
  unit: fc.nat(),
  variant: fc.constantFrom('raw', 'raw', 'formatted', 'formatted', 'mangled'),
  eol: fc.constantFrom('lf', 'lf', 'lf', 'lf', 'lf', 'lf', 'crlf', 'crlf', 'mixed', 'mixed'),
  bom: fc.nat({ max: 9 }).map((n) => n === 0),
  tool: fc.constantFrom('edit', 'edit', 'edit', 'edit', 'multiEdit', 'multiEdit', 'replaceAll', 'write'),
  edits: fc.array(editSeed, { minLength: 1, maxLength: 3 }),
  lfInCrlf: fc.nat({ max: 3 }),
  prettier: fc.nat({ max: 4 }).map((n) => n === 0),
});

/** Formatting noise that keeps the code meaning (and Python's indentation) intact. */
function unformat(text: string, language: Language, noise: number): string {
  const ops: Array<(line: string) => string> = [
    (l) => l.replace(/, /g, ','),
    (l) => l.replace(/ = /g, '='),
    (l) => l.replace(/,(?=\S)/g, ',  '),
    (l) => l.replace(/'([^'"\\\n]*)'/g, '"$1"'),
    (l) => l.replace(/"([^'"\\\n]*)"/g, "'$1'"),
    (l) => l.replace(/\(/g, '( ').replace(/\)/g, ' )'),
    (l) => l.replace(/;$/g, ''),
    (l) => l.replace(/ ([+*<>-]) /g, '$1'),
  ];
  const pick = ops.filter((_, i) => (noise >> i) & 1);
  const chosen = pick.length > 0 ? pick : [ops[noise % ops.length] as (line: string) => string];
  return text
    .split('\n')
    .map((line) => {
      const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
      let body = line.slice(indent.length);
      for (const op of chosen) body = op(body);
      // Go and TS do not care about indentation: lose it sometimes.
      const keepIndent = language === 'python' || language === 'toml' || noise % 3 !== 0;
      return (keepIndent ? indent : '') + body;
    })
    .join('\n');
}

/** A change an agent would make to `oldText`. */
function change(oldText: string, seed: EditSeed, unit: string): string {
  switch (seed.change) {
    case 0:
    case 1: {
      const word = /\b[A-Za-z_]\w{2,}\b/.exec(oldText);
      return word ? oldText.slice(0, word.index) + word[0] + 'Q' + oldText.slice(word.index + word[0].length) : oldText + ' ';
    }
    case 2:
      return '';
    case 3: {
      const nl = oldText.indexOf('\n');
      return nl >= 0 ? oldText.slice(0, nl + 1) + oldText : oldText + oldText;
    }
    case 4: {
      const lines = unit.split('\n');
      const line = lines[seed.noise % lines.length] ?? '';
      return oldText.endsWith('\n') ? oldText + line + '\n' : oldText + '\n' + line;
    }
    default:
      return oldText;
  }
}

function isWord(c: string | undefined): boolean {
  return c !== undefined && /\w/.test(c);
}

/** A unique oldText around the seed's position (or undefined). */
function pickOldText(prior: string, seed: EditSeed): { start: number; end: number } | undefined {
  if (prior.length === 0) return undefined;
  let a = seed.pos % prior.length;
  let b = Math.min(prior.length, a + 1 + seed.len);
  if (seed.wholeLines) {
    a = prior.lastIndexOf('\n', a - 1) + 1;
    const nl = prior.indexOf('\n', b);
    b = nl === -1 ? prior.length : nl;
  } else {
    while (a > 0 && isWord(prior[a - 1]) && isWord(prior[a])) a--;
    while (b < prior.length && isWord(prior[b - 1]) && isWord(prior[b])) b++;
  }
  if (b <= a) return undefined;
  for (let step = 0; step < 400 && occurrences(prior, prior.slice(a, b), 2).length > 1; step++) {
    if (b < prior.length) b++;
    else if (a > 0) a--;
    else return undefined;
  }
  return occurrences(prior, prior.slice(a, b), 2).length === 1 ? { start: a, end: b } : undefined;
}

function withEol(text: string, eol: CaseSeed['eol']): string {
  if (eol === 'lf') return text;
  if (eol === 'crlf') return text.replace(/\n/g, '\r\n');
  let i = 0;
  return text.replace(/\n/g, () => (i++ % 2 === 0 ? '\r\n' : '\n'));
}

const formattedCache = new Map<unknown, Map<string, string>>();

/** The unit as the formatter would write it (cached per formatter). */
async function formattedText(unit: Unit, format: ReturnType<typeof formatWith>): Promise<string> {
  let cache = formattedCache.get(format);
  if (!cache) formattedCache.set(format, (cache = new Map()));
  let text = cache.get(unit.source);
  if (text === undefined) {
    const outcome = await format(unit.path, unit.text);
    text = outcome.status === 'formatted' ? outcome.content : unit.text;
    cache.set(unit.source, text);
  }
  return text;
}

function buildInput(prior: string, seed: CaseSeed, unit: Unit): SingleFileInput {
  const lf = (s: string): string => s.replace(/\r\n/g, '\n');
  const makeEdit = (es: EditSeed, range: { start: number; end: number }): EditInput => {
    const oldText = prior.slice(range.start, range.end);
    let newText = change(oldText, es, unit.text);
    if (es.unformatted) newText = unformat(newText, unit.language, es.noise);
    // Agents often send LF in a CRLF file.
    if (seed.eol !== 'lf' && seed.lfInCrlf === 0) return { oldText: lf(oldText), newText: lf(newText) };
    if (seed.eol !== 'lf' && seed.lfInCrlf === 1) return { oldText, newText: lf(newText) };
    return { oldText, newText };
  };
  if (seed.tool === 'write') {
    const es = seed.edits[0] as EditSeed;
    return { content: es.unformatted ? unformat(prior, unit.language, es.noise) : change(prior, es, unit.text) };
  }
  if (seed.tool === 'replaceAll') {
    const words = [...new Set(prior.match(/\b[A-Za-z_]\w{2,}\b/g) ?? [])].filter((w) => occurrences(prior, w).length > 1);
    const es = seed.edits[0] as EditSeed;
    const word = words[es.pos % Math.max(1, words.length)];
    if (word) {
      const newText = es.unformatted ? [` ${word}X`, `${word}X `, `(${word}X)`][es.noise % 3] as string : `${word}X`;
      return { oldText: word, newText, replaceAll: true };
    }
  }
  const ranges: Array<{ start: number; end: number; es: EditSeed }> = [];
  const count = seed.tool === 'multiEdit' ? seed.edits.length : 1;
  for (const es of seed.edits.slice(0, count)) {
    const range = pickOldText(prior, es);
    if (range && ranges.every((r) => range.end <= r.start || range.start >= r.end)) ranges.push({ ...range, es });
  }
  if (ranges.length === 0) return { content: prior + '\n' };
  const edits = ranges.map((r) => makeEdit(r.es, r));
  if (seed.tool === 'multiEdit') {
    const input: MultiEditInput = { edits };
    try {
      applyInput(prior, input);
      return input;
    } catch {
      // A later oldText may become ambiguous after an earlier edit: keep the first edit only.
    }
  }
  const single = edits[0] as EditInput;
  try {
    applyInput(prior, single);
    return single;
  } catch {
    return { content: prior };
  }
}

// ---------------------------------------------------------------------------
// Checking receipts

interface Stats {
  cases: number;
  status: Record<string, number>;
  tools: Record<string, number>;
  reconciled: number;
  noDiff: number;
  rewritten: number;
  unformattedEdits: number;
  formattedPrior: number;
  formattedPriorNoDiff: number;
  reasons: Record<string, number>;
}

const allStats: Record<string, Stats> = {};

function checkReceipt(prior: string, input: SingleFileInput, written: string, receipt: Receipt, stats: Stats): void {
  // The invariant.
  const replayed = applyInput(prior, receipt.input as SingleFileInput);
  const final = receipt.diff ? applyUnifiedDiff(replayed, receipt.diff) : replayed;
  assert.equal(final, receipt.content, 'replay(P, input) + diff must equal F');
  // F is W unless the formatter changed it.
  if (receipt.status !== 'formatted') assert.equal(receipt.content, written);
  // The rewritten input keeps the tool's shape.
  assert.equal(toolKind(receipt.input), toolKind(input));
  if ('edits' in input) {
    const edits = (receipt.input as MultiEditInput).edits;
    assert.equal(edits.length, input.edits.length);
    edits.forEach((e, i) => assert.equal(e.replaceAll, input.edits[i]?.replaceAll));
  } else if ('oldText' in input) assert.equal((receipt.input as EditInput).replaceAll, input.replaceAll);
  else assert.equal(receipt.diff, undefined, 'a write carries F itself');
  // The BOM survives; a formatted file has the formatter's own line ending on every line (LF for
  // Biome, Prettier, gofmt and dprint by default; Ruff's `auto` keeps W's first one).
  if (written.startsWith('\uFEFF')) assert.ok(receipt.content.startsWith('\uFEFF'), 'BOM kept');
  if (receipt.status === 'formatted') {
    const crlf = receipt.content.includes('\r\n');
    const lf = /(^|[^\r])\n/.test(receipt.content);
    assert.ok(!(crlf && lf), 'one line ending throughout F');
  }
  const bytes = Buffer.from(receipt.content, 'utf8');
  assert.equal(receipt.record.bytes, bytes.length);
  assert.equal(receipt.record.sha256, createHash('sha256').update(bytes).digest('hex'));

  stats.cases++;
  stats.status[receipt.status] = (stats.status[receipt.status] ?? 0) + 1;
  const tool = 'oldText' in input && input.replaceAll ? 'replaceAll' : toolKind(input);
  stats.tools[tool] = (stats.tools[tool] ?? 0) + 1;
  if (receipt.reconciled) stats.reconciled++;
  else if (receipt.reason) {
    // Group reasons: drop the edit numbers and the replay detail.
    for (const part of receipt.reason.replace(/ \([^)]*\)/g, '').split('; ')) {
      const key = part.replace(/^edits? [\d and]+: /, '');
      stats.reasons[key] = (stats.reasons[key] ?? 0) + 1;
    }
  }
  if (!receipt.diff) stats.noDiff++;
  if (JSON.stringify(receipt.input) !== JSON.stringify(input)) stats.rewritten++;
}

function propertyFor(language: Language, pick: (seed: CaseSeed) => ReturnType<typeof formatWith>) {
  return async () => {
    const units = corpus[language];
    assert.ok(units.length >= 40, `corpus for ${language}: ${units.length} units`);
    const stats: Stats = { cases: 0, status: {}, tools: {}, reconciled: 0, noDiff: 0, rewritten: 0, unformattedEdits: 0, formattedPrior: 0, formattedPriorNoDiff: 0, reasons: {} };
    allStats[language] = stats;
    await fc.assert(
      fc.asyncProperty(caseSeed, async (seed) => {
        const unit = units[seed.unit % units.length] as Unit;
        const format = pick(seed);
        let base = unit.text;
        if (seed.variant === 'formatted') base = await formattedText(unit, format);
        else if (seed.variant === 'mangled') base = unformat(unit.text, language, (seed.edits[0] as EditSeed).noise);
        const prior = (seed.bom ? '\uFEFF' : '') + withEol(base, seed.eol);
        const input = buildInput(prior, seed, unit);
        const written = applyInput(prior, input);
        const receipt = await afterEdit({ format }, { path: unit.path, prior, input });
        checkReceipt(prior, input, written, receipt, stats);
        if (seed.variant === 'formatted' && seed.eol !== 'mixed') {
          stats.formattedPrior++;
          if (!receipt.diff) stats.formattedPriorNoDiff++;
          else if (process.env.FORMATBOX_SHOW_DIFFS) console.log(JSON.stringify({ input, out: receipt.input, diff: receipt.diff }));
        }
        if (seed.edits[0]?.unformatted) stats.unformattedEdits++;
      }),
      { numRuns: PER_LANGUAGE, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
    assert.equal(stats.cases, PER_LANGUAGE);
  };
}

test(`TypeScript (Biome, and Prettier for a fifth): ${PER_LANGUAGE} random edits keep the invariant`, propertyFor('typescript', (seed) => (seed.prettier ? formatters.prettier : formatters.biome)));
test(`Python (Ruff): ${PER_LANGUAGE} random edits keep the invariant`, propertyFor('python', () => formatters.ruff));
test(`Go (gofmt): ${PER_LANGUAGE} random edits keep the invariant`, propertyFor('go', () => formatters.gofmt));
test(`TOML (dprint): ${PER_LANGUAGE} random edits keep the invariant`, propertyFor('toml', () => formatters.toml));

// ---------------------------------------------------------------------------
// applyPatch: multi-file patches (Codex format and unified diffs) built from random line edits.

const byExtension: Record<string, ReturnType<typeof formatWith>> = {
  ts: formatters.biome, py: formatters.ruff, go: formatters.gofmt, toml: formatters.toml,
};
const formatByExtension = (path: string, text: string) => {
  const format = byExtension[path.slice(path.lastIndexOf('.') + 1)];
  if (!format) throw new Error(`no formatter for ${path}`);
  return format(path, text);
};

const fileOp = fc.record({
  language: fc.constantFrom<Language>('typescript', 'python', 'go', 'toml'),
  unit: fc.nat(),
  kind: fc.constantFrom('update', 'update', 'update', 'add', 'delete', 'move'),
  regions: fc.array(fc.record({ at: fc.nat(), remove: fc.nat({ max: 3 }), from: fc.nat(), take: fc.nat({ max: 3 }), noise: fc.nat() }), { minLength: 1, maxLength: 3 }),
  crlf: fc.nat({ max: 4 }).map((n) => n === 0),
});

test(`applyPatch: ${PATCHES} random multi-file patches keep the invariant for every file`, async () => {
  const stats = { patches: 0, files: 0, reconciled: 0, noDiff: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(fileOp, { minLength: 1, maxLength: 3 }), fc.constantFrom('codex' as const, 'unified' as const), async (ops, format) => {
      const priors: Record<string, string> = {};
      const parts: string[] = [];
      for (const [n, op] of ops.entries()) {
        const units = corpus[op.language];
        const unit = units[op.unit % units.length] as Unit;
        const ext = unit.path.slice(unit.path.lastIndexOf('.'));
        const path = `pkg${n}/file${ext}`;
        const text = op.crlf ? unit.text.replace(/\n/g, '\r\n') : unit.text;
        const r0 = op.regions[0] as (typeof op.regions)[number];
        if (op.kind === 'add') {
          parts.push(renderFilePatch(format, { kind: 'add', path, text: unformat(unit.text, op.language, r0.noise) }));
          continue;
        }
        priors[path] = text;
        if (op.kind === 'delete') {
          parts.push(renderFilePatch(format, { kind: 'delete', path, prior: text }));
          continue;
        }
        const lines = unit.text.split('\n');
        const regions: RenderRegion[] = [];
        for (const g of op.regions) {
          const start = g.at % Math.max(1, lines.length - 1);
          const end = Math.min(lines.length - 1, start + g.remove);
          if (regions.some((x) => end + 1 >= x.priorStart && start <= x.priorEnd + 1)) continue;
          const from = g.from % Math.max(1, lines.length - 1);
          const added = lines.slice(from, from + g.take).map((l) => (g.noise % 2 === 0 ? unformat(l, op.language, g.noise >> 1) : l));
          regions.push({ priorStart: start, priorEnd: end, newLines: added });
        }
        regions.sort((x, y) => x.priorStart - y.priorStart);
        parts.push(renderFilePatch(format, { kind: 'update', path, prior: text, regions, ...(op.kind === 'move' ? { moveTo: `${path}.moved${ext}` } : {}) }));
      }
      const patch = wrapPatch(format, parts);
      let written: Map<string, string | null>;
      try {
        written = applyPatchText(patch, (p) => priors[p]);
      } catch {
        return; // A rendered chunk can be ambiguous for Codex's search; not what this test is about.
      }
      const receipt = (await afterEdit({ format: formatByExtension }, { path: '', prior: priors, input: { patch } })) as PatchReceipt;
      const replayed = applyPatchText(receipt.input.patch, (p) => priors[p]);
      for (const r of receipt.receipts) {
        const got = replayed.get(r.path);
        if (r.line.startsWith('deleted')) {
          assert.equal(got, null);
          assert.equal(written.get(r.path), null);
          continue;
        }
        assert.equal(typeof got, 'string', `${r.path} is in the rewritten patch`);
        assert.equal(r.diff ? applyUnifiedDiff(got as string, r.diff) : got, r.content, `patch invariant for ${r.path}`);
        const own = applyPatchText((r.input as { patch: string }).patch, (p) => priors[p]).get(r.path) as string;
        assert.equal(r.diff ? applyUnifiedDiff(own, r.diff) : own, r.content, `one-file patch invariant for ${r.path}`);
        if (r.status !== 'formatted') assert.equal(r.content, written.get(r.path));
        stats.files++;
        if (r.reconciled) stats.reconciled++;
        if (!r.diff) stats.noDiff++;
      }
      stats.patches++;
    }),
    { numRuns: PATCHES, ...(SEED !== undefined ? { seed: SEED } : {}) },
  );
  patchStats = stats;
});

let patchStats: { patches: number; files: number; reconciled: number; noDiff: number } | undefined;

after(() => {
  const rows = Object.entries(allStats).map(([language, s]) => {
    const pct = (n: number): string => `${((100 * n) / Math.max(1, s.cases)).toFixed(1)}%`;
    const statuses = Object.entries(s.status).map(([k, v]) => `${k} ${v}`).join(', ');
    const tools = Object.entries(s.tools).map(([k, v]) => `${k} ${v}`).join(', ');
    const reasons = Object.entries(s.reasons).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v}× ${k}`).join('; ');
    const onFormatted = `${((100 * s.formattedPriorNoDiff) / Math.max(1, s.formattedPrior)).toFixed(1)}%`;
    return `${language}: ${s.cases} cases (${tools}); ${statuses}; reconciled ${pct(s.reconciled)}, no diff ${pct(s.noDiff)} ` +
      `(${onFormatted} on already formatted files), input rewritten ${pct(s.rewritten)}${reasons ? `; not reconciled: ${reasons}` : ''}`;
  });
  if (patchStats) {
    const p = patchStats;
    rows.push(`applyPatch: ${p.patches} patches, ${p.files} files; reconciled ${((100 * p.reconciled) / Math.max(1, p.files)).toFixed(1)}%, no diff ${((100 * p.noDiff) / Math.max(1, p.files)).toFixed(1)}%`);
  }
  const total = Object.values(allStats).reduce((n, s) => n + s.cases, 0) + (patchStats?.patches ?? 0);
  console.log(`property cases checked against the invariant: ${total}\n  ${rows.join('\n  ')}`);
});
