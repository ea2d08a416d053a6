// The shared parts of the Copilot, Gemini CLI, cline and Qwen Code hooks, in this process with the
// real formatters: the rewritten edit always gives F when applied to P (else there is none), the
// before-write decision for each kind of input, and `formatbox init` in project scope through the
// built CLI (merged, idempotent, a user's own cline script never replaced).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatBeforeWrite, rewrittenEdit } from '../../src/agents/shared/hook-before-write.js';
import { formatAfterWrite } from '../../src/agents/shared/after-write.js';
import { createRequestHandler } from '../../src/node/service/requests.js';
import { applyInput } from '../../src/tools/index.js';
import { cleanUp, installCopy, isolatedEnv, runCli } from '../cli/built-cli.js';

const dirs: string[] = [];
const iso = isolatedEnv();
after(() => cleanUp(iso.runtimeDir, ...dirs));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-hookclis-'));
  dirs.push(root);
  mkdirSync(join(root, '.git'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  return root;
}

test('rewrittenEdit: the model\'s span when the formatter changed only inside it, else the differing lines widened to a unique span; always checked', () => {
  const prior = 'const a = 1;\nconst b = 2;\nconst c = 3;\n';
  const inside = rewrittenEdit(prior, { oldText: 'const b = 2;', newText: 'const b={x:1}' }, 'const a = 1;\nconst b = { x: 1 };\nconst c = 3;\n');
  assert.deepEqual(inside, { oldText: 'const b = 2;', newText: 'const b = { x: 1 };' });
  // The formatter also changed a line outside the edit: one edit over the lines that differ.
  const final = 'const a = 1;\nconst b = { x: 1 };\nconst c = 4;\n';
  const widened = rewrittenEdit(prior, { oldText: 'const b = 2;', newText: 'const b={x:1}' }, final)!;
  assert.equal(applyInput(prior, widened), final);
  assert.equal(widened.oldText, 'const b = 2;\nconst c = 3;\n');
  // A repeated line is widened until its old text occurs once.
  const repeated = 'x;\ny;\nx;\nz;\n';
  const unique = rewrittenEdit(repeated, { oldText: 'z;', newText: 'z ;' }, 'x;\ny;\nx ;\nz;\n')!;
  assert.equal(applyInput(repeated, unique), 'x;\ny;\nx ;\nz;\n');
  // Random finals: whatever comes back gives F exactly.
  for (let seed = 1; seed < 200; seed++) {
    const lines = Array.from({ length: 1 + (seed % 7) }, (_, i) => `l${(i * seed) % 3};`);
    const p = lines.join('\n') + '\n';
    const f = lines.map((l, i) => ((i + seed) % 3 === 0 ? `${l} ` : l)).join('\n') + (seed % 5 === 0 ? '' : '\n');
    const edit = rewrittenEdit(p, { oldText: lines[0]!, newText: lines[0]! }, f);
    if (edit) assert.equal(applyInput(p, edit), f, `seed ${seed}`);
  }
});

test('formatBeforeWrite with the real formatter: rewrite, unchanged, pass (syntax error, too long), outside', { timeout: 120_000 }, async () => {
  const root = project({ 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\nexport const z = 1;\n', 'bad.ts': 'export const ok = 1;\n' });
  const outside = mkdtempSync(join(tmpdir(), 'fb-hookclis-out-'));
  dirs.push(outside);
  writeFileSync(join(outside, 'o.ts'), 'export const o = 1;\n');
  const handler = createRequestHandler({ defaultRoot: root });
  try {
    const ask = (filePath: string, input: { oldText: string; newText: string } | { content: string }, maxGrowthChars = 2000) =>
      formatBeforeWrite({ cwd: root, filePath, input, handler, maxGrowthChars });
    const edit = await ask(join(root, 'a.ts'), { oldText: 'export const a = { b: 1 };', newText: "export const a = {b:1,c:'x'}" });
    assert.equal(edit.kind, 'rewrite');
    if (edit.kind === 'rewrite') {
      assert.deepEqual(edit.input, { oldText: 'export const a = { b: 1 };', newText: 'export const a = { b: 1, c: "x" };' });
      assert.equal(applyInput(readFileSync(join(root, 'a.ts'), 'utf8'), edit.input), edit.final);
      assert.deepEqual(edit.changed, [{ label: 'your edit', newText: 'export const a = { b: 1, c: "x" };' }]);
    }
    assert.equal((await ask(join(root, 'a.ts'), { oldText: 'export const z = 1;', newText: 'export const z = 2;' })).kind, 'unchanged');
    const write = await ask(join(root, 'new.ts'), { content: 'export function f(a,b){return a+b}\n' });
    assert.equal(write.kind === 'rewrite' && 'content' in write.input ? write.input.content : write.kind, 'export function f(a, b) {\n\treturn a + b;\n}\n');
    assert.equal((await ask(join(root, 'bad.ts'), { oldText: 'export const ok = 1;', newText: 'export const ok = (;' })).kind, 'pass');
    assert.equal((await ask(join(root, 'a.ts'), { oldText: 'not there', newText: 'x' })).kind, 'pass', 'an edit that does not apply: the agent says so itself');
    assert.equal((await ask(join(root, 'a.ts'), { oldText: 'export const a = { b: 1 };', newText: "export const a = {b:1,c:'x'}" }, 5)).kind, 'pass', 'a rewrite longer than the budget allows');
    assert.equal((await ask(join(outside, 'o.ts'), { oldText: 'export const o = 1;', newText: 'export const o={}' })).kind, 'outside');
    // After the write, for an escaping agent: no angle-bracket markers; text holding < or > is named, not shown.
    writeFileSync(join(root, 'g.ts'), 'export const g:Array<number>=[1]\n');
    const told = await formatAfterWrite({ cwd: root, filePath: join(root, 'g.ts'), input: { oldText: 'export const g: number[] = [];', newText: 'export const g:Array<number>=[1]' }, handler, budget: 2000, newTextName: 'new_string', escapesAngles: true });
    assert.match(told ?? '', /^formatbox: formatted \(biome [\d.]+, wasm\): g\.ts/);
    assert.doesNotMatch(told ?? '', /<|>/);
    assert.match(told ?? '', /reread lines 1 of g\.ts/);
  } finally {
    await handler.close();
  }
});

test('formatbox init copilot|gemini|cline|qwen --project: merged, idempotent, a user\'s own cline script kept', { timeout: 180_000 }, async () => {
  const built = await installCopy();
  dirs.push(built.dir);
  const root = project({});
  const home = mkdtempSync(join(tmpdir(), 'fb-hookclis-home-'));
  dirs.push(home);
  const env = { ...iso.env, HOME: home };
  mkdirSync(join(root, '.gemini'));
  writeFileSync(join(root, '.gemini', 'settings.json'), '{\n  // mine\n  "model": { "name": "gemini-2.5-pro" }\n}\n');
  mkdirSync(join(root, '.clinerules', 'hooks'), { recursive: true });
  writeFileSync(join(root, '.clinerules', 'hooks', 'PreToolUse.sh'), '#!/bin/sh\necho mine\n');
  chmodSync(join(root, '.clinerules', 'hooks', 'PreToolUse.sh'), 0o755);
  for (const agent of ['copilot', 'gemini', 'cline', 'qwen']) {
    const first = await runCli(built.cli, ['init', agent, '--project'], { env, cwd: root });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`\\+.*hook ${agent}`), `${agent}: ${first.stdout}`);
    const second = await runCli(built.cli, ['init', agent, '--project'], { env, cwd: root });
    assert.match(second.stdout, /already set up/, `${agent}: ${second.stdout}`);
  }
  assert.equal(JSON.parse(readFileSync(join(root, '.github', 'hooks', 'formatbox.json'), 'utf8')).hooks.preToolUse[0].bash, 'formatbox hook copilot || true');
  const gemini = readFileSync(join(root, '.gemini', 'settings.json'), 'utf8');
  assert.match(gemini, /\/\/ mine/);
  assert.match(gemini, /"BeforeTool"/);
  assert.equal(readFileSync(join(root, '.clinerules', 'hooks', 'PreToolUse.sh'), 'utf8'), '#!/bin/sh\necho mine\n', 'the user\'s script stays');
  assert.match(readFileSync(join(root, '.clinerules', 'hooks', 'PostToolUse'), 'utf8'), /^formatbox hook cline \|\| true$/m);
  assert.match(JSON.parse(readFileSync(join(root, '.qwen', 'settings.json'), 'utf8')).hooks.PostToolUse[0].hooks[0].command, /formatbox hook qwen/);
  const doctor = await runCli(built.cli, ['doctor'], { env, cwd: root });
  for (const agent of ['copilot', 'gemini', 'cline', 'qwen']) assert.match(doctor.stdout, new RegExp(`\\n  ${agent}: `), doctor.stdout);
});
