/**
 * The benchmark report: `bench/results.json` (one record per measurement, with its anchor and
 * ratio), `bench/results.md` (a table) and `bench/results.svg` (a bar chart of the ratios,
 * hand-written SVG). The README links them.
 *
 * A benchmark adds a row with one call:
 *
 *   recordResult({ group: 'project', name: 'Biome check, 2,000 files', value: 1.21, unit: 's',
 *                  anchor: 'biome format (native)', anchorValue: 1.04, ratio: 1.16, goal: '≤ 1.3' });
 *
 * A record replaces the earlier one with the same group and name (and quick or not), so running one
 * benchmark updates its rows and keeps the others. `renderReport()` (called by `npm run bench` at the end) writes the
 * table and the chart from the JSON.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchRecord {
  /** Which benchmark, e.g. 'per-edit', 'project', 'memory', 'edge'. */
  group: string;
  /** What was measured, short and specific. */
  name: string;
  value: number;
  unit: string;
  /** What it is compared with, measured in the same run. */
  anchor?: string;
  anchorValue?: number;
  /** value / anchorValue, or the benchmark's own ratio (e.g. files/s against files/s). */
  ratio?: number;
  /** The goal, e.g. '≤ 1.3' or '≥ 1.8' (compared with `ratio`, or with `value` when there is no ratio). */
  goal?: string;
  /** Whether the goal was met; computed from `goal` when left out. */
  met?: boolean;
  note?: string;
}

interface StoredRecord extends BenchRecord {
  /** ISO time of the measurement. */
  at: string;
  /** Load average (1 min) when it was recorded: figures from a loaded machine are noisier. */
  load: number;
  quick: boolean;
}

export interface BenchResults {
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; platform: string };
  updated: string;
  records: StoredRecord[];
}

const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const RESULTS_DIR = join(REPO, 'bench');
const JSON_FILE = join(RESULTS_DIR, 'results.json');

function machine(): BenchResults['machine'] {
  return { cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: `${process.platform}-${process.arch}` };
}

export function readResults(): BenchResults {
  try {
    const parsed = JSON.parse(readFileSync(JSON_FILE, 'utf8')) as BenchResults;
    if (Array.isArray(parsed.records)) return parsed;
  } catch {
    // none yet
  }
  return { machine: machine(), updated: new Date().toISOString(), records: [] };
}

/** Whether `ratio` (or `value`) meets a goal written '≤ x', '< x', '≥ x' or '> x'. */
export function meetsGoal(goal: string | undefined, measured: number | undefined): boolean | undefined {
  if (!goal || measured === undefined || !Number.isFinite(measured)) return undefined;
  const match = /^\s*(≤|<=|<|≥|>=|>)\s*([0-9.]+)/.exec(goal);
  if (!match) return undefined;
  const bound = Number(match[2]);
  switch (match[1]) {
    case '≤':
    case '<=':
      return measured <= bound;
    case '<':
      return measured < bound;
    case '≥':
    case '>=':
      return measured >= bound;
    default:
      return measured > bound;
  }
}

