/**
 * Nested Biome configs, `.editorconfig` and line endings against the native Biome 2.4.15 CLI
 * (`biome format --write .` in the project directory, the binary of the devDependency): each case is
 * a small project; formatbox's bytes must equal what the CLI writes, or both must reject the config
 * (formatbox `failed`, the CLI exits non-zero). The rules come from Biome's own source
 * (biome_service projects.rs, workspace/server.rs, configuration.rs; biome_configuration editorconfig.rs).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createWorkerPool } from '../../src/node/worker-pool.js';
import { editorconfigGlobRegExp } from '../../src/formatters/biome/editorconfig.js';
import { writeTree } from '../write-tree.js';

const BIOME_BIN = new URL(`../../node_modules/@biomejs/cli-${process.platform}-${process.arch}/biome`, import.meta.url).pathname;
const base = mkdtempSync(join(tmpdir(), 'fb-biome-nested-'));
const pool = createWorkerPool({ timeoutMs: 30_000 });
after(async () => {
  await pool.close();
  rmSync(base, { recursive: true, force: true });
});

const TS = 'function f(){return {a:1,b:[1,2]}}\n';
const JSON_TEXT = '{"a":1,"b":[1,2],"c":{"d":"a string long enough to break the object over lines","e":[true,false]}}\n';
let counter = 0;

interface Compared {
  native: Record<string, string>;
  formatbox: Record<string, { content: string; status: string; reason?: string }>;
  nativeExit: number;
}

/** Formats every `a*` file with formatbox (check mode), then runs the native CLI on the same tree. */
async function compare(files: Record<string, string>): Promise<Compared> {
  const dir = join(base, `c${counter++}`);
  writeTree(dir, { '.git/': '', ...files });
  const sources = Object.keys(files).filter((f) => /(^|\/)a\d*\.\w+$/.test(f));
  const runtime = createRuntime({ root: dir, pool });
  const formatbox: Compared['formatbox'] = {};
  try {
    for (const path of sources) {
      const receipt = await runtime.format({ path, check: true });
      formatbox[path] = { content: receipt.content, status: receipt.status, ...(receipt.reason ? { reason: receipt.reason } : {}) };
    }
  } finally {
    await runtime.close();
  }
  const run = spawnSync(BIOME_BIN, ['format', '--write', '--colors=off', '.'], { cwd: dir, encoding: 'utf8' });
  const native = Object.fromEntries(sources.map((path) => [path, readFileSync(join(dir, path), 'utf8')]));
  return { native, formatbox, nativeExit: run.status ?? -1 };
}

/** formatbox wrote what the CLI wrote, for every file. */
function assertSameBytes(result: Compared, label: string): void {
  assert.equal(result.nativeExit, 0, `${label}: the CLI accepts the project`);
  for (const [path, native] of Object.entries(result.native)) {
    assert.equal(result.formatbox[path]?.content, native, `${label}: ${path} (${result.formatbox[path]?.status} ${result.formatbox[path]?.reason ?? ''})`);
  }
}

/** Both reject the config: the CLI exits non-zero and writes nothing, formatbox fails every file naming the config. */
function assertBothReject(result: Compared, files: Record<string, string>, label: string, reason: RegExp): void {
  assert.notEqual(result.nativeExit, 0, `${label}: the CLI rejects the project`);
  for (const [path, native] of Object.entries(result.native)) {
    assert.equal(native, files[path], `${label}: the CLI leaves ${path} as written`);
    assert.equal(result.formatbox[path]?.status, 'failed', `${label}: ${path}`);
    assert.match(result.formatbox[path]?.reason ?? '', reason, `${label}: ${path}`);
  }
}

const skip = existsSync(BIOME_BIN) ? false : `the native Biome binary is missing: ${BIOME_BIN}`;

