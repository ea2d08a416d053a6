/**
 * The simulated agent's edits. An `Intent` is pure randomness (what kind of edit, where,
 * sloppy or neat), drawn once per edit and shared by every strategy. `materialise` turns it
 * into a concrete tool input against the agent's *view* of the file, so the oldText always
 * comes from what the agent has seen, which, for some strategies, is not what is on disk.
 */
import type { EditInput, SingleFileInput } from '../../src/core/types.js';
import { Rng } from './prng.js';
import { countOccurrences, type LineRegion } from './text-ops.js';

export type Language = 'typescript' | 'python' | 'go' | 'toml';

export type IntentKind = 'modify' | 'insert' | 'followUp' | 'multi' | 'write';

export interface Intent {
  kind: IntentKind;
  /** Where in the file (0..1 of its lines) a fresh edit goes. */
  where: number;
  where2: number;
  /** Lines touched by a modify (1..3). */
  span: number;
  /** Deliberately unformatted newText (squeezed spaces, wrong quotes, lost indentation). */
  sloppy: boolean;
  /** Seed for the details (which identifier, which template). */
  seed: number;
}

/** Draws the intents for one file. Edit 0 is never a follow-up (nothing written yet). */
export function drawIntents(rng: Rng, count: number): Intent[] {
  const intents: Intent[] = [];
  for (let i = 0; i < count; i++) {
    const roll = rng.next();
    let kind: IntentKind;
    if (i === 0) kind = roll < 0.5 ? 'insert' : 'modify';
    else if (roll < 0.4) kind = 'followUp';
    else if (roll < 0.62) kind = 'insert';
    else if (roll < 0.85) kind = 'modify';
    else if (roll < 0.94) kind = 'multi';
    else kind = 'write';
    intents.push({
      kind,
      where: rng.next(),
      where2: rng.next(),
      span: rng.int(1, 3),
      sloppy: rng.chance(0.5),
      seed: rng.int(0, 0x7fffffff),
    });
  }
  return intents;
}

// ---------------------------------------------------------------------------
// Languages

interface Dialect {
  quotes: string[];
  lineComment: string;
  blockComment: boolean;
  /** Formatter-preferred quote and the wrong one a sloppy agent uses; null = never swap. */
  swapQuote: { from: string; to: string } | null;
  canStripIndent: boolean;
  keywords: Set<string>;
  /** Renaming suffix style: `V3` (camel) or `_v3`. */
  suffix: (n: number) => string;
  /** Whether the word starting at `at` in `line` may be renamed. */
  renameable?: (line: string, at: number) => boolean;
  /** Line i (in the view) is a safe place to insert a new top-level item before. */
  insertBefore: (lines: string[], i: number) => boolean;
  /** A new top-level item; `n` makes its names unique. */
  snippet: (n: number, sloppy: boolean, rng: Rng) => string;
  /** Blank lines the formatter wants between top-level items (neat code writes them). */
  separator: (sloppy: boolean) => string;
}

const words = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

const TS_KEYWORDS = words(`break case catch class const continue debugger default delete do else enum export extends false
  finally for function if import in instanceof new null return super switch this throw true try typeof var void while with
  as implements interface let package private protected public static yield any boolean constructor declare get module
  require number set string symbol type from of async await keyof readonly infer is unique never unknown asserts namespace
  abstract override satisfies accessor out global bigint object undefined`);

const PY_KEYWORDS = words(`False None True and as assert async await break class continue def del elif else except finally
  for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type _`);

const GO_KEYWORDS = words(`break case chan const continue default defer else fallthrough for func go goto if import interface
  map package range return select struct switch type var`);

const TOML_KEYWORDS = words('true false inf nan');