/** Adds (or replaces) one measurement in bench/results.json. */
export function recordResult(record: BenchRecord): void {
  const results = readResults();
  const ratio = record.ratio ?? (record.anchorValue ? record.value / record.anchorValue : undefined);
  const met = record.met ?? meetsGoal(record.goal, ratio ?? record.value);
  const stored: StoredRecord = {
    ...record,
    ...(ratio !== undefined ? { ratio: round(ratio, 3) } : {}),
    ...(met !== undefined ? { met } : {}),
    value: round(record.value, 3),
    ...(record.anchorValue !== undefined ? { anchorValue: round(record.anchorValue, 3) } : {}),
    at: new Date().toISOString(),
    load: round(loadavg()[0] ?? 0, 2),
    quick: process.env.FORMATBOX_BENCH_QUICK === '1',
  };
  // A quick run's record sits beside the full run's, never over it.
  const index = results.records.findIndex((r) => r.group === record.group && r.name === record.name && r.quick === stored.quick);
  if (index >= 0) results.records[index] = stored;
  else results.records.push(stored);
  results.machine = machine();
  results.updated = stored.at;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const temp = `${JSON_FILE}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(results, null, 2) + '\n');
  renameSync(temp, JSON_FILE);
}

/** Writes bench/results.md and bench/results.svg from bench/results.json. */
export function renderReport(): void {
  const results = readResults();
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'results.md'), markdownTable(results));
  writeFileSync(join(RESULTS_DIR, 'results.svg'), svgChart(results));
}

function describeMachine(results: BenchResults): string {
  const m = results.machine;
  return `${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; updated ${results.updated.slice(0, 16).replace('T', ' ')} UTC`;
}

export function markdownTable(results: BenchResults): string {
  const lines = [
    `Machine: ${describeMachine(results)}.`,
    '',
    '| group | measurement | value | anchor | ratio | goal | met | load | when | note |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results.records) {
    const anchor = r.anchor ? `${r.anchor}${r.anchorValue !== undefined ? ` (${fmt(r.anchorValue)} ${r.unit})` : ''}` : '';
    const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**';
    lines.push(`| ${r.group} | ${r.name}${r.quick ? ' (quick)' : ''} | ${fmt(r.value)} ${r.unit} | ${anchor} | ${r.ratio !== undefined ? `${fmt(r.ratio)}×` : ''} | ${r.goal ?? ''} | ${met} | ${r.load} | ${r.at.slice(0, 16).replace('T', ' ')} | ${r.note ?? ''} |`);
  }
  return lines.join('\n') + '\n';
}

/** One bar per record with a ratio, on a log scale around 1× (the anchor), goal marked. */
export function svgChart(results: BenchResults): string {
  // Full runs only (quick records stay in the table), grouped.
  const order = [...new Set(results.records.map((r) => r.group))];
  const rows = results.records.filter((r) => r.ratio !== undefined && r.ratio > 0 && !r.quick).sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group));
  const width = 1060;
  const labelWidth = 580;
  const barArea = width - labelWidth - 90;
  const rowHeight = 24;
  const top = 50;
  const height = top + rows.length * rowHeight + 40;
  const ratios = rows.flatMap((r) => [r.ratio!, goalBound(r.goal) ?? 1]);
  const lo = Math.min(0.05, ...ratios);
  const hi = Math.max(4, ...ratios);
  const x = (ratio: number) => labelWidth + ((Math.log(ratio) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))) * barArea;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">formatbox benchmarks: ratio to the anchor (log scale; bar ends at the measurement, | marks the goal)</text>`,
    `<text x="10" y="38" fill="#555">${escapeXml(describeMachine(results))}</text>`,
  ];
  for (const tick of [0.1, 0.25, 0.5, 1, 2, 4, 10, 20, 50].filter((t) => t >= lo && t <= hi)) {
    parts.push(`<line x1="${x(tick).toFixed(1)}" y1="${top - 4}" x2="${x(tick).toFixed(1)}" y2="${height - 30}" stroke="${tick === 1 ? '#333' : '#ddd'}"/>`);
    parts.push(`<text x="${x(tick).toFixed(1)}" y="${height - 16}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const colour = r.met === undefined ? '#8899aa' : r.met ? '#3a9a5b' : '#d0463c';
    const from = x(Math.min(1, r.ratio!));
    const to = x(Math.max(1, r.ratio!));
    parts.push(`<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(truncate(`${r.group}: ${r.name}`, 92))}</text>`);
    parts.push(`<rect x="${from.toFixed(1)}" y="${y + 4}" width="${Math.max(1, to - from).toFixed(1)}" height="${rowHeight - 8}" fill="${colour}"/>`);
    parts.push(`<text x="${(x(r.ratio!) + (r.ratio! >= 1 ? 4 : -4)).toFixed(1)}" y="${y + 15}" text-anchor="${r.ratio! >= 1 ? 'start' : 'end'}" fill="#222">${fmt(r.ratio!)}×</text>`);
    const goal = goalBound(r.goal);
    if (goal !== undefined) parts.push(`<line x1="${x(goal).toFixed(1)}" y1="${y + 1}" x2="${x(goal).toFixed(1)}" y2="${y + rowHeight - 1}" stroke="#000" stroke-width="2"/>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

function goalBound(goal: string | undefined): number | undefined {
  const match = goal ? /^\s*(?:≤|<=|<|≥|>=|>)\s*([0-9.]+)/.exec(goal) : null;
  return match ? Number(match[1]) : undefined;
}

function fmt(n: number): string {
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
