// Biome 1.x pins, through the 1.x wasm build (@biomejs/wasm-nodejs 1.9.4 fetched into the verified
// store): a project extending `ultracite@4` (installed from the registry, `$schema` 1.9.4) and one
// written with Biome 1's own config keys are formatted by formatbox and by the native
// `@biomejs/biome@1.9.4 format --write` (npx, from the registry) on copies; equal file for file on
// more than 200 real JS and TS files. Configs the 1.9.4 CLI rejects are refused, and what formatbox
// cannot apply as 1.x does is refused with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { parseBiomeV1Schema, unknownBiomeV1Key } from '../../src/formatters/biome/adapter-v1.js';
import { writeTree } from '../write-tree.js';
import { PINNED_CORPUS } from '../pinned-helpers.js';

const VERSION = '1.9.4';
const SCHEMA = `https://biomejs.dev/schemas/${VERSION}/schema.json`;
const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const run = (cwd: string, command: string, args: string[]) => spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000, env });
const biome = (cwd: string, args: string[]) => run(cwd, 'npx', ['-y', `@biomejs/biome@${VERSION}`, ...args]);

const base = mkdtempSync(join(tmpdir(), 'fb-pin-biome-v1-'));
const store = createFormatterStore({ dir: join(base, 'store') });
process.on('exit', () => rmSync(base, { recursive: true, force: true }));

/** A project of the real corpus under src/ (plus a JSON file), with `extra` files. */
function corpusLayout(extra: Record<string, string>): Record<string, string> {
  const layout: Record<string, string> = { '.git/': '', '.gitignore': 'node_modules\n', ...extra };
  PINNED_CORPUS.forEach((file, index) => {
    layout[`src/${String(index).padStart(3, '0')}${file.endsWith('.ts') ? '.ts' : '.js'}`] = readFileSync(file, 'utf8');
  });
  layout['src/data.json'] = '{"a":1,"b":[1,2,3],"c":{"d":true,   "e": "a very long string value that goes past the line width of the project"}}\n';
  return layout;
}

/** formatbox and the native 1.9.4 CLI on two copies of `layout`; every path's receipt and bytes. */
async function compare(t: import('node:test').TestContext, name: string, layout: Record<string, string>, install?: string[]) {
  const ours = join(base, name, 'ours');
  const theirs = join(base, name, 'theirs');
  writeTree(ours, layout);
  if (install) {
    const installed = run(ours, 'npm', ['install', '--ignore-scripts', '--no-save', ...install]);
    if (installed.status !== 0) {
      if (process.env.CI) assert.fail(`npm install ${install.join(' ')}: ${installed.stderr}`);
      t.skip(`npm install ${install.join(' ')} failed here: ${installed.stderr.slice(0, 200)}`);
      return undefined;
    }
  }
  cpSync(ours, theirs, { recursive: true });
  const cli = biome(theirs, ['format', '--write', 'src']);
  if (cli.status !== 0 && /npm ERR|ENOTFOUND|EAI_AGAIN/.test(cli.stderr) && !process.env.CI) {
    t.skip(`Biome ${VERSION} could not be run from the registry here`);
    return undefined;
  }
  const pinned = createPinnedFormatters({ store, timeoutMs: 20_000, waitMs: 180_000 });
  const runtime = createRuntime({ root: ours, pinned });
  const receipts = new Map<string, Awaited<ReturnType<typeof runtime.format>>>();
  try {
    for (const path of Object.keys(layout).filter((p) => p.startsWith('src/'))) receipts.set(path, await runtime.format({ path }));
  } finally {
    await Promise.all([runtime.close(), pinned.close()]);
  }
  return { ours, theirs, receipts, cli };
}

