/**
 * Replays one file's intents under one reporting strategy and records, per edit, what the
 * agent's context grew by. The agent keeps a *view* of the file, updated only from what it
 * is told; the disk holds what is really there. An edit whose oldText is not on disk fails
 * (stale), and the agent rereads the file and tries again.
 */
import type { Receipt, SingleFileInput } from '../../src/core/types.js';
import { drawIntents, materialise, type Intent, type IntentKind, type Language } from './edits.js';
import { Rng } from './prng.js';
import { applyUnifiedDiff, mapRegion, replay, unifiedDiff, type LineRegion } from './text-ops.js';
import { countTokens } from './tokens.js';

/** What the eval needs from formatbox: the engine's `format` and `afterEdit`. */
export interface EvalEngine {
  format(request: { path: string; text: string }): Promise<{ status: string; content: string; line: string }>;
  afterEdit(request: { path: string; prior: string; input: SingleFileInput }): Promise<Receipt>;
}

export const STRATEGIES = ['none', 'line-naive', 'line-reread', 'diff', 'receipt'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const STRATEGY_LABELS: Readonly<Record<Strategy, string>> = {
  none: '(a) no formatter',
  'line-naive': '(b) result line, no reread',
  'line-reread': '(b) result line + reread',
  diff: '(c) result line + full diff',
  receipt: '(d) formatbox receipt',
};

export interface FileCase {
  /** Project-relative path given to the engine (its extension picks the language). */
  path: string;
  language: Language;
  /** Where the text came from (real file, maybe a slice). */
  source: string;
  /** The file as it starts on disk: the real file, already formatted by the project's formatter. */
  text: string;
}

export interface EditRecord {
  path: string;
  language: Language;
  strategy: Strategy;
  index: number;
  kind: IntentKind;
  /** Calls made (1, or 2 after a stale failure). */
  attempts: number;
  /** The first call's oldText was not on disk (or not unique there) although it was in the view. */
  stale: boolean;
  /** For a stale edit: the first line of its oldText that is not on disk (for the report's example). */
  staleLine?: string;
  rereads: number;
  /** Tokens this edit added to the agent's context (see `countEditTokens` for what is counted). */
  tokens: number;
  /** Formatter status of the call that went through ('' for strategy none). */
  status: string;
  /** After the edit, the agent's view differs from the disk (a silent drift that bites later). */
  drift: boolean;
  /** Receipts only: replay(P, receipt.input) + receipt.diff reproduced receipt.content, which is the file written. */
  replays?: boolean;
  /** Receipts only: receipt.content is what the formatter makes of W (engine.format, called separately). */
  formatterAgrees?: boolean;
  /** Receipts only: whether the receipt had a diff (changes outside the edit) and how the note carried it. */
  receiptDiff?: 'none' | 'in note' | 'reread hint';
  /** Receipts only: receipt.reconciled. */
  reconciled?: boolean;
  /** Receipts only: tokens of the rewritten input minus the original input's (what substitution adds). */
  inputDelta?: number;
}

/** The edit tool's own result text (the same for every strategy). */
export function toolResult(path: string): string {
  return `The file ${path} has been updated.`;
}

/** The edit tool's error when oldText is not on disk (or is there more than once). */
export function staleError(path: string, problem: string): string {
  return problem === 'ambiguous'
    ? `Error: oldText matches more than once in ${path}; add context to make it unique.`
    : `Error: oldText not found in ${path}. Read the file again before editing.`;
}

/** Does the receipt's note show the diff (so the agent can apply it), or ask for a reread? */
export function noteShowsDiff(receipt: Receipt): boolean {
  if (!receipt.diff) return true;
  const hunks = receipt.diff.slice(receipt.diff.indexOf('@@'));
  return receipt.note.includes(hunks.trim());
}

function firstMissingLine(disk: string, input: SingleFileInput): string | undefined {
  const edits = 'edits' in input ? input.edits : 'oldText' in input ? [input] : [];
  for (const edit of edits) for (const line of edit.oldText.split('\n')) if (line.trim() && !disk.includes(line)) return line;
  return undefined;
}

/** Line ranges (1-based, inclusive) a note asks to reread, e.g. "reread lines 3-9, 14 of a.ts"; undefined for a whole-file reread. */
export function rereadRanges(note: string): Array<[number, number]> | undefined {
  const match = /reread lines? ([0-9][0-9, -]*) of /.exec(note);
  if (!match?.[1]) return undefined;
  return match[1].split(',').map((part) => {
    const [from, to] = part.trim().split('-').map(Number) as [number, number | undefined];
    return [from, to ?? from];
  });
}

const tokensOf = (input: SingleFileInput) => countTokens(JSON.stringify(input));

/** Intents for a file: the same for every strategy (seed, path). */
export function intentsFor(seed: string | number, path: string, count: number): Intent[] {
  return drawIntents(new Rng(`${seed}`).fork('intents', path), count);
}

export async function simulateFile(engine: EvalEngine, strategy: Strategy, file: FileCase, intents: Intent[]): Promise<EditRecord[]> {
  const { path, language } = file;
  const records: EditRecord[] = [];
  let disk = file.text;
  let view = file.text;
  let region: LineRegion | undefined;

  /** The agent reads the file again: its view becomes the disk, its region follows. */
  const reread = () => {
    if (region) region = mapRegion(view, disk, region);
    view = disk;
    return countTokens(disk);
  };

  for (const [index, intent] of intents.entries()) {
    let tokens = 0;
    let rereads = 0;
    let stale = false;
    let attempts = 0;
    let kind: IntentKind = intent.kind;
    let status = '';
    let replays: boolean | undefined;
    let inputDelta: number | undefined;
    let formatterAgrees: boolean | undefined;
    let staleLine: string | undefined;
    let receiptDiff: EditRecord['receiptDiff'];
    let reconciled: boolean | undefined;

    for (;;) {
      attempts++;
      const made = materialise(intent, language, view, region, index + 1);
      kind = made.kind;
      const input = made.input;
      const onDisk = replay(disk, input);
      if (!onDisk.ok) {
        if (attempts > 1) throw new Error(`${path} edit ${index}: oldText not on disk right after a reread`);
        stale = true;
        staleLine = firstMissingLine(disk, input);
        tokens += tokensOf(input) + countTokens(staleError(path, onDisk.problem));
        tokens += reread();
        rereads++;
        continue;
      }
      const inView = replay(view, input);
      if (!inView.ok) throw new Error(`${path} edit ${index}: the agent's own edit does not apply to its view`);
      const written = onDisk.text;
      const viewBefore = view;
      const base = toolResult(path);

      switch (strategy) {
        case 'none': {
          disk = written;
          view = inView.text;
          region = inView.region;
          tokens += countTokens(base);
          break;
        }
        case 'line-naive':
        case 'line-reread': {
          const outcome = await engine.format({ path, text: written });
          status = outcome.status;
          disk = outcome.content;
          view = inView.text;
          region = inView.region;
          tokens += countTokens(`${base}\n${outcome.line}`);
          if (strategy === 'line-reread' && outcome.status === 'formatted') {
            tokens += reread();
            rereads++;
          }
          break;
        }
        case 'diff': {
          const outcome = await engine.format({ path, text: written });
          status = outcome.status;
          disk = outcome.content;
          const diff = unifiedDiff(path, written, outcome.content);
          tokens += countTokens(diff ? `${base}\n${outcome.line}\n${diff}` : `${base}\n${outcome.line}`);
          view = inView.text;
          region = inView.region;
          const applied = applyUnifiedDiff(view, diff);
          if (applied === undefined) {
            tokens += reread();
            rereads++;
          } else {
            region = mapRegion(view, applied, region);
            view = applied;
          }
          break;
        }
        case 'receipt': {
          const receipt = await engine.afterEdit({ path, prior: disk, input });
          status = receipt.status;
          const rewritten = receipt.input as SingleFileInput;
          // The invariant, checked independently: replay(P, input') then diff gives F, the file written.
          const replayed = replay(disk, rewritten);
          const final = replayed.ok ? applyUnifiedDiff(replayed.text, receipt.diff ?? '') : undefined;
          replays = final !== undefined && final === receipt.content;
          formatterAgrees = (await engine.format({ path, text: written })).content === receipt.content;
          disk = receipt.content;
          reconciled = receipt.reconciled;
          receiptDiff = !receipt.diff ? 'none' : noteShowsDiff(receipt) ? 'in note' : 'reread hint';
          inputDelta = tokensOf(rewritten) - tokensOf(input);
          tokens += countTokens(`${base}\n${receipt.note}`) + Math.max(0, inputDelta);
          // The harness put input' in the transcript: the agent's view is replay(view, input').
          const agentSide = replay(viewBefore, rewritten);
          if (!agentSide.ok) {
            tokens += reread();
            rereads++;
            break;
          }
          view = agentSide.text;
          region = agentSide.region;
          if (receipt.diff) {
            const applied = noteShowsDiff(receipt) ? applyUnifiedDiff(view, receipt.diff) : undefined;
            if (applied === undefined) {
              // The note asks for a reread instead: of the named lines when it names them.
              const ranges = rereadRanges(receipt.note);
              if (ranges) {
                const lines = disk.split('\n');
                tokens += countTokens(ranges.map(([from, to]) => lines.slice(from - 1, to).join('\n')).join('\n'));
                if (region) region = mapRegion(view, disk, region);
                view = disk;
              } else {
                tokens += reread();
              }
              rereads++;
            } else {
              region = mapRegion(view, applied, region);
              view = applied;
            }
          }
          break;
        }
      }
      break;
    }
    records.push({
      path, language, strategy, index, kind, attempts, stale, rereads, tokens, status,
      drift: view !== disk,
      ...(replays !== undefined ? { replays } : {}),
      ...(inputDelta !== undefined ? { inputDelta } : {}),
      ...(formatterAgrees !== undefined ? { formatterAgrees } : {}),
      ...(staleLine !== undefined ? { staleLine } : {}),
      ...(receiptDiff !== undefined ? { receiptDiff } : {}),
      ...(reconciled !== undefined ? { reconciled } : {}),
    });
  }
  return records;
}
