// Agreement: formatbox's Prettier adapter (prettier/standalone + built-in plugins) against the
// prettier CLI of the same version, on code nobody here wrote: prettier's own files and TypeScript's
// lib.*.d.ts, plus a few Markdown, JSON, CSS, YAML and HTML files found on this machine.
// One CLI process per configuration formats the whole sample (`--write` in a temp copy).
// Default: a deterministic sample. FORMATBOX_LONG=1: every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';
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

interface CorpusFile {
  /** Where the bytes come from. */
  source: string;
  /** The project-relative path given to both formatters (it decides the parser). */
  path: string;
}

/** Every n-th item, spread over the sorted list, so the sample is the same every run. */
function spread<T>(items: T[], count: number): T[] {
  if (LONG || items.length <= count) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, index) => items[Math.floor(index * step)]!);
}

/** Files under `dir` (when it exists on this machine) placed under `prefix/` in the corpus. */
function external(dir: string, prefix: string, pattern: RegExp, count: number): CorpusFile[] {
  if (!existsSync(dir)) {
    console.log(`# prettier agreement: ${dir} missing, left out of the corpus`);
    return [];
  }
  const files = walk(dir).filter((file) => pattern.test(file) && statSync(file).size <= 200_000);
  return spread(files, count).map((source) => ({ source, path: `${prefix}/${source.slice(dir.length + 1)}` }));
}

/** The corpus (prettier's own files, TypeScript's lib.*.d.ts), then the other languages. */
function corpus(): CorpusFile[] {
  const prettierFiles = walk('node_modules/prettier')
    .filter((file) => /\.(m?js|d\.ts)$/.test(file))
    // The sample leaves out the big minified plugin bundles (each expands to tens of thousands of lines).
    .filter((file) => LONG || statSync(file).size <= 100_000);
  const libFiles = readdirSync('node_modules/typescript/lib')
    .filter((name) => /^lib\..*\.d\.ts$/.test(name))
    .sort()
    .map((name) => `node_modules/typescript/lib/${name}`)
    // Every fourth file; the two giants (lib.dom, lib.webworker) only in the long run.
    .filter((file, index) => LONG || (index % 4 === 0 && statSync(file).size <= 250_000));
  const fromModules = [...prettierFiles, ...libFiles].map((source) => ({ source, path: source.slice('node_modules/'.length) }));
  // A file under a nested node_modules/ is one the CLI ignores (without --with-node-modules): not a sample.
  const moduleFiles = (pattern: RegExp, count: number) =>
    spread(walk('node_modules').filter((file) => pattern.test(file) && !file.slice('node_modules/'.length).includes('node_modules/') && statSync(file).size <= 200_000), count)
      .map((source) => ({ source, path: source.slice('node_modules/'.length) }));
  return [
    ...fromModules,
    ...moduleFiles(/\.md$/, 12),
    ...moduleFiles(/\/[^/]+\.json$/, 8),
    ...external('/root/.rustup/toolchains', 'rust-docs', /\/share\/doc\/.*\.css$/, 6),
    ...external('/root/.pyenv', 'pyenv', /\.ya?ml$/, 8),
    ...external('/usr/share/doc/libffi8/html', 'libffi-doc', /\.html$/, 4),
  ];
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
        mkdirSync(dirname(join(tree, file.path)), { recursive: true });
        writeFileSync(join(tree, file.path), readFileSync(file.source));
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
          '--ignore-path', join(work, 'no-ignore-file'), ...configArgs, ...files.map((file) => file.path),
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
      const rejectedByBoth: string[] = [];
      const unexplained: string[] = [];
      const explainedSeen = new Set<string>();
      for (const file of files) {
        const key = `${config.name}|${file.path}`;
        const input = normalise(readFileSync(file.source, 'utf8'));
        const result = await adapter.format({
          path: file.path,
          language: languageOf(file.path) ?? 'unknown',
          text: input,
          settings: config.settings,
        });
        const cliError = cliErrors.get(file.path);
        let problem: string | undefined;
        if (result.kind === 'ok' && cliError === undefined) {
          const cliText = normalise(readFileSync(join(tree, file.path), 'utf8'));
          if (result.text !== cliText) problem = `output differs, ${firstDifference(result.text, cliText)}`;
        } else if (result.kind === 'ok') {
          problem = `only the CLI failed: ${cliError}`;
        } else if (cliError === undefined) {
          problem = `only the adapter failed: ${JSON.stringify(result)}`;
        }
        if (problem === undefined) {
          matches++;
          if (result.kind !== 'ok') {
            tally.bothFailed++;
            rejectedByBoth.push(`${file.path} (${JSON.stringify(result)})`);
          }
          else if (result.text !== input) tally.changed++;
        }
        else if (EXPLAINED[key]) explainedSeen.add(key);
        else unexplained.push(`${file.path}: ${problem}`);
      }
      const paths = new Set(files.map((file) => file.path));
      const stale = Object.keys(EXPLAINED).filter(
        (key) => key.startsWith(`${config.name}|`) && paths.has(key.slice(config.name.length + 1)) && !explainedSeen.has(key),
      );
      t.diagnostic(`prettier agreement (${config.name}): ${matches}/${files.length} identical (${tally.changed} reformatted, ${tally.bothFailed} rejected by both, ${tally.skipped} skipped by both), ${explainedSeen.size} explained mismatches`);
      if (rejectedByBoth.length > 0) t.diagnostic(`rejected by both: ${rejectedByBoth.join('; ')}`);
      assert.deepEqual(unexplained, [], 'unexplained mismatches');
      assert.deepEqual(stale, [], 'EXPLAINED entries that no longer mismatch');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
