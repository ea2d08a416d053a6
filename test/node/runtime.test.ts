import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/node/index.js';
import { isFormatboxError } from '../../src/core/errors.js';
import type { ErrorCode } from '../../src/core/errors.js';

const roots: string[] = [];
const runtimes: Runtime[] = [];
after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A temp project: biome.json for TS, go.mod for Go. */
function project(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'fb-rt-'));
  roots.push(root);
  const all = { 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'go.mod': 'module example.com/x\n\ngo 1.19\n', ...files };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function runtime(root: string, options: Partial<RuntimeOptions> = {}): Runtime {
  const rt = createRuntime({ root, ...options });
  runtimes.push(rt);
  return rt;
}

const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

async function rejects(run: () => Promise<unknown>, code: ErrorCode, message: RegExp): Promise<string> {
  try {
    await run();
  } catch (error) {
    assert.ok(isFormatboxError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return error.message;
  }
  assert.fail(`expected ${code}`);
}

const CART = 'export function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n';

test('edit: W is applied, formatted in the worker, F is on disk and the receipt describes it', async () => {
  const root = project({ 'src/cart.ts': CART });
  chmodSync(join(root, 'src/cart.ts'), 0o640);
  const rt = runtime(root);
  const receipt = await rt.edit({ path: 'src/cart.ts', oldText: '  return items.reduce((a, b) => a + b, 0);', newText: '  const sum=items.reduce((a,b)=>a+b,0)\n  return sum' });
  assert.equal(receipt.status, 'formatted');
  assert.equal(receipt.formatter?.name, 'biome');
  assert.equal(receipt.content, read(root, 'src/cart.ts'));
  assert.match(receipt.content, /const sum = items\.reduce\(\(a, b\) => a \+ b, 0\);\n {2}return sum;\n/);
  assert.deepEqual(receipt.record, { sha256: sha(receipt.content), bytes: Buffer.byteLength(receipt.content) });
  assert.equal(statSync(join(root, 'src/cart.ts')).mode & 0o777, 0o640, 'the mode is kept');
  assert.deepEqual(readdirSync(join(root, 'src')), ['cart.ts'], 'no temp files left');
  // The rewritten input copies what is on disk: the next edit with it applies.
  const next = await rt.edit({ path: 'src/cart.ts', oldText: (receipt.input as { newText: string }).newText, newText: '  return 0;' });
  assert.equal(next.status, 'unchanged');
});

test('edit errors are clear and leave the file untouched', async () => {
  const root = project({ 'src/a.ts': 'let a = 1;\nlet b = 1;\nlet c = 1;\n', 'bin.dat': '' });
  writeFileSync(join(root, 'bin.dat'), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
  const rt = runtime(root);
  const before = read(root, 'src/a.ts');
  const mtime = statSync(join(root, 'src/a.ts')).mtimeMs;
  await rejects(() => rt.edit({ path: 'src/a.ts', oldText: 'let d = 1;', newText: 'x' }), 'EDIT_NOT_APPLICABLE', /src\/a\.ts.*oldText not found/);
  await rejects(() => rt.edit({ path: 'src/a.ts', oldText: ' = 1;', newText: ' = 2;' }), 'EDIT_NOT_APPLICABLE', /matches 3 times.*replaceAll/);
  await rejects(
    () => rt.multiEdit({ path: 'src/a.ts', edits: [{ oldText: 'let a = 1;', newText: 'let a = 10;' }, { oldText: '10;\nlet b', newText: 'x' }] }),
    'EDIT_NOT_APPLICABLE',
    /edits 1 and 2 overlap/,
  );
  await rejects(
    () => rt.multiEdit({ path: 'src/a.ts', edits: [{ oldText: 'let a = 1;', newText: 'let a = 10;' }, { oldText: '\nlet b = 1;', newText: '\nlet b = 2;' }] }),
    'EDIT_NOT_APPLICABLE',
    /edits 1 and 2 are adjacent; merge them into one edit/,
  );
  await rejects(() => rt.edit({ path: 'src/missing.ts', oldText: 'a', newText: 'b' }), 'FILE_NOT_FOUND', /src\/missing\.ts does not exist; create it with write/);
  await rejects(() => rt.edit({ path: 'bin.dat', oldText: 'a', newText: 'b' }), 'EDIT_NOT_APPLICABLE', /not UTF-8/);
  await rejects(
    () => rt.applyPatch({ patch: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-let z = 1;\n+let z = 2;\n*** End Patch\n' }),
    'EDIT_NOT_APPLICABLE',
    /src\/a\.ts/,
  );
  // A unified diff adding an existing file is refused, as git apply refuses it (the Codex dialect overwrites: test/tools/patch-codex.test.ts).
  await rejects(() => rt.applyPatch({ patch: '--- /dev/null\n+++ b/src/a.ts\n@@ -0,0 +1 @@\n+x\n' }), 'FILE_EXISTS', /src\/a\.ts already exists/);
  // A patch where the second file fails touches neither.
  await rejects(
    () => rt.applyPatch({ patch: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-let a = 1;\n+let a = 2;\n*** Update File: src/nope.ts\n@@\n-x\n+y\n*** End Patch\n' }),
    'FILE_NOT_FOUND',
    /src\/nope\.ts does not exist/,
  );
  assert.equal(read(root, 'src/a.ts'), before);
  assert.equal(statSync(join(root, 'src/a.ts')).mtimeMs, mtime);
});

test('bad paths are refused through the runtime API', async () => {
  const root = project();
  const outside = mkdtempSync(join(tmpdir(), 'fb-rt-out-'));
  roots.push(outside);
  writeFileSync(join(outside, 'x.ts'), 'const x = 1;\n');
  symlinkSync(join(outside, 'x.ts'), join(root, 'out.ts'));
  const rt = runtime(root);
  await rejects(() => rt.write({ path: '../escape.ts', content: 'x' }), 'PATH_REFUSED', /leaves the project root/);
  await rejects(() => rt.write({ path: join(outside, 'x.ts'), content: 'x' }), 'PATH_REFUSED', /outside the project root/);
  await rejects(() => rt.edit({ path: 'out.ts', oldText: 'x', newText: 'y' }), 'PATH_REFUSED', /symlink\) to outside/);
  mkdirSync(join(root, 'dir'));
  await rejects(() => rt.write({ path: 'dir', content: 'x' }), 'PATH_REFUSED', /a directory, not a regular file/);
  await rejects(() => rt.format({ path: '/dev/null' }), 'PATH_REFUSED', /outside the project root/);
  assert.equal(readFileSync(join(outside, 'x.ts'), 'utf8'), 'const x = 1;\n');
});

test('observers run in order: before (sees P and W, file untouched), formatter, after (sees F on disk)', async () => {
  const root = project({ 'a.ts': 'const a = 1;\n' });
  const log: string[] = [];
  const rt = runtime(root, {
    observers: [
      {
        name: 'checkpoint',
        before: (e) => {
          log.push(`checkpoint.before ${e.tool} P=${JSON.stringify(e.prior)} W=${JSON.stringify(e.written)} disk=${JSON.stringify(read(root, 'a.ts'))}`);
        },
        after: (e) => {
          log.push(`checkpoint.after ${e.receipt.status}`);
        },
      },
      {
        name: 'lsp',
        after: (e) => {
          log.push(`lsp.after disk=${JSON.stringify(read(root, 'a.ts'))} content=${JSON.stringify(e.receipt.content)}`);
          throw new Error('server crashed');
        },
      },
    ],
  });
  const receipt = await rt.edit({ path: 'a.ts', oldText: 'const a = 1;', newText: 'const a=2' });
  assert.deepEqual(log, [
    'checkpoint.before edit P="const a = 1;\\n" W="const a=2\\n" disk="const a = 1;\\n"',
    'checkpoint.after formatted',
    'lsp.after disk="const a = 2;\\n" content="const a = 2;\\n"',
  ]);
  assert.match(receipt.note, /\(lsp failed after the write: server crashed\)/);
  // A throwing `before` cancels the edit.
  const strict = runtime(root, { observers: [{ before: () => { throw new Error('no checkpoint space'); } }] });
  await assert.rejects(() => strict.edit({ path: 'a.ts', oldText: 'const a = 2;', newText: 'const a = 3;' }), /no checkpoint space/);
  assert.equal(read(root, 'a.ts'), 'const a = 2;\n');
});

test('write, afterWrite, format and applyPatch return receipts that match the disk', async () => {
  const root = project({ 'src/a.ts': 'const a = 1;\n', 'src/old.ts': 'export {};\n' });
  const rt = runtime(root);
  const created = await rt.write({ path: 'src/new/b.ts', content: 'export const b={x:1}' });
  assert.equal(created.status, 'formatted');
  assert.equal(read(root, 'src/new/b.ts'), 'export const b = { x: 1 };\n');
  assert.deepEqual(created.input, { content: 'export const b = { x: 1 };\n' });

  // The harness wrote W itself.
  writeFileSync(join(root, 'src/a.ts'), 'const a=[1,2]\n');
  const afterWrite = await rt.afterWrite({ path: 'src/a.ts', prior: 'const a = 1;\n', input: { oldText: 'const a = 1;', newText: 'const a=[1,2]' } });
  assert.equal(afterWrite.status, 'formatted');
  assert.deepEqual(afterWrite.input, { oldText: 'const a = 1;', newText: 'const a = [1, 2];' });
  assert.equal(read(root, 'src/a.ts'), 'const a = [1, 2];\n');

  writeFileSync(join(root, 'src/a.ts'), 'const   a = 3\n');
  const formatted = await rt.format({ path: 'src/a.ts' });
  assert.equal(formatted.status, 'formatted');
  assert.equal(read(root, 'src/a.ts'), 'const a = 3;\n');
  assert.equal(formatted.content, 'const a = 3;\n');

  const patched = await rt.applyPatch({
    patch: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-const a = 3;\n+const a=4\n*** Add File: src/c.ts\n+export const c=1\n*** Delete File: src/old.ts\n*** End Patch\n',
  });
  assert.equal(patched.receipts.length, 3);
  assert.equal(read(root, 'src/a.ts'), 'const a = 4;\n');
  assert.equal(read(root, 'src/c.ts'), 'export const c = 1;\n');
  assert.ok(!readdirSync(join(root, 'src')).includes('old.ts'));
  assert.match(patched.input.patch, /\+const a = 4;/);
  assert.match(patched.input.patch, /\+export const c = 1;/);
});

test('a runaway formatter times out, the edit stands, the worker is replaced and the next call works', async () => {
  const root = project({ 'main.go': 'package main\n', 'src/a.ts': 'const a = 1;\n' });
  const rt = runtime(root, {
    limits: { timeoutMs: 5000 },
    adapterModules: [new URL('./runaway-adapters.ts?as=gofmt:wasm-loop', import.meta.url)],
  });
  assert.equal((await rt.edit({ path: 'src/a.ts', oldText: 'const a = 1;', newText: 'const a=1' })).status, 'formatted'); // Biome compiled
  const started = performance.now();
  const receipt = await rt.edit({ path: 'main.go', oldText: 'package main\n', newText: 'package main\n\nfunc main() {}\n' });
  const ms = Math.round(performance.now() - started);
  console.log(`  runtime edit with an infinite-loop formatter returned after ${ms} ms (timeout 5000 ms)`);
  assert.equal(receipt.status, 'timeout');
  assert.match(receipt.line, /formatter timed out \(gofmt\) after 5000 ms: main\.go/);
  assert.equal(read(root, 'main.go'), 'package main\n\nfunc main() {}\n');
  assert.equal(receipt.content, read(root, 'main.go'));
  const again = performance.now();
  const next = await rt.edit({ path: 'src/a.ts', oldText: 'const a = 1;', newText: 'const a=2' });
  console.log(`  next edit on the replacement worker (Biome instantiated from the kept module): ${Math.round(performance.now() - again)} ms`);
  assert.equal(next.status, 'formatted');
  assert.equal((await rt.doctor()).workers.timeouts, 1);
});

test('a file changed while the formatter runs: F is not written, the receipt says concurrent modification', async () => {
  const root = project({ 'a.c': 'int x;   \n' });
  const rt = runtime(root, {
    config: { mode: 'always' },
    adapterModules: [new URL('./runaway-adapters.ts?as=clang-format:js-slow', import.meta.url)],
    observers: [{ before: () => void setTimeout(() => writeFileSync(join(root, 'a.c'), 'int theirs;\n'), 150) }],
  });
  const receipt = await rt.edit({ path: 'a.c', oldText: 'int x;', newText: 'int y;' });
  assert.equal(receipt.status, 'skipped');
  assert.equal(receipt.reason, 'concurrent modification');
  assert.equal(read(root, 'a.c'), 'int theirs;\n', 'the external write survives');
  assert.deepEqual(receipt.input, { oldText: 'int x;', newText: 'int y;' });
  assert.equal(receipt.content, 'int y;   \n');
  assert.match(receipt.note, /Read the file again/);
});

test('calls on the same path are serialised; different paths run concurrently', async () => {
  const root = project({ 'a.c': 'a\n', 'b.c': 'b\n' });
  const rt = runtime(root, {
    workers: 2,
    config: { mode: 'always' },
    adapterModules: [new URL('./runaway-adapters.ts?as=clang-format:js-slow', import.meta.url)],
  });
  await rt.format({ path: 'a.c' }); // warm both paths of the pool lazily
  // Same path: the second edit sees the first one's result (no lost update, no CAS refusal).
  const [first, second] = await Promise.all([
    rt.edit({ path: 'a.c', oldText: 'a', newText: 'a1' }),
    rt.edit({ path: 'a.c', oldText: 'a1', newText: 'a2' }),
  ]);
  assert.equal(first.status, 'unchanged');
  assert.equal(second.status, 'unchanged');
  assert.equal(read(root, 'a.c'), 'a2\n');
  // Different paths overlap in time: two slow (400 ms) formats on two workers.
  const spans: Array<[number, number]> = [];
  const timed = async (path: string) => {
    const start = performance.now();
    await rt.edit({ path, oldText: path[0]!, newText: `${path[0]}x` });
    spans.push([start, performance.now()]);
  };
  await Promise.all([timed('a.c'), timed('b.c')]);
  const [[s1, e1], [s2, e2]] = spans as [[number, number], [number, number]];
  assert.ok(Math.max(s1, s2) < Math.min(e1, e2), 'the two edits overlapped');
});

test('doctor: formatter per language and why, sandbox status, and every ignored config item', async () => {
  const root = project({
    '.prettierrc': JSON.stringify({ semi: false, plugins: ['prettier-plugin-evil'] }),
    'prettier.config.js': 'module.exports = { semi: true };\n',
    'pyproject.toml': '[tool.ruff]\nline-length = 100\n',
  });
  const report = await runtime(root).doctor();
  const byLanguage = Object.fromEntries(report.languages.map((l) => [l.language, l]));
  assert.equal(byLanguage.typescript?.formatter, 'biome', 'biome.json wins over Prettier');
  assert.match(byLanguage.typescript?.because ?? '', /biome/);
  assert.equal(byLanguage.markdown?.formatter, 'prettier');
  assert.equal(byLanguage.python?.formatter, 'ruff');
  assert.equal(byLanguage.go?.formatter, 'gofmt');
  assert.ok(byLanguage.java?.skipped, 'no formatter for Java here');
  assert.equal(report.trust, 'untrusted');
  assert.equal(typeof report.sandbox.available, 'boolean');
  assert.ok(report.sandbox.detail.length > 0);
  const ignored = report.ignored.map((i) => `${i.file} ${i.item}: ${i.reason}`).join('\n');
  assert.match(ignored, /\.prettierrc plugins/);
  assert.match(ignored, /prettier\.config\.js/);
  assert.ok(report.subprocess.some((s) => s.name === 'rustfmt'));
  console.log(`  doctor: sandbox ${report.sandbox.kind} (${report.sandbox.available ? 'available' : 'unavailable'}); ignored:\n${ignored.replace(/^/gm, '    ')}`);
});

test('doctor and receipts: a code Prettier config in untrusted mode refuses the files it configures, and says why', async () => {
  const root = project({ 'prettier.config.mjs': 'export default { semi: false };\n', 'a.md': '# x\n\n* item\n' });
  const rt = runtime(root);
  const report = await rt.doctor();
  const markdown = report.languages.find((l) => l.language === 'markdown');
  assert.equal(markdown?.formatter, 'prettier');
  assert.match(markdown?.because ?? '', /prettier\.config\.mjs declares Prettier \(its config is code: untrusted mode refuses these files\)/);
  assert.match(markdown?.skipped ?? '', /^refused: prettier\.config\.mjs: this config is code; untrusted mode never runs repository code/);
  const receipt = await rt.format({ path: 'a.md' });
  assert.equal(receipt.status, 'refused', receipt.line);
  assert.match(receipt.line, /prettier\.config\.mjs: this config is code/);
  assert.equal(readFileSync(join(root, 'a.md'), 'utf8'), '# x\n\n* item\n');
});

test("through the runtime, F has the formatter's line endings (Biome: lf, or its lineEnding) and P's BOM", async () => {
  const root = project({ 'w.ts': '\uFEFFconst a = 1;\r\nconst b = 2;\r\n', 'crlf/biome.json': '{ "root": false, "formatter": { "indentStyle": "space", "lineEnding": "crlf" } }\n', 'crlf/w.ts': '\uFEFFconst a = 1;\r\nconst b = 2;\r\n' });
  const rt = runtime(root);
  const receipt = await rt.edit({ path: 'w.ts', oldText: 'const b = 2;', newText: 'const b=[1,2]' });
  assert.equal(receipt.status, 'formatted');
  const disk = readFileSync(join(root, 'w.ts'));
  assert.equal(disk.toString('utf8'), '\uFEFFconst a = 1;\nconst b = [1, 2];\n');
  assert.equal(receipt.content, disk.toString('utf8'));
  const kept = await rt.edit({ path: 'crlf/w.ts', oldText: 'const b = 2;', newText: 'const b=[1,2]' });
  assert.equal(readFileSync(join(root, 'crlf/w.ts'), 'utf8'), '\uFEFFconst a = 1;\r\nconst b = [1, 2];\r\n');
  assert.equal(kept.content, readFileSync(join(root, 'crlf/w.ts'), 'utf8'));
});

test('non-UTF-8 files: format skips them, write may replace them', async () => {
  const root = project();
  writeFileSync(join(root, 'latin1.ts'), Buffer.from('const s = "caf\xe9";\n', 'latin1'));
  const rt = runtime(root);
  const receipt = await rt.format({ path: 'latin1.ts' });
  assert.equal(receipt.status, 'skipped');
  assert.equal(receipt.reason, 'not UTF-8');
  assert.deepEqual(readFileSync(join(root, 'latin1.ts')), Buffer.from('const s = "caf\xe9";\n', 'latin1'));
  const written = await rt.write({ path: 'latin1.ts', content: 'const s = "café"' });
  assert.equal(written.status, 'formatted');
  assert.equal(read(root, 'latin1.ts'), 'const s = "café";\n');
});