test('.editorconfig: only the root config directory\'s, its [*.ts] section beats javascript.formatter, nested .editorconfig files are not read', { skip }, async () => {
  const files = {
    'biome.json': '{ "formatter": { "useEditorconfig": true, "indentStyle": "space" }, "javascript": { "formatter": { "indentWidth": 2 } } }',
    '.editorconfig': 'root = true\n[*]\nindent_size = 4\n[*.ts]\nindent_size = 6\n',
    'sub/biome.json': '{ "root": false, "extends": "//" }',
    'sub/.editorconfig': '[*]\nindent_size = 3\n',
    'a1.ts': TS,
    'sub/a2.ts': TS,
    'sub/a3.json': JSON_TEXT,
    'a4.json': JSON_TEXT,
  };
  const result = await compare(files);
  assertSameBytes(result, 'editorconfig');
  assert.match(result.native['a1.ts'] ?? '', /^ {6}return/m, 'the [*.ts] override applies');
  assert.match(result.native['sub/a3.json'] ?? '', /^ {4}"a"/m, 'sub/.editorconfig is not read');
});

test('.editorconfig insert_final_newline = false, unset values and indent_size = tab, as Biome maps them', { skip }, async () => {
  for (const editorconfig of ['[*]\ninsert_final_newline = false\n', '[*]\nindent_style = unset\nindent_size = unset\n', '[*]\nindent_size = tab\nend_of_line = crlf\n', '[*.json]\ninsert_final_newline = false\nindent_style = space\n']) {
    const files = { 'biome.json': '{ "formatter": { "useEditorconfig": true, "indentStyle": "space" } }', '.editorconfig': editorconfig, 'a1.json': JSON_TEXT, 'a2.ts': TS };
    assertSameBytes(await compare(files), JSON.stringify(editorconfig));
  }
});

test('an .editorconfig value Biome cannot parse stops the run; without useEditorconfig the file is not read', { skip }, async () => {
  const broken = { 'biome.json': '{ "formatter": { "useEditorconfig": true } }', '.editorconfig': '[*]\nindent_size = 30\n', 'a1.ts': TS };
  assertBothReject(await compare(broken), broken, 'indent_size = 30', /\.editorconfig/);
  const unused = { 'biome.json': '{}', '.editorconfig': '[*]\nindent_size = 30\n', 'a1.ts': TS };
  assertSameBytes(await compare(unused), 'not used');
});

test('line endings under nested configs: the outermost nested config holding the file wins (Biome keeps nested settings in path order)', { skip }, async () => {
  const files = {
    'biome.json': '{ "formatter": { "lineEnding": "lf" } }',
    'sub/biome.json': '{ "root": false, "formatter": { "lineEnding": "crlf" } }',
    'sub/deep/biome.json': '{ "root": false, "extends": "//", "formatter": { "lineEnding": "cr", "indentStyle": "space", "indentWidth": 8 } }',
    'a1.ts': TS.replace(/\n/g, '\r\n'),
    'sub/a2.ts': TS,
    'sub/deep/a3.ts': TS,
    'sub/deep/a4.json': `${JSON_TEXT.trim()}\r\n`,
  };
  const result = await compare(files);
  assertSameBytes(result, 'line endings');
  assert.match(result.native['sub/deep/a3.ts'] ?? '', /\r\n\treturn/, 'sub/deep/biome.json is not the one used');
});

test('a nested config extending the root gets the root .editorconfig; one that does not gets neither', { skip }, async () => {
  const files = {
    'biome.json': '{ "formatter": { "useEditorconfig": true }, "overrides": [{ "includes": ["**/*.json"], "formatter": { "lineWidth": 10 } }] }',
    '.editorconfig': '[*]\nindent_style = space\nindent_size = 3\nend_of_line = crlf\n',
    'ext/biome.json': '{ "root": false, "extends": "//", "overrides": [{ "includes": ["*.ts"], "formatter": { "indentWidth": 5 } }] }',
    'own/biome.json': '{ "root": false, "formatter": { "lineWidth": 40 } }',
    'a1.ts': TS,
    'ext/a2.ts': TS,
    'ext/a3.json': JSON_TEXT,
    'own/a4.ts': TS,
  };
  assertSameBytes(await compare(files), 'extends');
});

