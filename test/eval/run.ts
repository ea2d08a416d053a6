/**
 * `npm run eval [-- --seed S --files N --edits N --long --lang typescript,go --json out.json]`
 * Replays simulated agent edit sequences on real code under four reporting strategies and
 * prints markdown tables. Deterministic: the same seed prints the same tables.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Language } from './edits.js';
import { createEvalEngine, EVAL_FORMATTERS } from './engine.js';
import { LANGUAGES, runEval } from './eval.js';
import { report } from './report.js';
import { TOKENIZER_NAME } from './tokens.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: 'formatbox-eval-1' },
    files: { type: 'string' },
    edits: { type: 'string' },
    long: { type: 'boolean', default: false },
    lang: { type: 'string' },
    json: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

const filesPerLanguage = Number(values.files ?? (values.long ? 12 : 4));
const editsPerFile = Number(values.edits ?? (values.long ? 16 : 8));
const languages = (values.lang ? values.lang.split(',') : LANGUAGES) as Language[];
for (const language of languages) if (!LANGUAGES.includes(language)) throw new Error(`unknown language ${language}`);

const engine = createEvalEngine();
const started = performance.now();
const { files, records } = await runEval(engine, {
  seed: values.seed,
  filesPerLanguage,
  editsPerFile,
  languages,
  progress: values.quiet ? undefined : (message) => process.stderr.write(`  ${message}\n`),
});
const probes: Record<Language, string> = { typescript: 'probe.ts', python: 'probe.py', go: 'probe.go', toml: 'probe.toml' };
const formatters: string[] = [];
for (const language of languages) {
  const outcome = await engine.format({ path: probes[language], text: '' });
  const info = outcome.formatter;
  formatters.push(`${language}: ${info ? `${info.name} ${info.version} (${info.via})` : EVAL_FORMATTERS[language]}`);
}

console.log(
  report(records, [
    `## formatbox eval (seed \`${values.seed}\`, ${files.length} files, ${editsPerFile} edits per file)`,
    '',
    `Formatters: ${formatters.join(', ')}. Tokens: ${TOKENIZER_NAME}.`,
    `Files: ${files.map((f) => f.path).join(', ')}.`,
  ]),
);
if (values.json) writeFileSync(values.json, JSON.stringify({ files: files.map(({ text, ...rest }) => ({ ...rest, lines: text.split('\n').length })), records }, null, 1));
process.stderr.write(`eval took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
await engine.dispose();
// Big wasm modules make Node slow to tear down; the output is flushed, so leave now.
process.exit(0);
