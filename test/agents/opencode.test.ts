/**
 * The real opencode CLI (pinned, from the npm registry) with the formatbox plugin, driven through
 * `opencode run` by a scripted model on loopback (an openai-compatible provider). The model makes
 * unformatted edits; the test reads the model's NEXT request and checks that it holds the text now
 * on disk, and a follow-up edit that copies that text succeeds (without the plugin opencode answers
 * `Could not find oldString`). Before the write (the default) the model's own call in the transcript
 * shows the rewritten arguments and the tool result gets nothing added; after the write
 * (`beforeWrite: false`, and for apply_patch) the tool result holds the formatted text. Bad input
 * never blocks and stays bounded.
 *
 * opencode offers `edit` and `write` to most models and `apply_patch` instead of both to `gpt-`
 * models (its tool registry), so the patch case runs with a model id starting `gpt-5`.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { installCopy } from '../cli/built-cli.js';
import { agentBinary, agentCache, boundBreach, formatboxNotes, runAgent, type AgentRun } from './agent-cache.js';
import { formattedEditText, lastToolCallArgs, startScriptedModel, type ModelRequest, type ScriptStep } from './openai-server.js';

const MAX_DIFF_CHARS = 2000; // formatbox's default budget
const { bin, skip } = agentBinary('opencode');

/** The `+` lines of the first diff in a note (what the formatter made of what was written). */
function addedLines(note: string): string[] {
  return note.split('\n').filter((line) => line.startsWith('+') && !line.startsWith('+++')).map((line) => line.slice(1));
}

function lastResult(request: ModelRequest): string {
  return request.toolResults[request.toolResults.length - 1] ?? '';
}