test('configs Biome rejects: a nested root config, a nested config with a wrong value, type or key; the root broken with a nested config', { skip }, async () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['nested root config', { 'biome.json': '{}', 'sub/biome.json': '{ "formatter": { "indentWidth": 8 } }' }, /nested root configuration/],
    ['root: true with extends', { 'biome.json': '{}', 'sub/biome.json': '{ "root": true, "extends": "//" }' }, /sub\/biome\.json/],
    ['unknown value', { 'biome.json': '{}', 'src/sub/biome.json': '{ "root": false, "css": { "formatter": { "indentStyle": "spaces" } } }' }, /unknown value/i],
    ['wrong type', { 'biome.json': '{}', 'src/sub/biome.json': '{ "root": false, "formatter": { "indentWidth": "4" } }' }, /incorrect type/i],
    ['unknown key', { 'biome.json': '{}', 'src/sub/biome.json': '{ "root": false, "formatter": { "foo": 1 } }' }, /unknown key/i],
  ];
  for (const [label, configs, reason] of cases) {
    const files = { ...configs, 'a1.ts': TS, 'src/sub/a2.css': 'a{color:red}\n', 'sub/a3.ts': TS };
    assertBothReject(await compare(files), files, label, reason);
  }
  // A syntax error in the root biome.json: the CLI reports it and exits 1 (it still writes files with its
  // defaults); formatbox refuses rather than use defaults.
  const files = { 'biome.json': '{ "formatter": { ', 'sub/biome.json': '{ "root": false }', 'a1.ts': TS, 'sub/a2.ts': TS };
  const result = await compare(files);
  assert.notEqual(result.nativeExit, 0);
  for (const path of ['a1.ts', 'sub/a2.ts']) assert.equal(result.formatbox[path]?.status, 'failed', path);
});

test('a nested config in a directory the root files.includes leaves out is never loaded, even a broken one', { skip }, async () => {
  const files = {
    'biome.json': '{ "files": { "includes": ["**", "!src/sub"] }, "formatter": { "indentStyle": "space" } }',
    'src/sub/biome.json': '{ "root": false, "css": { "formatter": { "indentStyle": "spaces" } } }',
    'src/sub/a1.css': 'a{color:red}\n',
    'a2.ts': TS,
  };
  const result = await compare(files);
  assertSameBytes(result, 'excluded nested config');
  assert.equal(result.formatbox['src/sub/a1.css']?.status, 'skipped');
});

test("editorconfig section globs match as Biome's EditorconfigGlob tests say (biome_glob/src/editorconfig.rs)", () => {
  const cases: Array<[string, string, boolean]> = [
    ['*.rs', 'lib.rs', true], ['*.rs', 'src/lib.rs', true], ['a*e.c', 'ace.c', true], ['a*e.c', 'a/e.c', false],
    ['Bar/*', 'Bar/foo.txt', true], ['Bar/*', 'bat/Bar/foo.txt', false], ['*', '.editorconfig', true],
    ['som?.c', 'some.c', true], ['som?.c', 'som/.c', false], ['[ab].a', 'b.a', true], ['[!ab].b', 'a.b', false],
    ['[d-g].c', 'f.c', true], ['{a,b}.x', 'b.x', true], ['{0..2}.x', '1.x', true], ['{0..2}.x', '3.x', false],
    ['{a}.x', '{a}.x', true], ['a/**/b', 'a/b', true], ['a/**/b', 'a/x/y/b', true], ['**.graphql', 'x/y.graphql', true],
  ];
  for (const [glob, path, expected] of cases) assert.equal(editorconfigGlobRegExp(glob)?.test(path) ?? false, expected, `${glob} ~ ${path}`);
  assert.equal(editorconfigGlobRegExp('{a,{b}}'), undefined, 'nested alternates are refused');
  assert.equal(editorconfigGlobRegExp('{2..1}'), undefined, 'a reversed range is refused');
});