function assertIdentical(result: NonNullable<Awaited<ReturnType<typeof compare>>>): number {
  let changed = 0;
  for (const [path, receipt] of result.receipts) {
    assert.equal(receipt.formatter?.version, VERSION, `${path}: ${receipt.line}`);
    assert.ok(receipt.status === 'formatted' || receipt.status === 'unchanged', `${path}: ${receipt.line}`);
    const native = readFileSync(join(result.theirs, path), 'utf8');
    assert.equal(readFileSync(join(result.ours, path), 'utf8'), native, `${path} differs from Biome ${VERSION}'s CLI`);
    if (receipt.status === 'formatted') changed++;
  }
  return changed;
}

test(`a project extending ultracite@4 ($schema ${VERSION}): formatbox's bytes equal @biomejs/biome@${VERSION}'s CLI on ${PINNED_CORPUS.length + 1} real files`, async (t) => {
  const result = await compare(t, 'ultracite', corpusLayout({ 'package.json': JSON.stringify({ name: 'x', private: true }), 'biome.json': JSON.stringify({ $schema: SCHEMA, extends: ['ultracite'] }, null, 2) }), ['ultracite@4.2.13']);
  if (!result) return;
  assert.equal(result.cli.status, 0, result.cli.stderr.slice(0, 400));
  const changed = assertIdentical(result);
  assert.ok(changed > 100, `${changed} files changed: the config must do something`);
  t.diagnostic(`${result.receipts.size} files equal to Biome ${VERSION}'s CLI, ${changed} of them changed`);
});

test(`Biome 1's own config keys (indentStyle, quoteStyle, files.ignore, formatter.include, overrides[].include): equal to the ${VERSION} CLI`, async (t) => {
  const config = {
    $schema: SCHEMA,
    files: { ignore: ['src/00*.ts'] },
    formatter: { indentStyle: 'space', indentWidth: 4, lineWidth: 100, include: ['src/**'], ignore: ['src/01*.ts'] },
    javascript: { formatter: { quoteStyle: 'single', semicolons: 'asNeeded', trailingCommas: 'es5', arrowParentheses: 'asNeeded' } },
    json: { formatter: { indentWidth: 3 } },
    overrides: [{ include: ['src/1*.js'], formatter: { indentStyle: 'tab', lineWidth: 60 } }],
    organizeImports: { enabled: true },
    linter: { enabled: true, rules: { all: true } },
  };
  const result = await compare(t, 'v1-keys', corpusLayout({ 'package.json': JSON.stringify({ name: 'x', private: true }), 'biome.json': JSON.stringify(config, null, 2) }));
  if (!result) return;
  assert.equal(result.cli.status, 0, result.cli.stderr.slice(0, 400));
  let skipped = 0;
  for (const [path, receipt] of result.receipts) {
    if (receipt.status === 'skipped') {
      skipped++;
      assert.ok(/^src\/0[01]/.test(path), `${path}: ${receipt.line}`);
      assert.equal(readFileSync(join(result.theirs, path), 'utf8'), readFileSync(join(result.ours, path), 'utf8'), `${path}: the CLI left it too`);
      result.receipts.delete(path);
    }
  }
  assert.ok(skipped >= 10, `${skipped} files ignored by files.ignore / formatter.ignore`);
  const changed = assertIdentical(result);
  assert.ok(changed > 100, `${changed} changed`);
});

