/**
 * Configs the differential config fuzzer (config-fuzz.test.ts, its `prettier-wide` and `biome-wide`
 * generators) found disagreeing with the native CLIs, kept as fixed cases: each project is formatted by
 * formatbox (`runtime.format({check: true})`) and by the native CLI on the same files (Prettier's own
 * CLI entry through config-fuzz/prettier-cli-driver.mjs, `prettier --write <file>`); the bytes must be
 * equal, or both must refuse (formatbox `failed` naming the config, the CLI exits non-zero and leaves
 * the file).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createWorkerPool } from '../../src/node/worker-pool.js';
import { writeTree } from '../write-tree.js';

const PRETTIER_DRIVER = new URL('./config-fuzz/prettier-cli-driver.mjs', import.meta.url).pathname;
const base = mkdtempSync(join(tmpdir(), 'fb-fuzz-regressions-'));
const pool = createWorkerPool({ timeoutMs: 30_000 });
after(async () => {
  await pool.close();
  rmSync(base, { recursive: true, force: true });
});
let counter = 0;

const TS_CRLF = 'const  a = {b:1}\r\nfunction f(x:number){ return x }\r\n';
const CSS_CR = 'a{color:red}\r.b{display:none}\r';
const YAML_MIXED = 'a:   1\r\nb:\n    - x\n';

/** formatbox, then Prettier's CLI, on every `f*` file of `files`; both outcomes per file. */
async function comparePrettier(files: Record<string, string>) {
  const dir = join(base, `p${counter++}`);
  writeTree(dir, { '.git/': '', ...files });
  const sources = Object.keys(files).filter((f) => /(^|\/)f\d*\.\w+$/.test(f));
  const runtime = createRuntime({ root: dir, pool });
  const ours: Record<string, { content: string; status: string; reason?: string }> = {};
  try {
    for (const path of sources) {
      const receipt = await runtime.format({ path, check: true });
      ours[path] = { content: receipt.content, status: receipt.status, ...(receipt.reason ? { reason: receipt.reason } : {}) };
    }
  } finally {
    await runtime.close();
  }
  const run = spawnSync(process.execPath, [PRETTIER_DRIVER, ...sources.map((file) => `${dir}\t${file}`)], { encoding: 'utf8' });
  const exits = new Map(run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { file: string; exitCode: number }).map((entry) => [entry.file, entry.exitCode]));
  return sources.map((path) => ({ path, ours: ours[path]!, native: readFileSync(join(dir, path), 'utf8'), exit: exits.get(path), original: files[path]! }));
}

function assertAgree(results: Awaited<ReturnType<typeof comparePrettier>>, label: string): void {
  for (const result of results) {
    const refused = result.ours.status === 'failed' && /invalid project config/.test(result.ours.reason ?? '');
    if (refused) {
      assert.notEqual(result.exit, 0, `${label}: ${result.path}: formatbox refuses (${result.ours.reason}), the CLI formats`);
      assert.equal(result.native, result.original, `${label}: ${result.path}: the CLI left it`);
    } else {
      assert.equal(result.ours.content, result.native, `${label}: ${result.path} (${result.ours.status} ${result.ours.reason ?? ''})`);
    }
  }
}

