/**
 * A warm runtime (embedded `createRuntime`, and a running `formatbox serve`) picks up project config
 * that changed, appeared or disappeared on disk behind its back, on the next call. Real Biome.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createConfigWatch } from '../../src/node/config-watch.js';
import { readPinFiles } from '../../src/node/pin-files.js';

const REPO = new URL('../..', import.meta.url).pathname;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'formatbox-watch-'));
  dirs.push(root);
  mkdirSync(join(root, '.git'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const SOURCE = 'function f() { return 1 }\n';
const biome = (indentWidth: number) => `{ "formatter": { "indentStyle": "space", "indentWidth": ${indentWidth} } }\n`;

test('watchConfig: false (a one-shot batch such as `formatbox format`) keeps the config found at the start', async () => {
  const root = project({ 'biome.json': biome(2), 'src/a.ts': SOURCE });
  const runtime = createRuntime({ root, watchConfig: false });
  try {
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n  return 1;\n}\n');
    writeFileSync(join(root, 'biome.json'), biome(4));
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n  return 1;\n}\n');
  } finally {
    await runtime.close();
  }
});

test('embedded runtime: a biome.json changed in place (same size, same second), replaced by rename, added in a subdirectory, broken, and deleted', async () => {
  const root = project({ 'biome.json': biome(2), 'src/a.ts': SOURCE, 'src/deep/b.ts': SOURCE });
  const runtime = createRuntime({ root });
  try {
    const first = await runtime.format({ path: 'src/a.ts', check: true });
    assert.equal(first.content, 'function f() {\n  return 1;\n}\n');

    writeFileSync(join(root, 'biome.json'), biome(4)); // same size, within the same mtime tick
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n    return 1;\n}\n');
    writeFileSync(join(root, 'biome.json'), biome(6)); // formatText (`format --stdin-filepath`) sees it too
    assert.equal((await runtime.formatText({ path: 'src/a.ts', text: SOURCE })).content, 'function f() {\n      return 1;\n}\n');
    writeFileSync(join(root, 'biome.json'), biome(4));

    writeFileSync(join(root, 'biome.json.tmp'), biome(3)); // an editor's save: write, then rename over
    renameSync(join(root, 'biome.json.tmp'), join(root, 'biome.json'));
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n   return 1;\n}\n');

    writeFileSync(join(root, 'src/deep/biome.json'), '{ "root": false, "formatter": { "indentStyle": "tab" } }\n');
    assert.equal((await runtime.format({ path: 'src/deep/b.ts', check: true })).content, 'function f() {\n\treturn 1;\n}\n');

    writeFileSync(join(root, 'biome.json'), '{ "formatter": { "indentWidth": "4" } }\n');
    const broken = await runtime.format({ path: 'src/a.ts', check: true });
    assert.equal(broken.status, 'failed');
    assert.match(broken.reason ?? '', /invalid project config: biome\.json:1:\d+: indentWidth has an incorrect type/);
    assert.equal(broken.content, SOURCE, 'the file stays as written');

    unlinkSync(join(root, 'src/deep/biome.json'));
    unlinkSync(join(root, 'biome.json'));
    const gone = await runtime.format({ path: 'src/a.ts', check: true });
    assert.equal(gone.status, 'skipped');
    assert.equal(gone.reason, 'no formatter declared');
  } finally {
    await runtime.close();
  }
});

test('the watch itself: no change means no rediscovery; a change anywhere along the path is seen once', () => {
  const root = project({ 'biome.json': biome(2), 'a/b/c.ts': SOURCE, 'a/.editorconfig': 'root = true\n' });
  const watch = createConfigWatch(root);
  watch.reset({ 'biome.json': readFileSync(join(root, 'biome.json'), 'utf8'), 'a/.editorconfig': 'root = true\n' }, readPinFiles(root));
  assert.equal(watch.changed('a/b/c.ts'), false);
  assert.equal(watch.changed('a/b/c.ts'), false);
  writeFileSync(join(root, 'a/b/.prettierrc'), '{}');
  assert.equal(watch.changed('a/b/c.ts'), true, 'a config file appeared');
  assert.equal(watch.changed('other.ts'), false, 'not on the path of other.ts');
});

test('serve: a config changed on disk between two requests is used by the second', async () => {
  const root = project({ 'biome.json': biome(2), 'a.ts': SOURCE });
  const env = { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(tmpdir(), 'fb-watch-no-config') };
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), 'serve'], { cwd: REPO, env });
  const answers: Array<{ id: number; content?: string; status?: string }> = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      answers.push(JSON.parse(buffer.slice(0, newline)));
      buffer = buffer.slice(newline + 1);
    }
  });
  const ask = async (id: number): Promise<{ content: string; status: string }> => {
    child.stdin.write(`${JSON.stringify({ id, root, method: 'format', path: 'a.ts', check: true })}\n`);
    const started = Date.now();
    while (!answers.some((a) => a.id === id) && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 20));
    const answer = answers.find((a) => a.id === id);
    assert.ok(answer && typeof answer.content === 'string' && typeof answer.status === 'string', `no receipt for request ${id}: ${JSON.stringify(answer)}`);
    return { content: answer.content as string, status: answer.status as string };
  };
  try {
    assert.equal((await ask(1)).content, 'function f() {\n  return 1;\n}\n');
    writeFileSync(join(root, 'biome.json'), biome(4));
    assert.equal((await ask(2)).content, 'function f() {\n    return 1;\n}\n');
    unlinkSync(join(root, 'biome.json'));
    assert.equal((await ask(3)).status, 'skipped');
    writeFileSync(join(root, 'biome.json'), biome(3));
    assert.equal((await ask(4)).content, 'function f() {\n   return 1;\n}\n');
  } finally {
    child.stdin.end();
    await new Promise((done) => child.on('close', done));
  }
});

test('embedded runtime: a Biome extends file changed, missing then created, anywhere in the root', async () => {
  const root = project({ 'biome.json': '{ "extends": ["./config/base.json"] }\n', 'config/base.json': biome(2), 'src/a.ts': SOURCE });
  const runtime = createRuntime({ root });
  try {
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n  return 1;\n}\n');
    writeFileSync(join(root, 'config/base.json'), biome(4)); // not on src/a.ts's path, same size
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n    return 1;\n}\n');
    unlinkSync(join(root, 'config/base.json'));
    const missing = await runtime.format({ path: 'src/a.ts', check: true });
    assert.equal(missing.status, 'failed');
    assert.match(missing.reason ?? '', /biome\.json: extends "\.\/config\/base\.json" is not followed: config\/base\.json does not exist/);
    writeFileSync(join(root, 'config/base.json'), biome(3));
    assert.equal((await runtime.format({ path: 'src/a.ts', check: true })).content, 'function f() {\n   return 1;\n}\n');
  } finally {
    await runtime.close();
  }
});

test('the watch itself: an extends file beside biome.json is no change by itself; editing it is', () => {
  const root = project({ 'biome.json': '{ "extends": ["./base.json"] }\n', 'base.json': biome(2), 'a/c.ts': SOURCE });
  const watch = createConfigWatch(root);
  watch.reset({ 'biome.json': '{ "extends": ["./base.json"] }\n', 'base.json': biome(2) }, readPinFiles(root));
  assert.equal(watch.changed('a/c.ts'), false);
  assert.equal(watch.changed('a/c.ts'), false);
  writeFileSync(join(root, 'base.json'), biome(5));
  assert.equal(watch.changed('a/c.ts'), true);
});

test('the watch itself: a pin file that appears, changes or goes is seen from any path; touching it without a change is not', () => {
  const root = project({ 'biome.json': biome(2), 'a/c.ts': SOURCE, 'node_modules/prettier/package.json': '{ "name": "prettier", "version": "3.3.3" }\n' });
  const watch = createConfigWatch(root);
  const reset = () => watch.reset({ 'biome.json': biome(2) }, readPinFiles(root));
  reset();
  assert.equal(watch.changed('a/c.ts'), false);
  writeFileSync(join(root, 'package-lock.json'), '{ "lockfileVersion": 3 }\n');
  assert.equal(watch.changed('a/c.ts'), true, 'a lockfile appeared');
  reset();
  assert.equal(watch.changed('a/c.ts'), false, 'the lockfile just read');
  writeFileSync(join(root, 'package-lock.json'), '{ "lockfileVersion": 3 }\n');
  assert.equal(watch.changed('a/c.ts'), false, 'rewritten with the same bytes');
  writeFileSync(join(root, 'node_modules/prettier/package.json'), '{ "name": "prettier", "version": "3.6.2" }\n');
  assert.equal(watch.changed('other.ts'), true, 'an install changed the installed version');
  reset();
  unlinkSync(join(root, 'package-lock.json'));
  assert.equal(watch.changed('a/c.ts'), true, 'the lockfile went');
});
