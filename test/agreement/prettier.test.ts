// Agreement: formatbox's Prettier adapter (prettier/standalone + built-in plugins) against the
// prettier CLI of the same version, on code nobody here wrote: prettier's own files and TypeScript's
// lib.*.d.ts. One CLI process per configuration formats the whole sample (`--write` in a temp copy).
// Default: a deterministic sample. FORMATBOX_LONG=1: every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { prettierFormatter } from '../../src/formatters/prettier.js';
import { languageOf } from '../../src/core/languages.js';

const LONG = process.env.FORMATBOX_LONG === '1';
const CLI = 'node_modules/prettier/bin/prettier.cjs';

/**
 * Mismatches that were investigated, keyed `<config>|<corpus path>`, with their cause.
 * An entry that no longer mismatches fails the test, so the table stays true.
 */
const EXPLAINED: Readonly<Record<string, string>> = {};

const CONFIGS: ReadonlyArray<{ name: string; settings: Record<string, unknown> }> = [
  { name: 'defaults', settings: {} },
  { name: 'singleQuote+tabWidth4', settings: { singleQuote: true, tabWidth: 4 } },
];

function walk(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = `${dir}/${name}`;
    if (statSync(full).isDirectory()) found.push(...walk(full));
    else found.push(full);
  }
  return found;
}

/** Corpus paths relative to node_modules (`prettier/doc.js`, `typescript/lib/lib.es5.d.ts`). */
function corpus(): string[] {
  const prettierFiles = walk('node_modules/prettier')
    .filter((file) => /\.(m?js|d\.ts)$/.test(file))
    // The sample leaves out the big minified plugin bundles (each expands to tens of thousands of lines).
    .filter((file) => LONG || statSync(file).size <= 100_000);
  const libFiles = readdirSync('node_modules/typescript/lib')
    .filter((name) => /^lib\..*\.d\.ts$/.test(name))
    .sort()
    .map((name) => `node_modules/typescript/lib/${name}`)
    // Every third file; the two giants (lib.dom, lib.webworker) only in the long run.
    .filter((file, index) => LONG || (index % 3 === 0 && statSync(file).size <= 250_000));
  return [...prettierFiles, ...libFiles].map((file) => file.slice('node_modules/'.length));
}

/** What the engine hands an adapter: BOM removed, line endings LF. */
function normalise(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

function firstDifference(a: string, b: string): string {
  const linesA = a.split('\n');
  const linesB = b.split('\n');
  for (let index = 0; index < Math.max(linesA.length, linesB.length); index++) {
    if (linesA[index] !== linesB[index]) {
      return `line ${index + 1}: adapter ${JSON.stringify(linesA[index]?.slice(0, 120))} vs cli ${JSON.stringify(linesB[index]?.slice(0, 120))}`;
    }
  }
  return 'identical lines';
}

const files = corpus();
const adapter = prettierFormatter();

for (const config of CONFIGS) {
  test(`prettier adapter agrees with the prettier CLI (${config.name}, ${files.length} files${LONG ? ', long' : ''})`, async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'formatbox-prettier-agreement-'));
    try {
      const tree = join(work, 'files');
      for (const file of files) {
        mkdirSync(dirname(join(tree, file)), { recursive: true });
        writeFileSync(join(tree, file), readFileSync(`node_modules/${file}`));
      }
      const configArgs: string[] = [];
      if (Object.keys(config.settings).length > 0) {
        writeFileSync(join(work, 'prettierrc.json'), JSON.stringify(config.settings));
        configArgs.push('--config', join(work, 'prettierrc.json'));
      } else {
        configArgs.push('--no-config');
      }
      const cli = spawnSync(
        process.execPath,
        [
          `${process.cwd()}/${CLI}`, '--write', '--log-level=warn', '--no-editorconfig', '--no-cache',
          '--ignore-path', join(work, 'no-ignore-file'), ...configArgs, ...files,
        ],
        { cwd: tree, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      // `[error] path: message` per file the CLI could not format.
      const cliErrors = new Map<string, string>();
      for (const line of cli.stderr.split('\n')) {
        const match = /^\[error\] ([^:]+): (.*)$/.exec(line);
        if (match) cliErrors.set(match[1]!, match[2]!);
      }
      assert.ok(cli.status === 0 || cliErrors.size > 0, `prettier CLI failed: ${cli.stderr.slice(0, 2000)}`);

      let matches = 0;
      const tally = { changed: 0, bothFailed: 0, skipped: 0 };
      const unexplained: string[] = [];
      const explainedSeen = new Set<string>();
      for (const file of files) {
        const key = `${config.name}|${file}`;
        const input = normalise(readFileSync(`node_modules/${file}`, 'utf8'));
        const result = await adapter.format({
          path: file,
          language: languageOf(file) ?? 'unknown',
          text: input,
          settings: config.settings,
        });
        const cliError = cliErrors.get(file);
        let problem: string | undefined;
        if (result.kind === 'ok' && cliError === undefined) {
          const cliText = normalise(readFileSync(join(tree, file), 'utf8'));
          if (result.text !== cliText) problem = `output differs, ${firstDifference(result.text, cliText)}`;
        } else if (result.kind === 'ok') {
          problem = `only the CLI failed: ${cliError}`;
        } else if (cliError === undefined) {
          problem = `only the adapter failed: ${JSON.stringify(result)}`;
        }
        if (problem === undefined) {
          matches++;
          if (result.kind !== 'ok') tally.bothFailed++;
          else if (result.text !== input) tally.changed++;
        }
        else if (EXPLAINED[key]) explainedSeen.add(key);
        else unexplained.push(`${file}: ${problem}`);
      }
      const stale = Object.keys(EXPLAINED).filter(
        (key) => key.startsWith(`${config.name}|`) && files.includes(key.slice(config.name.length + 1)) && !explainedSeen.has(key),
      );
      t.diagnostic(`prettier agreement (${config.name}): ${matches}/${files.length} identical (${tally.changed} reformatted, ${tally.bothFailed} rejected by both, ${tally.skipped} skipped by both), ${explainedSeen.size} explained mismatches`);
      assert.deepEqual(unexplained, [], 'unexplained mismatches');
      assert.deepEqual(stale, [], 'EXPLAINED entries that no longer mismatch');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
