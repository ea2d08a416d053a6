/**
 * The opencode plugin's hooks, called as opencode calls them (tool.execute.before, the tool writes
 * the file, tool.execute.after with the same call id), over a real project and formatbox's real
 * request handler: pairing by call id, what is appended, and that nothing throws or blocks.
 * The real opencode CLI runs them in test/agents/opencode.test.ts.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createOpencodeHooks, pathsOf, type OpencodeHooks } from '../../src/agents/opencode/hooks.js';
import { createRequestHandler, type RequestHandler } from '../../src/node/service/requests.js';
import type { CliResult } from '../../src/node/service/requests.js';

describe('opencode plugin hooks', () => {
  let project: string;
  let handler: RequestHandler;
  let hooks: OpencodeHooks;

  before(() => {
    project = mkdtempSync(join(tmpdir(), 'fb-oc-hooks-'));
    mkdirSync(join(project, '.git'));
    writeFileSync(join(project, 'biome.json'), '{}\n');
    handler = createRequestHandler({ defaultRoot: project, findRoot: true });
    // These cases are the after-write path; the before-write one makes its own hooks.
    hooks = createOpencodeHooks({ directory: project, handler, maxDiffChars: 300, beforeWrite: false });
  });
  after(async () => {
    await handler.close();
    rmSync(project, { recursive: true, force: true });
  });

  /** One tool call as opencode runs it: before, the tool's write, after; the output the model gets. */
  async function call(tool: string, callID: string, args: Record<string, unknown>, write: () => void, output = 'Edit applied successfully.'): Promise<string> {
    await hooks['tool.execute.before']({ tool, sessionID: 's', callID }, { args });
    write();
    const result = { title: '', output, metadata: {} };
    await hooks['tool.execute.after']({ tool, sessionID: 's', callID, args }, result);
    return result.output;
  }

  it('an edit: the new text as the formatter left it, delimited, after the tool output', async () => {
    const file = join(project, 'a.ts');
    writeFileSync(file, 'export const a = 1;\n');
    const out = await call('edit', 'c1', { filePath: file, oldString: 'export const a = 1;', newString: "export const a = {x:'y'}" }, () => writeFileSync(file, "export const a = {x:'y'}\n"));
    assert.equal(out, 'Edit applied successfully.\n\nformatbox: formatted (biome 2.4.15, wasm): a.ts. The file on disk differs from what you wrote.\nyour edit: newString is now on disk as (exactly the text between the <<< and >>> lines):\n<<<\nexport const a = { x: "y" };\n>>>');
    assert.equal(readFileSync(file, 'utf8'), 'export const a = { x: "y" };\n');
  });

  it('before the write: edit and write args rewritten to give F, nothing appended when the tool wrote F; a syntax error and CRLF go through as sent', async () => {
    const beforeHooks = createOpencodeHooks({ directory: project, handler, maxDiffChars: 300 });
    const run = async (tool: string, callID: string, args: Record<string, unknown>, file: string) => {
      await beforeHooks['tool.execute.before']({ tool, sessionID: 's', callID }, { args });
      // The tool writes what its (possibly rewritten) args say, as opencode's edit and write do.
      if (tool === 'write') writeFileSync(file, args.content as string);
      else writeFileSync(file, readFileSync(file, 'utf8').replace(args.oldString as string, () => args.newString as string));
      const result = { title: '', output: 'Edit applied successfully.', metadata: {} };
      await beforeHooks['tool.execute.after']({ tool, sessionID: 's', callID, args }, result);
      return result.output;
    };
    const file = join(project, 'pre.ts');
    writeFileSync(file, 'export const a = 1;\nexport const b = 2;\n');
    const edit = { filePath: file, oldString: 'export const a = 1;', newString: "export const a = {x:'y'}" };
    assert.equal(await run('edit', 'p1', edit, file), 'Edit applied successfully.');
    assert.equal(edit.newString, 'export const a = { x: "y" };');
    assert.equal(readFileSync(file, 'utf8'), 'export const a = { x: "y" };\nexport const b = 2;\n');
    const write = { filePath: join(project, 'pre-new.ts'), content: 'export function f(a,b){return a+b}\n' };
    assert.equal(await run('write', 'p2', write, write.filePath), 'Edit applied successfully.');
    assert.equal(readFileSync(write.filePath, 'utf8'), 'export function f(a, b) {\n\treturn a + b;\n}\n');
    const broken = { filePath: file, oldString: 'export const b = 2;', newString: 'export const b = (;' };
    assert.match(await run('edit', 'p3', broken, file), /formatter failed \(biome[^)]*\): pre\.ts/);
    assert.equal(broken.newString, 'export const b = (;', 'not rewritten');
    const crlf = join(project, 'crlf.ts');
    writeFileSync(crlf, 'export const c = 1;\r\n');
    const crlfEdit = { filePath: crlf, oldString: 'export const c = 1;', newString: 'export const c = {d:1};' };
    await run('edit', 'p4', crlfEdit, crlf);
    assert.equal(crlfEdit.newString, 'export const c = {d:1};', 'a CRLF file is formatted after the write');
  });

  it('an edit opencode matched loosely (not a literal replacement of P) is reported as a write of W', async () => {
    const file = join(project, 'loose.ts');
    writeFileSync(file, 'export const b = 1;\n');
    // opencode's whitespace-tolerant matching applied `const  b` to `const b`.
    const out = await call('edit', 'c2', { filePath: file, oldString: 'export const  b = 1;', newString: 'export const b = [1,2]' }, () => writeFileSync(file, 'export const b = [1,2]\n'));
    assert.match(out, /the formatter changed:\n--- a\/loose\.ts\n\+\+\+ b\/loose\.ts\n@@ -1 \+1 @@\n-export const b = \[1,2\]\n\+export const b = \[1, 2\];$/);
  });

  it('nothing is appended when the formatter changed nothing, for other tools, or for an unpaired call id', async () => {
    const file = join(project, 'ok.ts');
    writeFileSync(file, 'export const c = 1;\n');
    assert.equal(await call('edit', 'c3', { filePath: file, oldString: '1', newString: '2' }, () => writeFileSync(file, 'export const c = 2;\n')), 'Edit applied successfully.');
    assert.equal(await call('read', 'c4', { filePath: file }, () => undefined, 'file text'), 'file text');
    const result = { title: '', output: 'Edit applied successfully.', metadata: {} };
    await hooks['tool.execute.after']({ tool: 'edit', sessionID: 's', callID: 'never-recorded', args: { filePath: file } }, result);
    assert.equal(result.output, 'Edit applied successfully.');
  });

  it('a patch: each written file reported, within one shared budget; a file outside the project left alone', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'fb-oc-outside-'));
    const big = Array.from({ length: 60 }, (_, i) => `export const v${i}=${i}`).join('\n') + '\n';
    const patchText = `*** Begin Patch\n*** Add File: p.ts\n+export const p = [1,2]\n*** Add File: big.ts\n${big.split('\n').slice(0, -1).map((l) => `+${l}`).join('\n')}\n*** Add File: ${join(outside, 'o.ts')}\n+export const o = [1,2]\n*** End Patch`;
    assert.deepEqual(pathsOf('apply_patch', { patchText }), ['p.ts', 'big.ts', join(outside, 'o.ts')]);
    const out = await call('apply_patch', 'c5', { patchText }, () => {
      writeFileSync(join(project, 'p.ts'), 'export const p = [1,2]\n');
      writeFileSync(join(project, 'big.ts'), big);
      writeFileSync(join(outside, 'o.ts'), 'export const o = [1,2]\n');
    }, 'Success. Updated the following files:');
    const notes = out.slice(out.indexOf('formatbox: '));
    assert.match(notes, /formatbox: formatted \(biome [\d.]+, wasm\): p\.ts/);
    assert.match(notes, /formatbox: formatted \(biome [\d.]+, wasm\): big\.ts[^\n]*\nthe formatter changed more than fits here[^\n]*big\.ts/);
    assert.doesNotMatch(notes, /o\.ts/);
    assert.equal(readFileSync(join(outside, 'o.ts'), 'utf8'), 'export const o = [1,2]\n');
    const body = notes.split('\n').filter((line) => !line.startsWith('formatbox: ')).join('\n');
    assert.ok(body.length <= 300, `${body.length} characters after the receipt lines`);
    rmSync(outside, { recursive: true, force: true });
  });

  it('a formatter failure or a failing handler becomes one line; the hook never throws', async () => {
    const file = join(project, 'bad.ts');
    writeFileSync(file, 'export const d = 1;\n');
    const out = await call('edit', 'c6', { filePath: file, oldString: '1;', newString: '(;' }, () => writeFileSync(file, 'export const d = (;\n'));
    assert.match(out, /\n\nformatbox: formatter failed \(biome [\d.]+, wasm\): bad\.ts: .*\(your edit is on disk as written\)$/);
    const broken: RequestHandler = { handle: async (): Promise<CliResult> => { throw new Error('the daemon went away'); }, close: async () => undefined };
    const failing = createOpencodeHooks({ directory: project, handler: broken });
    const result = { title: '', output: 'Wrote file successfully.', metadata: {} };
    await failing['tool.execute.before']({ tool: 'write', sessionID: 's', callID: 'c7' }, { args: { filePath: 'w.ts', content: 'x' } });
    writeFileSync(join(project, 'w.ts'), 'x\n');
    await failing['tool.execute.after']({ tool: 'write', sessionID: 's', callID: 'c7', args: {} }, result);
    assert.equal(result.output, 'Wrote file successfully.\n\nformatbox: w.ts was not formatted: the daemon went away');
    await failing['tool.execute.before']({ tool: 'edit', sessionID: 's', callID: 'c8' }, { args: null as unknown as Record<string, unknown> });
  });
});