test('requirePragma: a file without a pragma is left as written, line endings included; one with a pragma is formatted with endOfLine', async () => {
  // Found as seeds 1 of prettier-wide (projects 17, 49, 57, 91, …): formatbox rewrote the line endings of untouched files.
  const cases: Array<Record<string, string>> = [
    { 'package.json': JSON.stringify({ name: 'x', private: true, prettier: { requirePragma: true, endOfLine: 'cr', bracketSpacing: false } }), 'f0.ts': TS_CRLF, 'f1.yaml': YAML_MIXED, 'f2.css': CSS_CR },
    { '.prettierrc.toml': 'objectWrap = "collapse"\nrequirePragma = true\n', '.editorconfig': '[*]\nindent_style = tab\nend_of_line = cr\n', 'f0.ts': TS_CRLF, 'f1.md': '# T\r\n\r\n* a\r\n', 'f2.scss': '$c: red;\r\n.a{ .b{color:$c}}\r\n' },
    { '.prettierrc': '{"requirePragma": true}', 'f0.ts': `/** @format */\r\n${TS_CRLF}`, 'f1.css': `/* @prettier */\r\n${CSS_CR}`, 'f2.ts': 'const a = 1;\r\n', 'f3.json': '{"a":1}\r\n', 'f4.md': '<!-- @format -->\r\n\r\n# T\r\n' },
  ];
  for (const [index, files] of cases.entries()) {
    const results = await comparePrettier(files);
    assertAgree(results, `case ${index}`);
    for (const result of results) {
      if (/@format|@prettier/.test(result.original)) assert.equal(result.ours.status, 'formatted', `${result.path} has a pragma`);
      // Prettier 3.10's JSON parsers format a file without a pragma anyway (the CLI does; assertAgree checked the bytes).
      else if (!result.path.endsWith('.json')) assert.equal(result.ours.content, result.original, `${result.path}: no pragma, left as written`);
    }
  }
});

test('a parser neither Prettier nor a listed plugin has: both refuse, where formatbox formatted with the inferred parser', async () => {
  // Found as seed 1 of prettier-wide (projects 269, 385): formatbox listed `parser` as ignored and formatted.
  for (const files of <Array<Record<string, string>>>[
    { '.prettierrc.json': '{"parser": "nope", "singleAttributePerLine": true}', 'f0.css': 'a{color:red}\n', 'f1.json': '{"a":1}\n' },
    { '.prettierrc.toml': 'trailingComma = "es5"\nparser = "svelte"\n', 'f0.scss': '$c: red;\n.a{ .b{color:$c}}\n', 'f1.md': '# T\n\n* a\n' },
  ]) {
    const results = await comparePrettier(files);
    assertAgree(results, JSON.stringify(files));
    for (const result of results) {
      assert.equal(result.ours.status, 'failed', result.path);
      assert.match(result.ours.reason ?? '', /Couldn't resolve parser/);
    }
  }
});

const BIOME_BIN = new URL(`../../node_modules/@biomejs/cli-${process.platform}-${process.arch}/biome`, import.meta.url).pathname;

test('Biome: json.formatter.enabled true beats formatter.enabled false (with formatWithErrors, on a .json file with comments)', async () => {
  // Found as seed 3 of biome-wide (project 342): formatbox skipped the file, the CLI formats it with its errors.
  const dir = join(base, `b${counter++}`);
  const files = {
    'biome.json': JSON.stringify({ formatter: { enabled: false, formatWithErrors: true }, javascript: { formatter: { enabled: false } }, json: { formatter: { enabled: true } } }),
    'f0.json': '{\r\n  // a comment\n  "a": [1, 2, 3],\n  "b": {"c": null},\n}\n',
    'f1.json': '{"a":1,"b":[1,2]}\n',
    'f2.js': 'let s = {a:1}\n',
  };
  writeTree(dir, { '.git/': '', ...files });
  const runtime = createRuntime({ root: dir, pool });
  const ours: Record<string, string> = {};
  try {
    for (const path of ['f0.json', 'f1.json', 'f2.js']) ours[path] = (await runtime.format({ path, check: true })).content;
  } finally {
    await runtime.close();
  }
  spawnSync(BIOME_BIN, ['format', '--write', '--colors=off', '.'], { cwd: dir, encoding: 'utf8' });
  for (const path of ['f0.json', 'f1.json', 'f2.js']) assert.equal(ours[path], readFileSync(join(dir, path), 'utf8'), path);
  assert.notEqual(ours['f1.json'], files['f1.json'], 'the JSON formatter ran');
  assert.equal(ours['f2.js'], files['f2.js'], 'the JavaScript formatter stays off');
});