describe('opencode with the formatbox plugin', { skip, timeout: 240_000 }, () => {
  let base: string;
  let pluginUrl: string;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'fb-opencode-'));
    const copy = await installCopy();
    // The package directory, as opencode resolves an installed plugin package: its `./server` export.
    pluginUrl = `file://${copy.dir}`;
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  /** A project (git repo, Biome for TypeScript, an invalid ruff.toml for Python) and a session run. */
  async function session(name: string, modelId: string, files: Record<string, string>, script: ScriptStep[], pluginOptions?: Record<string, unknown>): Promise<{ project: string; run: AgentRun; requests: ModelRequest[]; errors: string[] }> {
    const project = join(base, name);
    mkdirSync(project, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: project });
    for (const [path, text] of Object.entries(files)) writeFileSync(join(project, path), text);
    const model = await startScriptedModel(script);
    const home = join(base, `${name}-home`);
    mkdirSync(home, { recursive: true });
    writeFileSync(join(project, 'opencode.json'), JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      plugin: [pluginOptions ? [pluginUrl, pluginOptions] : pluginUrl],
      formatter: false,
      autoupdate: false,
      share: 'disabled',
      // `opencode run` stops the session when a permission is asked and nobody answers; the edit
      // outside the project must happen, so that the plugin can be seen leaving it alone.
      permission: { external_directory: 'allow' },
      provider: { scripted: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: model.baseUrl, apiKey: 'scripted' }, models: { [modelId]: { name: modelId, tool_call: true } } } },
      model: `scripted/${modelId}`,
      small_model: `scripted/${modelId}`,
    }));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      TMPDIR: tmpdir(),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      // opencode installs @opencode-ai/plugin into its config directory in the background (from the
      // npm registry); one cache beside the agents keeps that to one download per machine.
      npm_config_cache: join(agentCache(), 'npm-cache'),
    };
    try {
      const run = await runAgent(bin as string, ['run', 'make the edits'], { cwd: project, env, timeoutMs: 120_000 });
      return { project, run, requests: model.scripted(), errors: model.errors };
    } finally {
      await model.close();
    }
  }

  it('after the write (beforeWrite: false), edit and write: the next request holds the formatted text, a copying edit succeeds, bad input stays bounded', async () => {
    const big = Array.from({ length: 400 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
    const files = {
      'biome.json': '{}\n',
      'ruff.toml': 'line-length = "wide"\n',
      'a.ts': 'export const a = { b: 1 };\n',
      'bad.ts': 'export const ok = 1;\n',
      'big.ts': big,
      'app.py': 'x = 1\n',
    };
    const outside = join(base, 'outside.ts');
    writeFileSync(outside, 'export const out = 1;\n');
    const at = (project: string, path: string) => join(project, path);
    let project = '';
    const script: ScriptStep[] = [
      () => ({ tool: 'edit', args: { filePath: at(project, 'a.ts'), oldString: 'export const a = { b: 1 };', newString: "export const a = {b:1,c:'x'}" } }),
      (r) => {
        const text = formattedEditText(lastResult(r));
        if (!text) throw new Error(`no formatted text in the edit result: ${lastResult(r)}`);
        return { tool: 'edit', args: { filePath: at(project, 'a.ts'), oldString: text, newString: text.replace('"x"', '"y"') } };
      },
      () => ({ tool: 'write', args: { filePath: at(project, 'b.ts'), content: 'export function f(a,b){return a+b}\n' } }),
      (r) => {
        const line = addedLines(lastResult(r)).find((l) => l.includes('return'));
        if (!line) throw new Error(`no formatted return line in the write result: ${lastResult(r)}`);
        return { tool: 'edit', args: { filePath: at(project, 'b.ts'), oldString: line, newString: line.replace('a + b', 'a - b') } };
      },
      () => ({ tool: 'edit', args: { filePath: at(project, 'bad.ts'), oldString: 'export const ok = 1;', newString: 'export const ok = (;' } }),
      () => ({ tool: 'edit', args: { filePath: at(project, 'big.ts'), oldString: big, newString: big.replace(/ = /g, '=').replace(/;/g, '') } }),
      () => ({ tool: 'edit', args: { filePath: outside, oldString: 'export const out = 1;', newString: "export const out = {o:'1'}" } }),
      () => ({ tool: 'edit', args: { filePath: at(project, 'app.py'), oldString: 'x = 1', newString: 'x=[1,2]' } }),
      () => ({ text: 'done' }),
    ];
    project = join(base, 'edits');
    const { run, requests, errors } = await session('edits', 'scripted-coder', files, script, { beforeWrite: false });
    assert.deepEqual(errors, [], `the script failed; opencode said:\n${run.stderr.slice(-3000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const results = requests[requests.length - 1]?.toolResults ?? [];
    assert.equal(results.length, 8, `8 tool results, got ${results.length}: ${JSON.stringify(results.map((r) => r.slice(0, 300)))}\n${run.stdout.slice(-2000)}`);
    const [edit, copyEdit, write, copyWrite, syntax, large, outsideResult, config] = results as [string, string, string, string, string, string, string, string];

    // The edit: the receipt line and the new text as Biome left it.
    assert.match(edit, /^Edit applied successfully\./);
    assert.match(edit, /formatbox: formatted \(biome [\d.]+, wasm\): a\.ts/);
    assert.equal(formattedEditText(edit), 'export const a = { b: 1, c: "x" };');
    assert.equal(copyEdit, 'Edit applied successfully.', 'the copying edit succeeded and needed no formatting');
    assert.equal(readFileSync(at(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');

    // The write: what the formatter changed in what was written.
    assert.match(write, /formatbox: formatted \(biome [\d.]+, wasm\): b\.ts/);
    assert.ok(addedLines(write).includes('\treturn a + b;'), write);
    assert.doesNotMatch(copyWrite, /Could not find|error/i);
    assert.equal(readFileSync(at(project, 'b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a - b;\n}\n');

    // Bad input: a syntax error is reported and the edit stays on disk as written.
    assert.match(syntax, /formatbox: formatter failed \(biome[^)]*\): bad\.ts.*\(your edit is on disk as written\)/);
    assert.equal(readFileSync(at(project, 'bad.ts'), 'utf8'), 'export const ok = (;\n');
    // A 400-line edit: formatted on disk, and the model gets a bounded answer.
    assert.match(large, /formatbox: formatted \(biome [\d.]+, wasm\): big\.ts/);
    assert.equal(readFileSync(at(project, 'big.ts'), 'utf8'), big);
    // A file outside the project is edited by opencode and left alone by formatbox.
    assert.equal(outsideResult, 'Edit applied successfully.');
    assert.equal(readFileSync(outside, 'utf8'), "export const out = {o:'1'}\n");
    // An invalid config: the receipt names the file and the problem; nothing blocks.
    assert.match(config, /formatbox: formatter failed \(ruff [\d.]+, wasm\): app\.py: invalid project config: ruff\.toml:1:1/);
    assert.equal(readFileSync(at(project, 'app.py'), 'utf8'), 'x=[1,2]\n');

    for (const [i, result] of results.entries()) {
      const breach = boundBreach(formatboxNotes(result), MAX_DIFF_CHARS);
      assert.equal(breach, undefined, `tool result ${i}: ${breach}`);
    }
    assert.ok(formatboxNotes(large).length <= MAX_DIFF_CHARS + 500, `the 400-line edit's note is ${formatboxNotes(large).length} characters`);
  });

  it('before the write (the default): the transcript shows the rewritten call, nothing is added to the result, a copying edit succeeds, bad input stays bounded', async () => {
    const big = Array.from({ length: 2000 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
    const files = { 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\n', 'bad.ts': 'export const ok = 1;\n', 'big.ts': big, 'crlf.ts': 'export const c = 1;\r\n' };
    const outside = join(base, 'outside-before.ts');
    writeFileSync(outside, 'export const out = 1;\n');
    const project = join(base, 'before');
    const script: ScriptStep[] = [
      () => ({ tool: 'edit', args: { filePath: join(project, 'a.ts'), oldString: 'export const a = { b: 1 };', newString: "export const a = {b:1,c:'x'}" } }),
      (r) => {
        // The model copies from its own call as the transcript now shows it.
        const own = lastToolCallArgs(r)?.newString;
        if (own !== 'export const a = { b: 1, c: "x" };') throw new Error(`the transcript shows the call as ${JSON.stringify(own)}`);
        return { tool: 'edit', args: { filePath: join(project, 'a.ts'), oldString: own, newString: own.replace('"x"', '"y"') } };
      },
      () => ({ tool: 'write', args: { filePath: join(project, 'b.ts'), content: 'export function f(a,b){return a+b}\n' } }),
      () => ({ tool: 'edit', args: { filePath: join(project, 'bad.ts'), oldString: 'export const ok = 1;', newString: 'export const ok = (;' } }),
      () => ({ tool: 'edit', args: { filePath: join(project, 'big.ts'), oldString: 'export const v7 = 7;', newString: 'export const v7 = {k:7}' } }),
      () => ({ tool: 'edit', args: { filePath: join(project, 'crlf.ts'), oldString: 'export const c = 1;', newString: 'export const c = {d:1};' } }),
      () => ({ tool: 'edit', args: { filePath: outside, oldString: 'export const out = 1;', newString: "export const out = {o:'1'}" } }),
      () => ({ text: 'done' }),
    ];
    const { run, requests, errors } = await session('before', 'scripted-coder', files, script);
    assert.deepEqual(errors, [], `the script failed; opencode said:\n${run.stderr.slice(-3000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const results = requests[requests.length - 1]?.toolResults ?? [];
    assert.equal(results.length, 7, JSON.stringify(results.map((r) => r.slice(0, 300))));
    const [edit, copyEdit, write, syntax, large, crlf, outsideResult] = results as [string, string, string, string, string, string, string];
    // Zero characters added: the transcript's call already holds the text on disk.
    assert.equal(edit, 'Edit applied successfully.');
    assert.equal(copyEdit, 'Edit applied successfully.');
    assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "y" };\n');
    assert.doesNotMatch(write, /formatbox/);
    assert.equal(readFileSync(join(project, 'b.ts'), 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');
    // A syntax error goes through as sent and is reported after the write.
    assert.match(syntax, /formatbox: formatter failed \(biome[^)]*\): bad\.ts/);
    assert.equal(readFileSync(join(project, 'bad.ts'), 'utf8'), 'export const ok = (;\n');
    // A 2,000-line file: rewritten before the write like any other, nothing added.
    assert.equal(large, 'Edit applied successfully.');
    assert.equal(readFileSync(join(project, 'big.ts'), 'utf8'), big.replace('export const v7 = 7;', 'export const v7 = { k: 7 };'));
    // A CRLF file is formatted after the write (Biome's LF), never blocked, bounded.
    assert.match(crlf, /^Edit applied successfully\./);
    assert.equal(boundBreach(formatboxNotes(crlf), MAX_DIFF_CHARS), undefined);
    assert.equal(readFileSync(join(project, 'crlf.ts'), 'utf8'), 'export const c = { d: 1 };\n');
    // Outside the project: opencode's edit as sent, formatbox silent.
    assert.equal(outsideResult, 'Edit applied successfully.');
    assert.equal(readFileSync(outside, 'utf8'), "export const out = {o:'1'}\n");
  });

  it('apply_patch (gpt- models): both files of the patch come back formatted, a copying patch applies', async () => {
    let project = '';
    const script: ScriptStep[] = [
      (r) => {
        if (!r.tools.includes('apply_patch')) throw new Error(`opencode offered no apply_patch: ${r.tools.join(', ')}`);
        return { tool: 'apply_patch', args: { patchText: "*** Begin Patch\n*** Update File: a.ts\n@@\n-export const a = { b: 1 };\n+export const a = {b:1,c:'x'}\n*** Add File: c.ts\n+export const c = [1,2,3]\n*** End Patch" } };
      },
      (r) => {
        const line = addedLines(lastResult(r)).find((l) => l.startsWith('export const a'));
        if (!line) throw new Error(`no formatted a.ts line in the patch result: ${lastResult(r)}`);
        return { tool: 'apply_patch', args: { patchText: `*** Begin Patch\n*** Update File: a.ts\n@@\n-${line}\n+${line.replace('"x"', '"z"')}\n*** End Patch` } };
      },
      () => ({ text: 'done' }),
    ];
    project = join(base, 'patch');
    const { run, requests, errors } = await session('patch', 'gpt-5-scripted', { 'biome.json': '{}\n', 'a.ts': 'export const a = { b: 1 };\n' }, script);
    assert.deepEqual(errors, [], `the script failed; opencode said:\n${run.stderr.slice(-3000)}`);
    assert.equal(run.code, 0, run.stderr.slice(-3000));
    const results = requests[requests.length - 1]?.toolResults ?? [];
    assert.equal(results.length, 2);
    const [patch, copyPatch] = results as [string, string];
    assert.match(patch, /formatbox: formatted \(biome [\d.]+, wasm\): a\.ts/);
    assert.match(patch, /formatbox: formatted \(biome [\d.]+, wasm\): c\.ts/);
    assert.ok(addedLines(patch).includes('export const c = [1, 2, 3];'), patch);
    assert.equal(boundBreach(formatboxNotes(patch), MAX_DIFF_CHARS), undefined);
    assert.doesNotMatch(copyPatch, /formatbox|failed|error/i, copyPatch);
    assert.equal(readFileSync(join(project, 'a.ts'), 'utf8'), 'export const a = { b: 1, c: "z" };\n');
    assert.equal(readFileSync(join(project, 'c.ts'), 'utf8'), 'export const c = [1, 2, 3];\n');
  });
});
