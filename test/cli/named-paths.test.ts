// Paths a person names (`format --stdin-filepath`, `format PATHS`, `doctor PATH`) find their own
// project from the file's location wherever the command runs, as an editor (conform.nvim, Helix,
// Zed) runs formatters from its own working directory: from another project's directory and from
// /tmp, formatbox's bytes equal `prettier --stdin-filepath`'s and `biome format --stdin-file-path`'s
// in the file's project, through the daemon and in-process. Requests from agents keep the
// containment rule: `apply` and `serve` from another project are still refused.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { EXIT_CODE_BY_ERROR } from '../../src/cli/exit-codes.js';
import { cleanUp, installCopy, isolatedEnv, project, REPO, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const noDaemon = { ...iso.env, FORMATBOX_NO_DAEMON: '1' };
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const MESSY = "function f(a,b){return {a:a,b:\"b\"}}\nexport const list=[1,2,3].map(x=>x*2)\n";

function gitProject(files: Record<string, string>): string {
  const root = project(files);
  mkdirSync(join(root, '.git'));
  dirs.push(root);
  return root;
}

// Neither is the tool's default, so a run that misses the file's own config cannot pass.
const PRETTIER_PROJECT = { '.prettierrc': '{ "tabWidth": 4, "singleQuote": true, "semi": false }\n', 'src/x.ts': MESSY };
const BIOME_PROJECT = { 'biome.json': '{ "formatter": { "indentStyle": "space", "indentWidth": 3 }, "javascript": { "formatter": { "quoteStyle": "single" } } }\n', 'src/x.ts': MESSY };

/** The official tool's answer for `file` in its own project (Biome reads the config of the directory it runs in). */
function official(tool: 'prettier' | 'biome', root: string, file: string): string {
  const run = tool === 'prettier'
    ? spawnSync(join(REPO, 'node_modules/.bin/prettier'), ['--stdin-filepath', file], { cwd: tmpdir(), input: MESSY, encoding: 'utf8' })
    : spawnSync(join(REPO, 'node_modules/.bin/biome'), ['format', `--stdin-file-path=${file}`], { cwd: root, input: MESSY, encoding: 'utf8' });
  assert.equal(run.status, 0, `${tool}: ${run.stderr}`);
  assert.notEqual(run.stdout, MESSY, `${tool}: the case formats something`);
  return run.stdout;
}

for (const tool of ['prettier', 'biome'] as const) {
  test(`--stdin-filepath from another project's directory and from /tmp: ${tool}'s own bytes`, { timeout: 180_000 }, async () => {
    const root = gitProject(tool === 'prettier' ? PRETTIER_PROJECT : BIOME_PROJECT);
    const elsewhere = gitProject({ 'biome.json': '{}\n', '.prettierrc': '{ "tabWidth": 8 }\n' });
    const file = join(root, 'src/x.ts');
    const expected = official(tool, root, file);
    for (const [mode, env] of [['through the daemon', iso.env], ['in-process', noDaemon]] as const) {
      for (const cwd of [elsewhere, tmpdir()]) {
        for (const named of [file, relative(cwd, file)]) {
          const run = await runCli(built.cli, ['format', '--stdin-filepath', named], { env, cwd, input: MESSY });
          assert.equal(run.code, 0, `${mode}, from ${cwd}, ${named}: ${run.stderr}`);
          assert.ok(run.stdout === expected, `${mode}, from ${cwd}, ${named}: formatbox's bytes differ from ${tool}'s:\n${run.stdout}\n---\n${expected}`);
        }
      }
    }
  });
}

test('format PATHS from another project: each file in its own project (named files, a directory walk, --check)', { timeout: 180_000 }, async () => {
  const prettierRoot = gitProject(PRETTIER_PROJECT);
  const biomeRoot = gitProject(BIOME_PROJECT);
  const elsewhere = gitProject({ 'biome.json': '{}\n' });
  const expected = { prettier: official('prettier', prettierRoot, join(prettierRoot, 'src/x.ts')), biome: official('biome', biomeRoot, join(biomeRoot, 'src/x.ts')) };
  for (const [mode, env] of [['through the daemon', iso.env], ['in-process', noDaemon]] as const) {
    const check = await runCli(built.cli, ['format', '--check', join(prettierRoot, 'src/x.ts'), join(biomeRoot, 'src')], { env, cwd: elsewhere });
    assert.equal(check.code, 1, `${mode}: --check finds both would change: ${check.stdout}${check.stderr}`);
    assert.equal(readFileSync(join(prettierRoot, 'src/x.ts'), 'utf8'), MESSY, '--check writes nothing');
    for (const cwd of [elsewhere, tmpdir()]) {
      const write = await runCli(built.cli, ['format', '--write', join(prettierRoot, 'src/x.ts'), join(biomeRoot, 'src/x.ts')], { env, cwd });
      assert.equal(write.code, 0, `${mode}, from ${cwd}: ${write.stdout}${write.stderr}`);
      assert.equal(readFileSync(join(prettierRoot, 'src/x.ts'), 'utf8'), expected.prettier, `${mode}, from ${cwd}: prettier's bytes`);
      assert.equal(readFileSync(join(biomeRoot, 'src/x.ts'), 'utf8'), expected.biome, `${mode}, from ${cwd}: biome's bytes`);
      const again = await runCli(built.cli, ['format', '--check', join(prettierRoot, 'src'), join(biomeRoot, 'src/x.ts')], { env, cwd });
      assert.equal(again.code, 0, `${mode}, from ${cwd}: already formatted: ${again.stdout}${again.stderr}`);
      for (const root of [prettierRoot, biomeRoot]) writeFileSync(join(root, 'src/x.ts'), MESSY);
    }
  }
});

test('doctor PATH from /tmp answers for the path\'s project; a path that does not exist is an error', { timeout: 120_000 }, async () => {
  const root = gitProject(BIOME_PROJECT);
  const doctor = await runCli(built.cli, ['doctor', '--json', join(root, 'src')], { env: iso.env, cwd: tmpdir() });
  assert.equal(doctor.code, 0, doctor.stderr);
  const report = JSON.parse(doctor.stdout) as { root: string; languages: Array<{ formatter?: string }> };
  assert.equal(report.root, root);
  assert.ok(report.languages.some((l) => l.formatter === 'biome'), 'the project\'s biome.json is read');
  const missing = await runCli(built.cli, ['doctor', join(root, 'nope')], { env: iso.env, cwd: root });
  assert.equal(missing.code, 2, missing.stdout);
  assert.match(missing.stderr, /nope: no such file or directory/);
  assert.equal(missing.stdout, '');
});

test('requests from agents keep the containment rule: apply and serve from another project are refused', { timeout: 120_000 }, async () => {
  const root = gitProject(BIOME_PROJECT);
  const elsewhere = gitProject({ 'biome.json': '{}\n' });
  const request = { method: 'format', path: join(root, 'src/x.ts') };
  for (const env of [iso.env, noDaemon]) {
    const apply = await runCli(built.cli, ['apply', '--json'], { env, cwd: elsewhere, input: JSON.stringify(request) });
    assert.equal(apply.code, EXIT_CODE_BY_ERROR.PATH_REFUSED, apply.stdout);
    assert.equal(JSON.parse(apply.stdout).error.code, 'PATH_REFUSED');
  }
  const serve = await runCli(built.cli, ['serve'], { env: iso.env, cwd: elsewhere, input: `${JSON.stringify({ id: 1, ...request })}\n` });
  assert.equal(JSON.parse(serve.stdout).error.code, 'PATH_REFUSED', serve.stdout);
  assert.equal(readFileSync(join(root, 'src/x.ts'), 'utf8'), MESSY);
});
