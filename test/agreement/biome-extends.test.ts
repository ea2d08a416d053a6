/**
 * Biome `extends`: formatbox's untrusted runtime against the native Biome CLI (same version) in real
 * project directories. Where formatbox formats, the bytes equal `biome format --write`'s; where it
 * refuses, the receipt is `failed` and names the config file and the reason (and, for a missing
 * file, a package that is not installed, or `"//"` inside a list, the native CLI fails too).
 * Packages resolved from node_modules: biome-package-extends.test.ts.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { assertRefused, formatbox } from './shared-config-fixtures.js';

const CLI = new URL('../../node_modules/@biomejs/biome/bin/biome', import.meta.url).pathname;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const JS = 'function f(){ if (x) { return "aaaaaaaaaaaaaa" + "bbbbbbbbbbbbbbbbbbb"; } }\nconst o = {a:1, b:[1,2,3]}\n';
const JSON_TEXT = '{"a":1,"list":[1,2,3],"nested":{"b":true}}\n';

function project(files: Record<string, string>): string {
  const base = mkdtempSync(join(tmpdir(), 'formatbox-biome-extends-'));
  dirs.push(base);
  const root = join(base, 'root');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  mkdirSync(join(root, '.git'), { recursive: true }); // The project root, for both.
  return root;
}

/** The native CLI on a copy: exit status and the bytes of `paths` afterwards. */
function native(root: string, paths: string[]): { status: number | null; output: string; files: Record<string, string> } {
  const copy = `${root}-native`;
  cpSync(root, copy, { recursive: true });
  const run = spawnSync(process.execPath, [CLI, 'format', '--write', '--no-errors-on-unmatched', ...paths], { cwd: copy, encoding: 'utf8' });
  const files = Object.fromEntries(paths.map((p) => [p, readFileSync(join(copy, p), 'utf8')]));
  rmSync(copy, { recursive: true, force: true });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, files };
}

interface AgreeCase {
  name: string;
  files: Record<string, string>;
  paths: string[];
}

const AGREE: AgreeCase[] = [
  {
    name: 'two extended files in order, overrides in both, includes in the first, the extending file last',
    files: {
      'biome.json': JSON.stringify({ extends: ['./shared/base.json', './shared/b2.json'], formatter: { lineWidth: 40 } }),
      'shared/base.json': JSON.stringify({
        formatter: { indentStyle: 'space', indentWidth: 3 },
        files: { includes: ['**', '!src/skip.ts'] },
        javascript: { formatter: { quoteStyle: 'single' } },
        overrides: [{ includes: ['src/o.ts'], formatter: { indentWidth: 6 } }],
      }),
      // Its own extends is not followed by Biome (b3 would drop semicolons).
      'shared/b2.json': JSON.stringify({ extends: ['./b3.json'], formatter: { indentWidth: 5 }, overrides: [{ includes: ['src/o2.ts'], formatter: { indentWidth: 7 } }] }),
      'shared/b3.json': JSON.stringify({ javascript: { formatter: { semicolons: 'asNeeded' } } }),
      'src/a.ts': JS, 'src/o.ts': JS, 'src/o2.ts': JS, 'src/skip.ts': JS, 'data.json': JSON_TEXT,
    },
    paths: ['src/a.ts', 'src/o.ts', 'src/o2.ts', 'src/skip.ts', 'data.json'],
  },
  {
    name: 'a JSONC extended file named without ./, replaced lists (files.includes of the extending file wins)',
    files: {
      'biome.jsonc': '// root\n{ "extends": ["config/fmt.jsonc"], "files": { "includes": ["**"] }, }\n',
      'config/fmt.jsonc': '{\n  // shared\n  "formatter": { "indentStyle": "space", "indentWidth": 2, "lineWidth": 30, },\n  "files": { "includes": ["**", "!src/gen.ts"] },\n  "json": { "formatter": { "expand": "always" } },\n}\n',
      'src/a.ts': JS, 'src/gen.ts': JS, 'data.json': JSON_TEXT,
    },
    paths: ['src/a.ts', 'src/gen.ts', 'data.json'],
  },
  {
    name: 'nested config extending "//" under a root config that extends a file; a nested config extending its own file',
    files: {
      'biome.json': JSON.stringify({ extends: ['./config/base.json'], formatter: { lineWidth: 50 } }),
      'config/base.json': JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 3 }, javascript: { formatter: { quoteStyle: 'single' } } }),
      'packages/app/biome.json': JSON.stringify({ root: false, extends: '//', formatter: { indentWidth: 4 } }),
      'packages/lib/biome.json': JSON.stringify({ root: false, extends: ['./fmt.json'] }),
      'packages/lib/fmt.json': JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 6 } }),
      'top.ts': JS, 'packages/app/src/a.ts': JS, 'packages/lib/src/a.ts': JS,
    },
    paths: ['top.ts', 'packages/app/src/a.ts', 'packages/lib/src/a.ts'],
  },
  {
    name: 'a config that extends itself',
    files: { 'biome.json': JSON.stringify({ extends: ['./biome.json'], formatter: { indentStyle: 'space' } }), 'a.ts': JS },
    paths: ['a.ts'],
  },
];