const typescript: Dialect = {
  quotes: ['"', "'", '`'],
  lineComment: '//',
  blockComment: true,
  swapQuote: { from: '"', to: "'" },
  canStripIndent: true,
  keywords: TS_KEYWORDS,
  suffix: (n) => `V${n}`,
  insertBefore: (lines, i) =>
    /^(export |function |const |let |class |interface |type |abstract class |async function )/.test(lines[i] ?? '') &&
    !/^\s*(\*|\/\*)/.test(lines[i - 1] ?? ''),
  snippet: (n, sloppy, rng) =>
    rng.pick(
      sloppy
        ? [
            `const evalLimit${n}={retries:3,label:'eval-${n}',tags:['a','b']}`,
            `function evalCheck${n}(value:number,limit:number):boolean{return value>limit&&limit!==${n}}`,
            `export type EvalShape${n}={id:number,name:string}`,
            `const evalMessage${n}=['alpha','beta','gamma'].map(x=>x.toUpperCase()).join(', ')`,
          ]
        : [
            `const evalLimit${n} = { retries: 3, label: "eval-${n}", tags: ["a", "b"] };`,
            `function evalCheck${n}(value: number, limit: number): boolean {\n  return value > limit && limit !== ${n};\n}`,
            `export type EvalShape${n} = { id: number; name: string };`,
            // Longer than the print width: even a careful agent's line gets wrapped.
            `const evalMessage${n} = ["alpha", "beta", "gamma", "delta", "epsilon"].map((x) => x.toUpperCase()).join(", ");`,
          ],
    ),
  separator: (sloppy) => (sloppy ? '\n' : '\n\n'),
};

const python: Dialect = {
  quotes: ['"', "'"],
  lineComment: '#',
  blockComment: false,
  swapQuote: { from: '"', to: "'" },
  canStripIndent: false,
  keywords: PY_KEYWORDS,
  suffix: (n) => `_v${n}`,
  insertBefore: (lines, i) => /^(def |class |@|async def )/.test(lines[i] ?? '') && !/^@/.test(lines[i - 1] ?? ''),
  snippet: (n, sloppy, rng) =>
    rng.pick(
      sloppy
        ? [
            `EVAL_LIMIT_${n}={'retries':3,'label':'eval-${n}','tags':['a','b']}`,
            `def eval_check_${n}(value,limit):\n    return value>limit and limit!=${n}`,
            `eval_names_${n}=[name.upper() for name in ('alpha','beta','gamma') if name!='beta']`,
          ]
        : [
            `EVAL_LIMIT_${n} = {"retries": 3, "label": "eval-${n}", "tags": ["a", "b"]}`,
            `def eval_check_${n}(value, limit):\n    return value > limit and limit != ${n}`,
            `eval_names_${n} = [name.upper() for name in ("alpha", "beta", "gamma", "delta", "epsilon") if name != "beta"]`,
          ],
    ),
  separator: (sloppy) => (sloppy ? '\n' : '\n\n\n'),
};

const go: Dialect = {
  quotes: ['"', "'", '`'],
  lineComment: '//',
  blockComment: true,
  swapQuote: null,
  canStripIndent: true,
  keywords: GO_KEYWORDS,
  suffix: (n) => `V${n}`,
  insertBefore: (lines, i) => /^(func |type |var )/.test(lines[i] ?? '') && !/^\s*(\*|\/\*)/.test(lines[i - 1] ?? ''),
  snippet: (n, sloppy, rng) =>
    rng.pick(
      sloppy
        ? [
            `var evalLimit${n}=[]int{1,2,3}`,
            `func evalCheck${n}(value,limit int) bool{\nif value>limit{\nreturn limit!=${n}\n}\nreturn false\n}`,
            `type evalShape${n} struct{\nID int\nName string\n}`,
          ]
        : [
            `var evalLimit${n} = []int{1, 2, 3}`,
            `func evalCheck${n}(value, limit int) bool {\n\tif value > limit {\n\t\treturn limit != ${n}\n\t}\n\treturn false\n}`,
            // gofmt aligns field types: a careful agent's single spaces still change.
            `type evalShape${n} struct {\n\tID int\n\tName string\n}`,
          ],
    ),
  separator: () => '\n\n',
};

