// Agreement: formatbox's Biome adapter (@biomejs/wasm-web) against the native Biome CLI of the same
// version (@biomejs/biome), on JS/TS/JSON files from node_modules and the CSS of the Rust docs.
// One CLI process per configuration formats the whole sample (`format --write` in a temp copy).
// Default: a deterministic sample. FORMATBOX_LONG=1: every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { biomeFormatter } from '../../src/formatters/biome/adapter.js';
import { languageOf } from '../../src/core/languages.js';

const LONG = process.env.FORMATBOX_LONG === '1';
const CLI = 'node_modules/@biomejs/biome/bin/biome';
const RUST_DOCS = '/root/.rustup/toolchains';

/**
 * Mismatches that were investigated, keyed `<config>|<corpus path>`, with their cause.
 * An entry that no longer mismatches fails the test, so the table stays true.
 */
const EXPLAINED: Readonly<Record<string, string>> = {};

const CONFIGS: ReadonlyArray<{ name: string; settings: Record<string, unknown> }> = [
  { name: 'defaults', settings: {} },
  {
    name: 'space+lineWidth100',
    settings: { formatter: { indentStyle: 'space', lineWidth: 100 }, javascript: { formatter: { quoteStyle: 'single' } } },
  },
];

/** Biome's CLI skips files above `files.maxSize` (1 MiB by default); the sample leaves them out. */
const MAX_SIZE = 1024 * 1024;

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = `${dir}/${name}`;
    const stat = statSync(full);
    if (stat.isDirectory()) found.push(...walk(full, keep));
    else if (keep(full)) found.push(full);
  }
  return found;
}

/** Every `step`-th item, so the sample is spread over the sorted list and the same every run. */
function spread<T>(items: T[], count: number): T[] {
  if (LONG || items.length <= count) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, index) => items[Math.floor(index * step)]!);
}

interface CorpusFile {
  /** Where the bytes come from. */
  source: string;
  /** The project-relative path given to both formatters. */
  path: string;
}

function corpus(): CorpusFile[] {
  const fromModules = (pattern: RegExp) =>
    walk('node_modules', (file) => pattern.test(file) && !/\/biome\.jsonc?$/.test(file) && statSync(file).size <= MAX_SIZE)
      .map((source) => ({ source, path: source.slice('node_modules/'.length) }));
  const js = spread(fromModules(/\.[cm]?js$/), 30);
  const ts = spread(fromModules(/\.[cm]?ts$/), 20);
  const json = spread(fromModules(/\.json$/), 15);
  const css: CorpusFile[] = [];
  if (existsSync(RUST_DOCS)) {
    const seen = new Set<string>();
    for (const source of walk(RUST_DOCS, (file) => file.endsWith('.css') && file.includes('/share/doc/'))) {
      const name = source.slice(source.lastIndexOf('/') + 1); // content-hashed names: same name, same bytes
      if (seen.has(name)) continue;
      seen.add(name);
      css.push({ source, path: `rust-docs/${name}` });
    }
  } else {
    console.log(`# biome agreement: ${RUST_DOCS} missing, no CSS in the corpus`);
  }
  return [...js, ...ts, ...json, ...css];
}

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
const adapter = biomeFormatter({ wasm: () => Promise.resolve(readFileSync('node_modules/@biomejs/wasm-web/biome_wasm_bg.wasm')) });

test('the native Biome CLI used here is the same version as the wasm build', () => {
  const cli = JSON.parse(readFileSync('node_modules/@biomejs/biome/package.json', 'utf8')).version;
  const wasm = JSON.parse(readFileSync('node_modules/@biomejs/wasm-web/package.json', 'utf8')).version;
  assert.equal(cli, wasm);
});

for (const config of CONFIGS) {
  test(`biome adapter agrees with the biome CLI (${config.name}, ${files.length} files${LONG ? ', long' : ''})`, async (t) => {
    const work = mkdtempSync(join(tmpdir(), 'formatbox-biome-agreement-'));
    try {
      for (const file of files) {
        mkdirSync(dirname(join(work, file.path)), { recursive: true });
        writeFileSync(join(work, file.path), readFileSync(file.source));
      }
      writeFileSync(join(work, 'biome.json'), JSON.stringify(config.settings));
      const cli = spawnSync(
        process.execPath,
        [`${process.cwd()}/${CLI}`, 'format', '--write', '--reporter=json', '--max-diagnostics=none', ...files.map((file) => file.path)],
        { cwd: work, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
      );
      const report = JSON.parse(cli.stdout) as {
        diagnostics: Array<{ severity: string; message: string; category?: string; location?: { path?: string } }>;
      };
      const cliErrors = new Map<string, string>();
      for (const diagnostic of report.diagnostics) {
        const path = diagnostic.location?.path;
        if (path && diagnostic.severity === 'error' && !cliErrors.has(path)) cliErrors.set(path, diagnostic.message);
      }

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
        const cliText = normalise(readFileSync(join(work, file.path), 'utf8'));
        let problem: string | undefined;
        if (result.kind === 'error') {
          if (cliError === undefined) problem = `only the adapter failed: ${result.message}`;
        } else if (cliError !== undefined) {
          problem = `only the CLI failed: ${cliError}`;
        } else {
          // `unsupported` (ignored/protected) means the adapter leaves the file as it is, as the CLI's skip does.
          const adapterText = result.kind === 'ok' ? result.text : input;
          if (adapterText !== cliText) problem = `${result.kind}: output differs, ${firstDifference(adapterText, cliText)}`;
        }
        if (problem === undefined) {
          matches++;
          if (result.kind === 'error') {
            tally.bothFailed++;
            rejectedByBoth.push(`${file.path} (${result.message})`);
          }
          else if (result.kind !== 'ok') tally.skipped++;
          else if (result.text !== input) tally.changed++;
        }
        else if (EXPLAINED[key]) explainedSeen.add(key);
        else unexplained.push(`${file.path}: ${problem}`);
      }
      const paths = new Set(files.map((file) => file.path));
      const stale = Object.keys(EXPLAINED).filter(
        (key) => key.startsWith(`${config.name}|`) && paths.has(key.slice(config.name.length + 1)) && !explainedSeen.has(key),
      );
      t.diagnostic(`biome agreement (${config.name}): ${matches}/${files.length} identical (${tally.changed} reformatted, ${tally.bothFailed} rejected by both, ${tally.skipped} skipped by both), ${explainedSeen.size} explained mismatches`);
      if (rejectedByBoth.length > 0) t.diagnostic(`rejected by both: ${rejectedByBoth.join('; ')}`);
      assert.deepEqual(unexplained, [], 'unexplained mismatches');
      assert.deepEqual(stale, [], 'EXPLAINED entries that no longer mismatch');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
}