for (const c of AGREE) {
  test(`Biome extends agrees with the native CLI: ${c.name}`, async () => {
    const root = project(c.files);
    const expected = native(root, c.paths);
    assert.equal(expected.status, 0, expected.output);
    const got = await formatbox(root, c.paths);
    let changed = 0;
    for (const path of c.paths) {
      const receipt = got[path]!;
      assert.ok(['formatted', 'unchanged', 'skipped'].includes(receipt.status), `${path}: ${receipt.status} ${receipt.reason ?? ''}`);
      assert.equal(receipt.content, expected.files[path], `${path} (${receipt.status} ${receipt.reason ?? ''})`);
      if (expected.files[path] !== c.files[path]) changed++;
    }
    assert.ok(changed > 0, 'the native CLI changed nothing: the case proves nothing');
  });
}

interface RefuseCase {
  name: string;
  files: Record<string, string>;
  reason: RegExp;
  /** Whether the native CLI fails on it too (a path out of the root it reads; formatbox never does). */
  nativeFails: boolean;
}

const REFUSE: RefuseCase[] = [
  { name: 'a missing file', files: { 'biome.json': JSON.stringify({ extends: ['./shared/nope.json'] }) }, reason: /^invalid project config: biome\.json: extends "\.\/shared\/nope\.json" is not followed: shared\/nope\.json does not exist/, nativeFails: true },
  { name: 'a package name', files: { 'biome.json': JSON.stringify({ extends: ['some-shared-biome-config'] }) }, reason: /biome\.json: extends "some-shared-biome-config" is not followed: no package\.json in the project root/, nativeFails: true },
  { name: '"//" inside a list', files: { 'biome.json': '{}', 'pkg/biome.json': JSON.stringify({ root: false, extends: ['//', './x.json'] }), 'pkg/x.json': '{}' }, reason: /pkg\/biome\.json: Failed to resolve the configuration from \/\//, nativeFails: true },
  { name: 'a comment in an extended .json file', files: { 'biome.json': JSON.stringify({ extends: ['./base.json'] }), 'base.json': '{\n  // no\n  "formatter": {}\n}\n' }, reason: /^invalid project config: base\.json: not valid JSON \(Biome reads an extended \.json file as strict JSON\)/, nativeFails: true },
  { name: 'an unknown key in an extended file (Biome\'s own loader)', files: { 'biome.json': JSON.stringify({ extends: ['./base.jsonc'] }), 'base.jsonc': '{ "formatter": { "indentWidht": 3 } }\n' }, reason: /^invalid project config: base\.jsonc:1:\d+: .*indentWidht/, nativeFails: true },
  { name: 'a path out of the root', files: { 'biome.json': JSON.stringify({ extends: ['../outside.json'] }) }, reason: /biome\.json: extends "\.\.\/outside\.json" is not followed: a path outside the project root/, nativeFails: false },
];

for (const c of REFUSE) {
  test(`Biome extends is refused, naming the config and the reason: ${c.name}`, async () => {
    const path = c.files['pkg/biome.json'] ? 'pkg/a.ts' : 'a.ts';
    const root = project({ ...c.files, [path]: JS });
    writeFileSync(join(dirname(root), 'outside.json'), JSON.stringify({ formatter: { indentWidth: 8, indentStyle: 'space' } }));
    const expected = native(root, [path]);
    assert.equal(expected.status !== 0, c.nativeFails, expected.output);
    await assertRefused(root, path, JS, c.reason);
  });
}
