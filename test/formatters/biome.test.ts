// Unit tests for the Biome adapter, against the real @biomejs/wasm-web build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { biomeFormatter, BIOME_VERSION } from '../../src/formatters/biome/adapter.js';
import type { AdapterRequest, AdapterResult } from '../../src/core/types.js';

const wasmBytes = readFileSync('node_modules/@biomejs/wasm-web/biome_wasm_bg.wasm');
const biome = biomeFormatter({ wasm: () => Promise.resolve(wasmBytes) });

function request(path: string, text: string, extra: Partial<AdapterRequest> = {}): AdapterRequest {
  return { path, language: 'typescript', text, settings: {}, ...extra };
}

function okText(result: AdapterResult): string {
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

test('BIOME_VERSION matches the installed @biomejs/wasm-web, and info() reports it', async () => {
  const installed = JSON.parse(readFileSync('node_modules/@biomejs/wasm-web/package.json', 'utf8')).version;
  assert.equal(BIOME_VERSION, installed);
  assert.deepEqual(await biome.info(), { name: 'biome', version: installed, via: 'wasm' });
});

test('formats TypeScript, JSON, CSS and GraphQL with Biome defaults', async () => {
  assert.equal(
    okText(await biome.format(request('src/a.ts', "const  x : number=1\nfunction f( a,b ){return 'a'+b}\n"))),
    'const x: number = 1;\nfunction f(a, b) {\n\treturn "a" + b;\n}\n',
  );
  assert.equal(okText(await biome.format(request('data.json', '{"a":[1,2],\n"b":{}}', { language: 'json' }))), '{ "a": [1, 2], "b": {} }\n');
  assert.equal(okText(await biome.format(request('a.css', 'a{color:red}', { language: 'css' }))), 'a {\n\tcolor: red;\n}\n');
  assert.equal(
    okText(await biome.format(request('a.graphql', 'query{a{b}}', { language: 'graphql' }))),
    'query {\n\ta {\n\t\tb\n\t}\n}\n',
  );
});

test('settings are honoured: indentStyle, lineWidth, javascript quoteStyle; changed settings apply', async () => {
  const text = 'function f(){return call("alpha", "beta", "gamma")}\n';
  const settings = {
    formatter: { indentStyle: 'space', indentWidth: 4, lineWidth: 50 },
    javascript: { formatter: { quoteStyle: 'single' } },
  };
  assert.equal(
    okText(await biome.format(request('a.js', text, { language: 'javascript', settings }))),
    "function f() {\n    return call('alpha', 'beta', 'gamma');\n}\n",
  );
  const narrow = { formatter: { indentStyle: 'space', indentWidth: 2, lineWidth: 30 } };
  assert.equal(
    okText(await biome.format(request('a.js', text, { language: 'javascript', settings: narrow }))),
    'function f() {\n  return call(\n    "alpha",\n    "beta",\n    "gamma",\n  );\n}\n',
  );
  // Back to defaults: the cached settings must not leak into the next call.
  assert.equal(
    okText(await biome.format(request('a.js', text, { language: 'javascript' }))),
    'function f() {\n\treturn call("alpha", "beta", "gamma");\n}\n',
  );
});

test('a parse error is an error value with the first diagnostic and (line:column)', async () => {
  const result = await biome.format(request('src/a.ts', 'const ok = "é";\nconst a = (\nlet b = 2;\n'));
  assert.deepEqual(result, {
    kind: 'error',
    message: 'Illegal use of reserved keyword `let` as an identifier in strict mode (3:1)',
  });
  const css = await biome.format(request('a.css', 'a { color: red', { language: 'css' }));
  assert.equal(css.kind, 'error');
  assert.match((css as { message: string }).message, /\(1:\d+\)$/);
});

test('files ignored by files.includes, or with the formatter off, are unsupported (not formatted)', async () => {
  const settings = { files: { includes: ['src/**', '!**/generated/**'] } };
  const text = 'let  a=1\n';
  assert.equal(okText(await biome.format(request('src/a.ts', text, { settings }))), 'let a = 1;\n');
  assert.deepEqual(await biome.format(request('src/generated/a.ts', text, { settings })), {
    kind: 'unsupported',
    reason: 'ignored by project config',
  });
  assert.deepEqual(await biome.format(request('lib/a.ts', text, { settings })), {
    kind: 'unsupported',
    reason: 'ignored by project config',
  });
  // Biome's updateSettings merges into a project's settings; a later configuration without `files`
  // must not inherit the includes above.
  assert.equal(okText(await biome.format(request('lib/a.ts', text))), 'let a = 1;\n');
  assert.equal(okText(await biome.format(request('lib/a.ts', text, { settings: { formatter: { lineWidth: 80 } } }))), 'let a = 1;\n');
  const off = await biome.format(request('src/a.ts', text, { settings: { formatter: { enabled: false } } }));
  assert.equal(off.kind, 'unsupported', JSON.stringify(off));
  const jsOff = await biome.format(request('src/a.ts', text, { settings: { javascript: { formatter: { enabled: false } } } }));
  assert.equal(jsOff.kind, 'unsupported', JSON.stringify(jsOff));
  // Biome's own protected files (lock files) are never formatted.
  const lock = await biome.format(request('package-lock.json', '{"a":1}', { language: 'json' }));
  assert.equal(lock.kind, 'unsupported', JSON.stringify(lock));
});

test('extends and plugins never reach the workspace; a bad configuration is an error value', async () => {
  const settings = {
    extends: ['./base.json', 'some-package'],
    plugins: ['./missing-plugin.grit'],
    overrides: [{ includes: ['**/*.js'], plugins: ['./other.grit'] }],
    formatter: { indentStyle: 'space' },
  };
  assert.equal(okText(await biome.format(request('a.ts', 'if(a){b()}', { settings }))), 'if (a) {\n  b();\n}\n');
  const bad = await biome.format(request('a.ts', 'x', { settings: { formatter: { indentStyle: 'sideways' } } }));
  assert.equal(bad.kind, 'error', JSON.stringify(bad));
  assert.match((bad as { message: string }).message, /^invalid Biome configuration: /);
  // The adapter recovers on the next call with a valid configuration.
  assert.equal(okText(await biome.format(request('a.ts', 'x'))), 'x;\n');
});

test('range formatting keeps text outside the range byte-identical, with non-ASCII before the range', async () => {
  // é and ü are 2 UTF-8 bytes each, 🎉 is 4 bytes (2 UTF-16 units): byte and UTF-16 offsets differ.
  const before = 'const  é = "🎉 ü"   ;\n';
  const middle = 'const   b  =  {x:1}\n';
  const after = 'const   c = 3\n';
  const text = before + middle + after;
  const utf16Start = before.length + 2;
  const result = okText(await biome.format(request('a.ts', text, { range: { utf16Start, utf16End: utf16Start + 3 } })));
  assert.equal(result, before + 'const b = { x: 1 };\n' + after);

  // The same edit with ASCII-only text before it gives the same middle: the offsets were converted.
  const asciiBefore = 'const  e = "xx u"   ;\n';
  const ascii = okText(
    await biome.format(request('a.ts', asciiBefore + middle + after, {
      range: { utf16Start: asciiBefore.length + 2, utf16End: asciiBefore.length + 5 },
    })),
  );
  assert.equal(ascii, asciiBefore + 'const b = { x: 1 };\n' + after);
});

test('dispose() frees the workspace; the adapter reloads on the next call', async () => {
  const own = biomeFormatter({ wasm: wasmBytes });
  assert.equal(okText(await own.format(request('a.ts', 'let  a'))), 'let a;\n');
  await own.dispose?.();
  assert.equal(okText(await own.format(request('a.ts', 'let  b'))), 'let b;\n');
  await own.dispose?.();
});

test('many distinct configurations: the workspace is recycled and every configuration still applies', async () => {
  const text = 'call("alpha", "beta", "gamma", "delta")\n';
  for (let lineWidth = 20; lineWidth < 60; lineWidth += 2) {
    const settings = { formatter: { lineWidth, indentStyle: 'space' } };
    const result = okText(await biome.format(request('a.ts', text, { settings })));
    const fits = 'call("alpha", "beta", "gamma", "delta");'.length <= lineWidth;
    assert.equal(result.includes('\n  "alpha",'), !fits, `lineWidth ${lineWidth}: ${result}`);
  }
  const ignored = await biome.format(request('a.ts', text, { settings: { files: { includes: ['src/**'] } } }));
  assert.equal(ignored.kind, 'unsupported');
});

test('files above files.maxSize are unsupported with the reason, as Biome skips them', async () => {
  const text = `const s = "${'é'.repeat(60)}";\n`; // 134 bytes in UTF-8, 74 UTF-16 units
  // At exactly maxSize Biome itself still formats (it would answer "was ignored" above it).
  const small = await biome.format(request('a.ts', text, { settings: { files: { maxSize: 134 } } }));
  assert.equal(okText(small), text);
  assert.deepEqual(await biome.format(request('a.ts', text, { settings: { files: { maxSize: 100 } } })), {
    kind: 'unsupported',
    reason: "larger than Biome's files.maxSize (134 > 100 bytes)",
  });
});

test('globs of a nested config are relative to its directory (settingsDir)', async () => {
  const settings = { files: { includes: ['src/**'] } };
  const text = 'let  a=1\n';
  const nested = { settings, settingsDir: 'packages/a' };
  assert.equal(okText(await biome.format(request('packages/a/src/x.ts', text, nested))), 'let a = 1;\n');
  assert.deepEqual(await biome.format(request('packages/a/lib/x.ts', text, nested)), {
    kind: 'unsupported',
    reason: 'ignored by project config',
  });
  // The same configuration at the root does not include packages/a/src.
  assert.equal((await biome.format(request('packages/a/src/x.ts', text, { settings }))).kind, 'unsupported');
});

test('the format-only workspace: linter and assist settings do not change the output, and a section of the wrong type is still rejected', async () => {
  const text = 'let  unused=1\nfunction f( a ){debugger;return a}\n';
  const plain = okText(await biome.format(request('src/lint.ts', text)));
  const linted = okText(await biome.format(request('src/lint.ts', text, { settings: { linter: { enabled: true, rules: { recommended: true } }, assist: { enabled: true } } })));
  assert.equal(linted, plain);
  for (const settings of [{ linter: true }, { assist: 'on' }]) {
    const result = await biome.format(request('src/lint.ts', text, { settings }));
    assert.equal(result.kind, 'error', JSON.stringify(settings));
    assert.match((result as { message: string }).message, /invalid Biome configuration: .*invalid type/);
  }
});
