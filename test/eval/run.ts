/**
 * `npm run eval [-- --seed S --files N --edits N --long --lang typescript,go --scenario formatted|as-found|both --json out.json]`
 *
 * Replays simulated agent edit sequences on real code under the reporting strategies and
 * prints markdown tables. Two scenarios: files that start formatted (a project that declares
 * its formatter; the main table), and files as found on this machine (the first edit may
 * reformat the whole file). Deterministic: the same seed and sizes print the same tables.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Language } from './edits.js';
import { createEvalEngine, EVAL_FORMATTERS } from './engine.js';
import { LANGUAGES, runEval, type EvalResult } from './eval.js';
import { report } from './report.js';
import { TOKENIZER_NAME } from './tokens.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: 'formatbox-eval-1' },
    files: { type: 'string' },
    edits: { type: 'string' },
    long: { type: 'boolean', default: false },
    lang: { type: 'string' },
    scenario: { type: 'string', default: 'both' },
    json: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

const filesPerLanguage = Number(values.files ?? (values.long ? 12 : 5));
const editsPerFile = Number(values.edits ?? (values.long ? 20 : 10));
/** The as-found scenario is a stress case; it runs on fewer files. */
const asFoundFiles = Math.max(1, Math.ceil(filesPerLanguage * 0.6));
const languages = (values.lang ? values.lang.split(',') : LANGUAGES) as Language[];
for (const language of languages) if (!LANGUAGES.includes(language)) throw new Error(`unknown language ${language}`);
if (!['both', 'formatted', 'as-found'].includes(values.scenario)) throw new Error(`unknown scenario ${values.scenario}`);
const scenarios = (values.scenario === 'both' ? ['formatted', 'as-found'] : [values.scenario]) as ('formatted' | 'as-found')[];

const engine = createEvalEngine();
const started = performance.now();

const probes: Record<Language, string> = { typescript: 'probe.ts', python: 'probe.py', go: 'probe.go', toml: 'probe.toml' };
const formatters: string[] = [];
for (const language of languages) {
  const outcome = await engine.format({ path: probes[language], text: '' });
  const info = outcome.formatter;
  formatters.push(`${language}: ${info ? `${info.name} ${info.version} (${info.via})` : EVAL_FORMATTERS[language]}`);
}

const results: Record<string, EvalResult> = {};
const sections: string[] = [];
for (const start of scenarios) {
  const files = start === 'formatted' ? filesPerLanguage : asFoundFiles;
  const result = await runEval(engine, {
    seed: values.seed,
    filesPerLanguage: files,
    editsPerFile,
    languages,
    start,
    progress: values.quiet ? undefined : (message) => process.stderr.write(`  [${start}] ${message}\n`),
  });
  results[start] = result;
  const title =
    start === 'formatted'
      ? `## Files that start formatted (${result.files.length} files, ${editsPerFile} edits each)`
      : `## Files as found on this machine, not pre-formatted (${result.files.length} files, ${editsPerFile} edits each)`;
  sections.push(report(result.records, [title, '', `Files: ${result.files.map((f) => f.path).join(', ')}.`]));
}

console.log(
  [
    `# formatbox eval (seed \`${values.seed}\`)`,
    '',
    `Formatters: ${formatters.join(', ')}. Tokens: ${TOKENIZER_NAME}.`,
    '',
    sections.join('\n\n'),
  ].join('\n'),
);
if (values.json) {
  const dump = Object.fromEntries(
    Object.entries(results).map(([start, { files, records }]) => [
      start,
      { files: files.map(({ text, ...rest }) => ({ ...rest, lines: text.split('\n').length })), records },
    ]),
  );
  writeFileSync(values.json, JSON.stringify(dump, null, 1));
}
process.stderr.write(`eval took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
await engine.dispose();
// Big wasm modules make Node slow to tear down; the output is flushed, so leave now.
process.exit(0);
