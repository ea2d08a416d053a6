// trust: 'trusted' (the user's explicit choice): the project's Prettier config and plugins load as
// Prettier itself would load them. The same kind of directory as the hostile cases: here the code
// config and the plugin do run (their marker appears) and their options take effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { discoverProjectFiles } from '../../src/node/discover.js';
import { trustedPrettierFormatter } from '../../src/node/trusted-prettier.js';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';

function project(files: Record<string, string>): { base: string; root: string } {
  const base = mkdtempSync(join(tmpdir(), 'formatbox-trusted-'));
  const root = join(base, 'root');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text.replaceAll('{{MARKER}}', JSON.stringify(join(base, 'MARKER'))));
  }
  return { base, root };
}

const CONFIG = `import { writeFileSync } from 'node:fs';\nwriteFileSync({{MARKER}}, 'config ran');\nexport default { semi: false, tabWidth: 4, plugins: ['./plugin.mjs'] };\n`;
// A working plugin: it adds an option-free printer-less language by extension only, and records that it loaded.
const PLUGIN = `import { appendFileSync } from 'node:fs';\nappendFileSync({{MARKER}}, ' plugin ran');\nexport const languages = [{ name: 'evil', parsers: ['babel'], extensions: ['.evil'] }];\n`;

test('trusted mode loads prettier.config.mjs and its plugins, and their options apply', async () => {
  const { base, root } = project({ 'package.json': '{ "type": "module" }', 'prettier.config.mjs': CONFIG, 'plugin.mjs': PLUGIN });
  try {
    const discovered = await discoverProjectFiles(root);
    const engine = createEngine({ formatters: [prettierFormatter(), trustedPrettierFormatter(root)], projectFiles: discovered.files, trust: 'trusted' });
    assert.deepEqual(engine.ignored, []);
    const outcome = await engine.format({ path: 'src/a.ts', text: 'function f(){return {a:1}}\n' });
    assert.equal(outcome.status, 'formatted', outcome.line);
    assert.equal(outcome.content, 'function f() {\n    return { a: 1 }\n}\n');
    assert.equal(readFileSync(join(base, 'MARKER'), 'utf8'), 'config ran plugin ran');
    // The plugin's language is known to Prettier now: a `.evil` file is formatted with its parser.
    const evil = await trustedPrettierFormatter(root).format({ path: 'x.evil', language: 'javascript', text: 'let  a=1', settings: {} });
    assert.deepEqual(evil, { kind: 'ok', text: 'let a = 1\n' });
    await engine.dispose();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('the same directory in untrusted mode: nothing runs, the file is refused (never Prettier defaults), the config is reported', async () => {
  const { base, root } = project({ 'package.json': '{ "type": "module" }', 'prettier.config.mjs': CONFIG, 'plugin.mjs': PLUGIN });
  try {
    const discovered = await discoverProjectFiles(root);
    const engine = createEngine({ formatters: [prettierFormatter()], projectFiles: discovered.files, trust: 'untrusted' });
    const text = 'function f(){return {a:1}}\n';
    const outcome = await engine.format({ path: 'src/a.ts', text });
    assert.equal(outcome.status, 'refused', outcome.line);
    assert.match(outcome.reason ?? '', /^prettier\.config\.mjs: this config is code; untrusted mode never runs repository code/);
    assert.equal(outcome.content, text);
    assert.equal(existsSync(join(base, 'MARKER')), false);
    assert.ok(engine.ignored.some((i) => i.item === 'prettier.config.mjs'));
    await engine.dispose();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('createRuntime({ trust: "trusted" }) runs the project Prettier config and plugins in its worker', async () => {
  const { createRuntime } = await import('../../src/node/index.js');
  const { base, root } = project({ 'package.json': '{ "type": "module" }', 'prettier.config.mjs': CONFIG, 'plugin.mjs': PLUGIN, 'src/a.ts': 'function f(){return {a:1}}\n' });
  const runtime = createRuntime({ root, trust: 'trusted' });
  try {
    const receipt = await runtime.format({ path: 'src/a.ts' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.equal(readFileSync(join(root, 'src/a.ts'), 'utf8'), 'function f() {\n    return { a: 1 }\n}\n');
    assert.equal(readFileSync(join(base, 'MARKER'), 'utf8'), 'config ran plugin ran');
    assert.deepEqual((await runtime.doctor()).ignored.filter((i) => i.file === 'prettier.config.mjs'), []);
  } finally {
    await runtime.close();
    rmSync(base, { recursive: true, force: true });
  }
});