const toml: Dialect = {
  quotes: ['"', "'"],
  lineComment: '#',
  blockComment: false,
  swapQuote: null,
  canStripIndent: true,
  keywords: TOML_KEYWORDS,
  suffix: (n) => `_v${n}`,
  // Only keys and table names: values are literals.
  renameable: (line, at) => {
    if (/^\s*\[/.test(line)) return true;
    const eq = line.indexOf('=');
    return eq === -1 || at < eq;
  },
  insertBefore: (lines, i) => /^\[\[?[A-Za-z0-9_.\-" ]+\]\]?\s*$/.test(lines[i] ?? ''),
  snippet: (n, sloppy, rng) =>
    rng.pick(
      sloppy
        ? [`eval_key_${n}="value-${n}"`, `eval_list_${n}=[ 1,2,3 ]`, `eval_table_${n}={name="eval",size=${n}}`]
        : [`eval_key_${n} = "value-${n}"`, `eval_list_${n} = [1, 2, 3]`, `eval_table_${n} = { name = "eval", size = ${n} }`],
    ),
  separator: (sloppy) => (sloppy ? '\n' : '\n\n'),
};

export const DIALECTS: Readonly<Record<Language, Dialect>> = { typescript, python, go, toml };

// ---------------------------------------------------------------------------
// Line surgery

interface Segment {
  kind: 'code' | 'string' | 'comment';
  text: string;
}

/** Splits one line into code, string and comment parts (an unterminated string runs to the end). */
export function segmentLine(line: string, dialect: Dialect): Segment[] {
  const out: Segment[] = [];
  let code = '';
  let i = 0;
  const flush = () => {
    if (code) out.push({ kind: 'code', text: code });
    code = '';
  };
  while (i < line.length) {
    const ch = line[i] as string;
    if (line.startsWith(dialect.lineComment, i)) {
      flush();
      out.push({ kind: 'comment', text: line.slice(i) });
      return out;
    }
    if (dialect.blockComment && line.startsWith('/*', i)) {
      flush();
      const close = line.indexOf('*/', i + 2);
      const end = close === -1 ? line.length : close + 2;
      out.push({ kind: 'comment', text: line.slice(i, end) });
      i = end;
      continue;
    }
    if (dialect.quotes.includes(ch)) {
      flush();
      const triple = ch.repeat(3);
      if (line.startsWith(triple, i)) {
        out.push({ kind: 'string', text: line.slice(i) });
        return out;
      }
      let j = i + 1;
      while (j < line.length && line[j] !== ch) j += line[j] === '\\' ? 2 : 1;
      const end = Math.min(j + 1, line.length);
      out.push({ kind: 'string', text: line.slice(i, end) });
      i = end;
      continue;
    }
    code += ch;
    i++;
  }
  flush();
  return out;
}

const isWord = (ch: string | undefined) => ch !== undefined && /[A-Za-z0-9_$]/.test(ch);
const isOp = (ch: string | undefined) => ch !== undefined && /[+\-*/%<>=!&|^~?:.@]/.test(ch);

/** Removes spaces a formatter would put back, where removing them keeps the code valid. */
function squeeze(line: string, dialect: Dialect, stripIndent: boolean): string {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
  const segments = segmentLine(line.slice(indent.length), dialect);
  let body = '';
  for (const [index, segment] of segments.entries()) {
    if (segment.kind !== 'code') {
      body += segment.text;
      continue;
    }
    const next = segments[index + 1]?.text[0];
    const text = segment.text;
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (ch !== ' ') {
        out += ch;
        continue;
      }
      let j = i;
      while (text[j] === ' ') j++;
      const left = out.length > 0 ? out[out.length - 1] : body[body.length - 1];
      const right = j < text.length ? text[j] : next;
      const keep =
        left === undefined || right === undefined || (isWord(left) && isWord(right)) || (isOp(left) && isOp(right)) ||
        right === '#' || (j >= text.length && segments[index + 1]?.kind === 'comment');
      if (keep) out += text.slice(i, j);
      i = j - 1;
    }
    body += out;
  }
  return (stripIndent ? '' : indent) + body;
}

function swapQuotes(line: string, dialect: Dialect): string {
  const swap = dialect.swapQuote;
  if (!swap) return line;
  return segmentLine(line, dialect)
    .map((segment) => {
      const { text } = segment;
      if (segment.kind !== 'string' || text.length < 2 || text[0] !== swap.from || text[text.length - 1] !== swap.from) return segment.text;
      const inner = text.slice(1, -1);
      if (/['"`\\$]/.test(inner)) return text;
      return swap.to + inner + swap.to;
    })
    .join('');
}

/** Renames one identifier occurrence in the line's code (a real edit, so newText ≠ oldText). */
function rename(line: string, dialect: Dialect, n: number, rng: Rng): string | undefined {
  const candidates: { at: number; word: string }[] = [];
  let offset = 0;
  for (const segment of segmentLine(line, dialect)) {
    if (segment.kind === 'code') {
      for (const match of segment.text.matchAll(/[A-Za-z0-9_$]+/g)) {
        const word = match[0];
        const at = offset + (match.index ?? 0);
        const after = line[at + word.length];
        if (/^[0-9]/.test(word) || word.length < 2 || dialect.keywords.has(word)) continue;
        if (after !== undefined && dialect.quotes.includes(after)) continue; // string prefix (f"…", b'…')
        if (dialect.renameable && !dialect.renameable(line, at)) continue;
        candidates.push({ at, word });
      }
    }
    offset += segment.text.length;
  }
  if (candidates.length === 0) return undefined;
  const { at, word } = rng.pick(candidates);
  return line.slice(0, at) + word + dialect.suffix(n) + line.slice(at + word.length);
}

/** One line rewritten by the agent: renamed, and if sloppy, squeezed / re-quoted / unindented. */
function rewriteLine(line: string, dialect: Dialect, n: number, sloppy: boolean, rng: Rng, stripIndent: boolean): string | undefined {
  if (line.trim() === '' || /\\\s*$/.test(line)) return undefined;
  let out = rename(line, dialect, n, rng);
  if (out === undefined) {
    const last = segmentLine(line, dialect).at(-1);
    if (last?.kind === 'string' && !/["'`]$/.test(last.text)) return undefined;
    if (last?.kind === 'comment') return undefined;
    out = `${line} ${dialect.lineComment} eval ${n}`;
  }
  if (sloppy) out = swapQuotes(squeeze(out, dialect, stripIndent), dialect);
  return out === line ? undefined : out;
}

// ---------------------------------------------------------------------------
// From intent to tool input

export interface Materialised {
  input: SingleFileInput;
  /** What the agent meant (for the report's examples). */
  kind: IntentKind;
}

/** Lines [start, end) of the view, widened until the text is unique in the view. */
function uniqueAnchor(view: string, lines: string[], start: number, end: number): { start: number; end: number } | undefined {
  let s = start;
  let e = end;
  for (let step = 0; step < 12; step++) {
    const text = lines.slice(s, e).join('\n');
    if (text.trim() !== '' && countOccurrences(view, text) === 1) return { start: s, end: e };
    if (e < lines.length) e++;
    else if (s > 0) s--;
    else return undefined;
  }
  return undefined;
}

/** A modify of `span` non-blank lines from line `from` (searching forward, then from the top). */
function modifyAt(view: string, dialect: Dialect, from: number, span: number, n: number, sloppy: boolean, rng: Rng, limit?: LineRegion): EditInput | undefined {
  const lines = view.split('\n');
  const lo = limit ? limit.start : 0;
  const hi = limit ? Math.min(limit.end, lines.length) : lines.length;
  const stripIndent = sloppy && dialect.canStripIndent && rng.chance(0.5);
  for (let tries = 0; tries < hi - lo; tries++) {
    const start = lo + ((from - lo + tries) % (hi - lo));
    const end = Math.min(start + span, hi);
    const rewritten: string[] = [];
    let changed = false;
    for (let i = start; i < end; i++) {
      const line = lines[i] as string;
      const next = rewriteLine(line, dialect, n, sloppy, rng, stripIndent);
      rewritten.push(next ?? line);
      if (next !== undefined) changed = true;
    }
    if (!changed) continue;
    const anchor = uniqueAnchor(view, lines, start, end);
    if (!anchor) continue;
    return {
      oldText: lines.slice(anchor.start, anchor.end).join('\n'),
      newText: [...lines.slice(anchor.start, start), ...rewritten, ...lines.slice(end, anchor.end)].join('\n'),
    };
  }
  return undefined;
}

/** Inserts a new top-level item before a safe line at or after `from`. */
function insertAt(view: string, dialect: Dialect, from: number, n: number, sloppy: boolean, rng: Rng): EditInput | undefined {
  const lines = view.split('\n');
  for (let tries = 0; tries < lines.length; tries++) {
    const i = (from + tries) % lines.length;
    if (!dialect.insertBefore(lines, i)) continue;
    const anchor = uniqueAnchor(view, lines, i, i + 1);
    if (!anchor || anchor.start !== i) continue;
    const oldText = lines.slice(anchor.start, anchor.end).join('\n');
    return { oldText, newText: dialect.snippet(n, sloppy, rng) + dialect.separator(sloppy) + oldText };
  }
  return undefined;
}

/**
 * The concrete tool input for intent `n` against the agent's view. `region` is where the
 * agent's previous edit landed in its view (the lines it "just wrote").
 */
export function materialise(intent: Intent, language: Language, view: string, region: LineRegion | undefined, n: number): Materialised {
  const dialect = DIALECTS[language];
  const rng = new Rng(intent.seed);
  const lineCount = view.split('\n').length;
  const at = (fraction: number) => Math.min(lineCount - 1, Math.floor(fraction * lineCount));
  const modify = (from: number, limit?: LineRegion) => modifyAt(view, dialect, from, intent.span, n, intent.sloppy, rng, limit);

  switch (intent.kind) {
    case 'followUp': {
      if (region) {
        const limit = { start: Math.max(0, region.start), end: Math.min(lineCount, Math.max(region.end, region.start + 1)) };
        const edit = modifyAt(view, dialect, limit.start + Math.floor(intent.where * (limit.end - limit.start)), 1, n, intent.sloppy, rng, limit);
        if (edit) return { input: edit, kind: 'followUp' };
      }
      break;
    }
    case 'insert': {
      const edit = insertAt(view, dialect, at(intent.where), n, intent.sloppy, rng);
      if (edit) return { input: edit, kind: 'insert' };
      break;
    }
    case 'multi': {
      const first = modify(at(intent.where));
      if (first) {
        const after = view.replace(first.oldText, () => first.newText);
        const second = modifyAt(after, dialect, at(intent.where2), 1, n, intent.sloppy, rng);
        if (second && !first.newText.includes(second.oldText) && !second.oldText.includes(first.newText)) {
          return { input: { edits: [first, second] }, kind: 'multi' };
        }
        return { input: first, kind: 'modify' };
      }
      break;
    }
    case 'write': {
      const edit = insertAt(view, dialect, at(intent.where), n, intent.sloppy, rng) ?? modify(at(intent.where));
      if (edit) return { input: { content: view.replace(edit.oldText, () => edit.newText) }, kind: 'write' };
      break;
    }
    case 'modify':
      break;
  }
  const edit = modify(at(intent.where));
  if (edit) return { input: edit, kind: 'modify' };
  // A file with nothing to rename and nowhere to insert: rewrite it with a trailing comment.
  return { input: { content: `${view.replace(/\n*$/, '')}\n${dialect.lineComment} eval ${n}\n` }, kind: 'write' };
}
