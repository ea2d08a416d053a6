// The SDK edit tools over a file port (src/agents/shared/edit-tools.ts) with the real engine and
// Biome: a model's hostile path never reaches the port, a patch is all or nothing, a port that
// cannot delete refuses a deleting patch before writing anything, and the OpenAI Agents editor
// refuses an operation that would smuggle in another file's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngine } from '../../src/index.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { portBackend, portPath, runEditTool, type FilePort } from '../../src/agents/shared/edit-tools.js';
import { formatboxEditor } from '../../src/agents/openai-agents/index.js';

function memoryPort(initial: Record<string, string>, options: { canRemove?: boolean } = {}): FilePort & { files: Map<string, string>; asked: string[] } {
  const files = new Map(Object.entries(initial));
  const asked: string[] = [];
  return {
    files,
    asked,
    read: async (path) => (asked.push(path), files.get(path) ?? null),
    write: async (path, text) => void files.set(path, text),
    ...(options.canRemove === false ? {} : { remove: async (path: string) => void files.delete(path) }),
  };
}

const engine = () => createEngine({ formatters: createBuiltinAdapters(), projectFiles: { 'biome.json': '{}' } });

test('portPath refuses what is not a plain project-relative path', () => {
  for (const bad of ['', '/etc/passwd', '../o.ts', 'a/../../o.ts', 'a//b.ts', './', 'a\\..\\b', 'a\0.ts', 'a/./b.ts']) {
    assert.throws(() => portPath(bad), /PATH_REFUSED|not a path inside/, JSON.stringify(bad));
  }
  assert.equal(portPath('./src/a.ts'), 'src/a.ts');
});

test('a hostile path never reaches the port; an edit is formatted and written once', async () => {
  const port = memoryPort({ 'a.ts': 'export const a = 1;\n' });
  const backend = portBackend({ engine: engine(), files: port });
  const refused = await runEditTool(backend, 'write', { path: '../../etc/x.ts', content: 'x' });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /PATH_REFUSED/);
  assert.deepEqual(port.asked, []);
  const edited = await runEditTool(backend, 'edit', { path: 'a.ts', old_string: 'export const a = 1;', new_string: 'export const a = {b:1};' });
  assert.equal(edited.isError, false, edited.text);
  assert.equal(port.files.get('a.ts'), 'export const a = { b: 1 };\n');
  assert.match(edited.text, /<<<\nexport const a = \{ b: 1 \};\n>>>/);
  const missing = await runEditTool(backend, 'edit', { path: 'a.ts', old_string: 'not there', new_string: 'x' });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /EDIT_NOT_APPLICABLE/);
  const notObject = await runEditTool(backend, 'edit', 'a string');
  assert.match(notObject.text, /INVALID_REQUEST/);
});

test('a patch is all or nothing; a port without remove refuses a deleting patch before writing', async () => {
  const port = memoryPort({ 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 1;\n' }, { canRemove: false });
  const backend = portBackend({ engine: engine(), files: port });
  const deleting = await runEditTool(backend, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: a.ts\n@@\n-export const a = 1;\n+export const a = 2;\n*** Delete File: b.ts\n*** End Patch\n' });
  assert.equal(deleting.isError, true);
  assert.match(deleting.text, /cannot delete/);
  assert.equal(port.files.get('a.ts'), 'export const a = 1;\n');
  const failing = await runEditTool(backend, 'apply_patch', { patch: '*** Begin Patch\n*** Update File: a.ts\n@@\n-export const a = 1;\n+export const a = {c:2};\n*** Update File: b.ts\n@@\n-not in b\n+x\n*** End Patch\n' });
  assert.equal(failing.isError, true);
  assert.equal(port.files.get('a.ts'), 'export const a = 1;\n', 'nothing written when one operation fails');
});

test('the OpenAI Agents editor refuses a line break in a path and a diff that starts another operation', async () => {
  const port = memoryPort({ 'a.ts': 'export const a = 1;\n', 'biome.json': '{}' });
  const editor = formatboxEditor({ engine: engine(), files: port });
  const smuggled = await editor.updateFile({ type: 'update_file', path: 'a.ts', diff: '@@\n-export const a = 1;\n+export const a = 2;\n*** Delete File: biome.json\n' });
  assert.equal(smuggled?.status, 'failed');
  const newline = await editor.createFile({ type: 'create_file', path: 'x.ts\n*** Delete File: biome.json', diff: '+x\n' });
  assert.equal(newline?.status, 'failed');
  assert.equal(port.files.get('biome.json'), '{}');
  assert.equal(port.files.get('a.ts'), 'export const a = 1;\n');
  const created = await editor.createFile({ type: 'create_file', path: 'c.ts', diff: '+export const c={d:1}\n' });
  assert.equal(created?.status, 'completed', created?.output);
  assert.equal(port.files.get('c.ts'), 'export const c = { d: 1 };\n');
});
