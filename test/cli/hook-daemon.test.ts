// `formatbox hook claude-code` through the real built CLI: it never blocks Claude Code (exit 0 and
// nothing on stdout for every bad input, through the daemon and in-process), its additionalContext
// stays within maxDiffChars plus the receipt line, and per-edit blocks are delimited so a trailing
// newline is unambiguous.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const roots: string[] = [];
after(async () => {
  await cleanUp(iso.runtimeDir, built.dir, ...roots);
});

const BIOME = { 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n' };
const require = createRequire(import.meta.url);
const rxjs = join(require.resolve('rxjs/package.json'), '..', 'src', 'internal');

function hookRun(input: string, extraArgs: string[] = [], env: NodeJS.ProcessEnv = iso.env) {
  return runCli(built.cli, ['hook', 'claude-code', ...extraArgs], { env, input });
}

/** The text of each `<<<`…`>>>` block: everything between the line after `<<<` and the newline before `>>>`. */
function blocks(context: string): string[] {
  return [...context.matchAll(/\n<<<\n([\s\S]*?)\n>>>(?=\n|$)/g)].map((m) => m[1] as string);
}

test('bad input never fails the edit: exit 0, nothing on stdout, through the daemon and in-process', { timeout: 180_000 }, async () => {
  const root = project({ ...BIOME, 'a.ts': 'export const a = [1, 2];\n' });
  roots.push(root);
  const brokenConfig = join(root, 'broken.json');
  writeFileSync(brokenConfig, '{ "mode": ');
  const good = JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: join(root, 'a.ts'), old_string: 'x', new_string: 'export const a = [1, 2];' } });
  const inputs: Array<[string, string, string[], NodeJS.ProcessEnv]> = [
    ['null', 'null', [], iso.env],
    ['malformed JSON', '{"tool_name": "Edit", ', [], iso.env],
    ['empty stdin', '', [], iso.env],
    ['an array', '[1,2]', [], iso.env],
    ['tool_input null', JSON.stringify({ tool_name: 'Edit', tool_input: null }), [], iso.env],
    ['file_path a number', JSON.stringify({ tool_name: 'Write', cwd: root, tool_input: { file_path: 7, content: 'x' } }), [], iso.env],
    ['a missing file', JSON.stringify({ tool_name: 'Write', cwd: root, tool_input: { file_path: join(root, 'gone.ts'), content: 'x' } }), [], iso.env],
    ['a broken FORMATBOX_CONFIG', good, [], { ...iso.env, FORMATBOX_CONFIG: brokenConfig }],
    ['an unknown flag', good, ['--frobnicate'], iso.env],
    ['a --config that does not exist', good, ['--config', join(root, 'nope.json')], iso.env],
  ];
  for (const mode of ['daemon', 'in-process'] as const) {
    for (const [name, input, args, env] of inputs) {
      const run = await hookRun(input, mode === 'daemon' ? args : [...args, '--no-daemon'], env);
      assert.equal(run.code, 0, `${mode}, ${name}: exit ${run.code}, ${run.stderr}`);
      assert.equal(run.stdout, '', `${mode}, ${name}: stdout`);
      assert.doesNotMatch(run.stderr, /\n\s+at /, `${mode}, ${name}: no stack trace`);
    }
  }
  const config = await hookRun(good, [], { ...iso.env, FORMATBOX_CONFIG: brokenConfig });
  assert.match(config.stderr, /INVALID_CONFIG/, 'the broken config is named on stderr');
});

test('a 400-line new_string: additionalContext stays within maxDiffChars plus the receipt line', { timeout: 120_000 }, async () => {
  // A whole rxjs source file (400+ lines), flattened (indentation removed) so the formatter changes every line.
  const source = readFileSync(join(rxjs, 'Observable.ts'), 'utf8').split('\n').map((l) => l.trimStart()).join('\n');
  assert.ok(source.split('\n').length >= 400);
  for (const maxDiffChars of [undefined, 600]) {
    const root = project({ ...BIOME, 'big.ts': '// start\nexport const marker = 1;\n' });
    roots.push(root);
    const env = { ...iso.env };
    if (maxDiffChars !== undefined) {
      writeFileSync(join(root, 'user.json'), JSON.stringify({ maxDiffChars }));
      env.FORMATBOX_CONFIG = join(root, 'user.json');
    }
    const prior = readFileSync(join(root, 'big.ts'), 'utf8');
    const written = prior.replace('export const marker = 1;\n', source);
    writeFileSync(join(root, 'big.ts'), written);
    const event = { hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Edit', tool_input: { file_path: join(root, 'big.ts'), old_string: 'export const marker = 1;\n', new_string: source }, tool_response: { originalFile: prior } };
    const run = await hookRun(JSON.stringify(event), [], env);
    assert.equal(run.code, 0, run.stderr);
    const context = JSON.parse(run.stdout).hookSpecificOutput.additionalContext as string;
    const [head, ...rest] = context.split('\n');
    assert.match(head as string, /^formatbox: formatted \(biome/);
    const budget = maxDiffChars ?? 2000;
    assert.ok(rest.join('\n').length <= budget, `body ${rest.join('\n').length} chars > ${budget}`);
    assert.match(context, /reread lines? [\d, -]+ of big\.ts|reread big\.ts/);
    assert.notEqual(readFileSync(join(root, 'big.ts'), 'utf8'), written, 'the file was formatted');
  }
});

test('per-edit blocks are delimited: a new_string ending in a newline comes back exactly', { timeout: 120_000 }, async () => {
  const prior = 'export const a = 1;\nexport const keep = 0;\nexport const b = 2;\n';
  const root = project({ ...BIOME, 'm.ts': prior });
  roots.push(root);
  const edits = [
    { old_string: 'export const a = 1;\n', new_string: 'export const a=[1,2]\n\n' },
    { old_string: 'export const b = 2;', new_string: 'export const b={b:2}' },
  ];
  let written = prior;
  for (const e of edits) written = written.replace(e.old_string, e.new_string);
  writeFileSync(join(root, 'm.ts'), written);
  const event = { hook_event_name: 'PostToolUse', cwd: root, tool_name: 'MultiEdit', tool_input: { file_path: join(root, 'm.ts'), edits }, tool_response: { originalFile: prior } };
  const run = await hookRun(JSON.stringify(event));
  assert.equal(run.code, 0, run.stderr);
  const context = JSON.parse(run.stdout).hookSpecificOutput.additionalContext as string;
  const onDisk = readFileSync(join(root, 'm.ts'), 'utf8');
  const texts = blocks(context);
  assert.equal(texts.length, 2, JSON.stringify(context));
  assert.match(context, /edit 1: new_string is now on disk/);
  // Each block's text, put in place of the edit's old_string in the prior file, gives the disk.
  assert.equal(prior.replace(edits[0]!.old_string, texts[0]!).replace(edits[1]!.old_string, texts[1]!), onDisk, context);
  assert.ok(texts[0]!.endsWith('\n'), 'the trailing newline survives');
});
