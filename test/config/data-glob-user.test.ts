// Bounded data parsing, the bounded glob matcher (checked against picomatch on real paths), and
// user config normalisation (formatbox's shape and the prior-art shapes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import picomatch from 'picomatch';
import { compileGlob, normaliseUserConfig, parseData, splitCommand, loadProjectConfig, selectFormatter } from '../../src/config/index.js';
import { isFormatboxError } from '../../src/core/errors.js';

test('parseData bounds nesting before parsing: 100k-deep JSON, JSON5, TOML and YAML flow are refused, not crashed on', () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  for (const format of ['json', 'jsonc', 'json5', 'yaml'] as const) {
    const result = parseData(deep, format);
    assert.equal(result.ok, false, format);
    assert.match(result.ok ? '' : result.reason, /nested deeper than 64/);
  }
  assert.equal(parseData(`a = ${'['.repeat(1000)}${']'.repeat(1000)}`, 'toml').ok, false);
  // Brackets inside strings do not count.
  assert.deepEqual(parseData(JSON.stringify({ a: '['.repeat(500) }), 'json'), { ok: true, value: { a: '['.repeat(500) } });
});

test('parseData: YAML alias bombs are refused; size is capped; deep block nesting is caught after parsing', () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 0; i < 9; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`);
  const bomb = parseData(lines.join('\n'), 'yaml');
  assert.equal(bomb.ok, false);
  assert.equal(parseData('x'.repeat(2 * 1024 * 1024), 'yaml').ok, false);
  let block = '';
  for (let i = 0; i < 200; i++) block += `${' '.repeat(i)}k${i}:\n`;
  const nested = parseData(block, 'yaml');
  assert.equal(nested.ok, false);
  assert.match(nested.ok ? '' : nested.reason, /nested deeper/);
});

test('parseData drops __proto__/constructor keys from every format', () => {
  assert.deepEqual(parseData('{"__proto__": {"x": 1}, "a": {"constructor": 2, "b": 3}}', 'json'), { ok: true, value: { a: { b: 3 } } });
  assert.deepEqual(parseData('__proto__:\n  x: 1\na: 1\n', 'yaml'), { ok: true, value: { a: 1 } });
});

function walk(dir: string, out: string[], limit: number): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (out.length >= limit) break;
    const full = `${dir}/${name}`;
    if (statSync(full).isDirectory()) walk(full, out, limit);
    else out.push(full.slice('node_modules/'.length));
  }
  return out;
}

// One known difference: picomatch reads `[!a-g]` as a class holding `!` (not a negation); EditorConfig
// and gitignore negate it, and so does compileGlob. `[^a-g]` is negated by both and is compared.
test('compileGlob agrees with picomatch (dot: true) on real paths', () => {
  const paths = walk('node_modules/prettier', [], 400).concat(walk('node_modules/typescript/lib', [], 200));
  const patterns = ['**/*.js', '*.json', 'prettier/*.d.ts', 'prettier/**/*.{js,mjs}', 'prettier/plugins/[a-g]*.js', 'prettier/plugins/[^a-g]*.mjs', '**/lib.es20{15,16,17}*.d.ts', 'typescript/lib/lib.es?0??.d.ts', 'prettier/**', '**/index.*', '**/*/*.d.ts', 'typescript/**/lib.dom.*', '**/@(babel|acorn).js', 'prettier/plugins/?(x|babel).js', 'typescript/lib/lib.es{5,6}.d.ts', '**/.bin/**',
    // The plain-string shapes: a literal, `*suffix`, `prefix*`, `*` alone.
    'prettier/index.js', 'index.js', '*.js', '*', 'prettier/plugins/*', 'prettier/*', 'typescript/lib/lib.es*', '*/package.json'];
  let compared = 0;
  for (const pattern of patterns) {
    const ours = compileGlob(pattern);
    assert.ok(ours.ok, pattern);
    const theirs = picomatch(pattern, { dot: true });
    for (const path of paths) {
      compared++;
      assert.equal(ours.ok && ours.test(path), theirs(path), `${pattern} vs ${path}`);
    }
  }
  assert.ok(paths.length > 150 && compared === paths.length * patterns.length, String(compared));
});

test('compileGlob refuses brace bombs, big ranges and unsupported extglobs; star-heavy globs stay linear', () => {
  assert.equal(compileGlob('{a,b}'.repeat(20)).ok, false);
  assert.equal(compileGlob('{1..100000}').ok, false);
  assert.equal(compileGlob('{'.repeat(20) + 'a' + '}'.repeat(20)).ok, true); // literal braces
  assert.equal(compileGlob('!(a).js').ok, false);
  assert.equal(compileGlob('x'.repeat(5000)).ok, false);
  const stars = compileGlob(`${'*a'.repeat(300)}b`);
  assert.ok(stars.ok);
  // A backtracking RegExp would take years on this; the NFA walk is O(pattern × path).
  assert.equal(stars.ok && stars.test('a'.repeat(4000)), false);
});

test('user config: formatbox shape, globs vs language ids, false turns off', () => {
  const user = normaliseUserConfig({ formatters: { python: 'ruff', 'src/gen/**': false, '*.sql': { command: ['sqlfluff', 'fix', '-'] }, go: { wasi: 'gofmt.wasm', args: ['-s'] }, toml: { dprint: 'toml' } }, timeoutMs: 500, report: 'line', scope: 'edit' });
  assert.deepEqual(user.rules.map((r) => [r.key, r.kind]), [['src/gen/**', 'glob'], ['*.sql', 'glob'], ['python', 'language'], ['go', 'language'], ['toml', 'language']]);
  assert.equal(user.timeoutMs, 500);
  assert.equal(user.report, 'line');
  assert.equal(user.scope, 'edit');
  const project = loadProjectConfig({ 'biome.json': '{}' }, {});
  assert.deepEqual(selectFormatter(project, user, 'src/gen/a.ts'), { kind: 'skip', reason: 'turned off', detail: 'formatters["src/gen/**"] is false in the user config', language: 'typescript' });
  const sql = selectFormatter(project, user, 'db/q.sql');
  assert.ok(sql.kind === 'format' && typeof sql.formatter === 'object' && 'command' in sql.formatter);
  assert.equal(selectFormatter(project, user, 'a.py').kind, 'format');
});

test('user config: code-assistant format_on_save and agent-gateway format.onEdit are accepted unchanged', () => {
  const user = normaliseUserConfig({
    format_on_save: { '**/*.rs': 'cargo fmt', '**/*.ts': 'prettier --write {path}', '**/*.md': 'npx prettier --write --prose-wrap always {path}' },
    format: { enabled: true, onEdit: { python: 'yapf -i {file}', go: false, sql: 'sqlfmt "{file}"', javascript: 'biome format --write', css: "my-fmt --opt 'a b'" }, timeoutMs: 10000, maxOutputChars: 2000 },
  });
  const byKey = Object.fromEntries(user.rules.map((r) => [r.key, r]));
  assert.equal(byKey['**/*.rs']?.choice, 'rustfmt');
  assert.match(byKey['**/*.rs']?.because ?? '', /cargo fmt.*built-in rustfmt \(sandbox\)/);
  assert.equal(byKey['**/*.ts']?.choice, 'prettier');
  assert.match(byKey['**/*.md']?.because ?? '', /--prose-wrap always are not used/);
  assert.deepEqual(byKey.python?.choice, { command: ['yapf', '-i', '{file}'] });
  assert.equal(byKey.go?.choice, false);
  assert.deepEqual(byKey.sql?.choice, { command: ['sqlfmt', '{file}'] });
  assert.equal(byKey.javascript?.choice, 'biome');
  assert.deepEqual(byKey.css?.choice, { command: ['my-fmt', '--opt', 'a b', '{file}'] });
  assert.deepEqual(user.languages, {}); // sql is in the language table (src/core/languages.ts) since issue 14
  assert.equal(user.timeoutMs, 10000);
  assert.equal(user.maxDiffChars, 2000);
  assert.equal(user.mode, 'always'); // The gateway formats every language it has a default for.
  const project = loadProjectConfig({}, {});
  const sql = selectFormatter(project, user, 'q.sql');
  assert.ok(sql.kind === 'format' && sql.language === 'sql');
  assert.equal(selectFormatter(project, user, 'main.go').kind, 'skip');
  assert.equal(normaliseUserConfig({ format: { enabled: false } }).enabled, false);
});

test('splitCommand: quotes group, backslash escapes, no shell operators', () => {
  assert.deepEqual(splitCommand(`fmt -a "b c" 'd "e"' f\\ g ""`), ['fmt', '-a', 'b c', 'd "e"', 'f g', '']);
  for (const line of ['a && b', 'a | b', 'a ; b', 'a > out', '"unclosed', '   ']) {
    assert.throws(() => splitCommand(line), (error: unknown) => isFormatboxError(error) && error.code === 'INVALID_CONFIG', line);
  }
  assert.throws(() => normaliseUserConfig({ mode: 'sometimes' as 'always' }), /mode/);
  assert.throws(() => normaliseUserConfig({ formatters: { python: 42 as unknown as string } }), /python/);
});