test(`configs the ${VERSION} CLI rejects are refused; a nested config and useEditorconfig are refused with the reason`, async (t) => {
  const source = { 'src/a.ts': 'const a = {b:"x"}\n' };
  const cases: Array<{ name: string; files: Record<string, string>; reason: RegExp; nativeRejects: boolean }> = [
    { name: 'unknown key', files: { 'biome.json': JSON.stringify({ $schema: SCHEMA, formatter: { indentStyle: 'tab', foo: 1 } }) }, reason: /unknown key `formatter\.foo`/, nativeRejects: true },
    { name: 'a comment in biome.json', files: { 'biome.json': `// note\n${JSON.stringify({ $schema: SCHEMA })}` }, reason: /reads biome\.json as JSON/, nativeRejects: true },
    { name: 'a bad value', files: { 'biome.json': JSON.stringify({ $schema: SCHEMA, javascript: { formatter: { quoteStyle: 'backtick' } } }) }, reason: /unknown variant `backtick`/, nativeRejects: true },
    { name: 'a Biome 2 key', files: { 'biome.json': JSON.stringify({ $schema: SCHEMA, files: { includes: ['**'] } }) }, reason: /unknown key `files\.includes`/, nativeRejects: true },
    // Biome 1.x never reads a nested biome.json; formatbox refuses rather than apply it (with `root: false`) or
    // Biome 2's rule for a second root config (without).
    { name: 'a nested config', files: { 'biome.json': JSON.stringify({ $schema: SCHEMA }), 'src/biome.json': JSON.stringify({ root: false, formatter: { indentWidth: 8 } }) }, reason: /reads only the root config|unknown key `root`/, nativeRejects: false },
    { name: 'a nested root config', files: { 'biome.json': JSON.stringify({ $schema: SCHEMA }), 'src/biome.json': JSON.stringify({ formatter: { indentWidth: 8 } }) }, reason: /nested root configuration/, nativeRejects: false },
    { name: 'useEditorconfig', files: { 'biome.json': JSON.stringify({ $schema: SCHEMA, formatter: { useEditorconfig: true } }), '.editorconfig': '[*]\nindent_style = space\n' }, reason: /useEditorconfig/, nativeRejects: false },
  ];
  for (const item of cases) {
    const dir = join(base, 'refusals', item.name.replace(/\W+/g, '-'));
    writeTree(dir, { '.git/': '', ...item.files, ...source });
    const native = biome(dir, ['format', '--write', 'src']);
    if (native.status !== 0 && /npm ERR|ENOTFOUND/.test(native.stderr) && !process.env.CI) return t.skip('no registry');
    // Where the CLI rejects the config it writes nothing; elsewhere it formats with the root config (and,
    // for a nested biome.json, reports its 1.x-unknown `root` key and exits 1 after writing).
    const written = readFileSync(join(dir, 'src/a.ts'), 'utf8') !== source['src/a.ts'];
    assert.equal(!written && native.status !== 0, item.nativeRejects, `${item.name}: the native CLI ${item.nativeRejects ? 'rejects' : 'formats'} it (${native.stdout.slice(0, 200)})`);
    writeTree(dir, source);
    const pinned = createPinnedFormatters({ store, timeoutMs: 20_000, waitMs: 180_000 });
    const runtime = createRuntime({ root: dir, pinned });
    try {
      const receipt = await runtime.format({ path: 'src/a.ts' });
      assert.equal(receipt.status, 'failed', `${item.name}: ${receipt.line}`);
      assert.match(receipt.line, item.reason, item.name);
      assert.equal(readFileSync(join(dir, 'src/a.ts'), 'utf8'), source['src/a.ts']);
    } finally {
      await Promise.all([runtime.close(), pinned.close()]);
    }
  }
});

test("the 1.x schema reader finds unknown keys at any depth of the version's own declarations", () => {
  const schema = parseBiomeV1Schema('interface PartialConfiguration {\n\tformatter?: PartialFormatterConfiguration;\n\toverrides?: Overrides;\n}\ninterface PartialFormatterConfiguration {\n\tindentWidth?: number;\n}\ntype Overrides = OverridePattern[];\ninterface OverridePattern {\n\tformatter?: PartialFormatterConfiguration | null;\n\tinclude?: StringSet;\n}\n');
  assert.equal(unknownBiomeV1Key(schema, 'PartialConfiguration', { formatter: { indentWidth: 2 }, overrides: [{ include: ['a'] }] }), undefined);
  assert.equal(unknownBiomeV1Key(schema, 'PartialConfiguration', { overrides: [{ formatter: { indentSize: 2 } }] }), 'overrides[0].formatter.indentSize');
  assert.equal(unknownBiomeV1Key(schema, 'PartialConfiguration', { root: false }), 'root');
});
