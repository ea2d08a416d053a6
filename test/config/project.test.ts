// Project config read as data: sanitising (plugins, code configs, Biome extends, maxSize, Ruff extend),
// nearest-config resolution, EditorConfig mapping, and formatter selection, on the pure functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';
import type { Selection } from '../../src/config/index.js';
import type { ProjectFiles, UserConfig } from '../../src/core/types.js';

function select(files: ProjectFiles, path: string, user: UserConfig = {}, trust: 'untrusted' | 'trusted' = 'untrusted'): Selection {
  return selectFormatter(loadProjectConfig(files, { trust }), normaliseUserConfig(user), path);
}

function formatted(selection: Selection): Extract<Selection, { kind: 'format' }> {
  assert.equal(selection.kind, 'format', JSON.stringify(selection));
  return selection as Extract<Selection, { kind: 'format' }>;
}

test('every data form of .prettierrc declares Prettier with the same options', () => {
  const forms: ProjectFiles[] = [
    { '.prettierrc': '{ "semi": false, "singleQuote": true }' },
    { '.prettierrc': 'semi: false\nsingleQuote: true\n' },
    { '.prettierrc': '{semi: false, singleQuote: true}' },
    { '.prettierrc.json': '{ "semi": false, "singleQuote": true }' },
    { '.prettierrc.yaml': 'semi: false\nsingleQuote: true\n' },
    { '.prettierrc.yml': 'semi: false\nsingleQuote: true\n' },
    { '.prettierrc.json5': "{ semi: false, singleQuote: true, /* c */ }" },
    { '.prettierrc.toml': 'semi = false\nsingleQuote = true\n' },
    { 'package.json': '{ "name": "x", "prettier": { "semi": false, "singleQuote": true } }' },
    { 'package.yaml': 'name: x\nprettier:\n  semi: false\n  singleQuote: true\n' },
  ];
  for (const files of forms) {
    const s = formatted(select(files, 'src/a.ts'));
    assert.equal(s.formatter, 'prettier');
    assert.deepEqual(s.settings, { semi: false, singleQuote: true }, JSON.stringify(files));
  }
});

test('package.json without "prettier" does not declare Prettier, and the search goes on in that directory', () => {
  assert.equal(select({ 'package.json': '{"name":"x"}' }, 'a.ts').kind, 'skip');
  const s = formatted(select({ 'package.json': '{"name":"x"}', '.prettierrc.json': '{"tabWidth": 8}' }, 'a.ts'));
  assert.deepEqual(s.settings, { tabWidth: 8 });
  assert.equal(s.because, '.prettierrc.json declares Prettier');
});

test('plugins are never loaded in any form, also inside overrides; each one is reported, and the files the config governs are refused', () => {
  const plugins = ['./local-plugin.js', 'prettier-plugin-evil', '/abs/plugin.mjs', 'file:///tmp/p.mjs', 'data:text/javascript,export default {}', 'https://example.com/p.mjs', 'node:fs', 'blob:x', 'javascript:alert(1)'];
  const files = {
    '.prettierrc': JSON.stringify({ semi: false, plugins, pluginSearchDirs: ['.'], overrides: [{ files: '*.ts', options: { plugins: ['x'], tabWidth: 3 } }] }),
  };
  const project = loadProjectConfig(files, { trust: 'untrusted' });
  // doctor() gets every item.
  for (const plugin of plugins) assert.ok(project.ignored.some((i) => i.item.includes(plugin.slice(0, 40))), plugin);
  assert.ok(project.ignored.some((i) => i.item === 'overrides[0].options.plugins[0]: x'));
  assert.ok(project.ignored.some((i) => i.item.startsWith('pluginSearchDirs')));
  // Formatting without the plugins could give other bytes than the project's Prettier: refused, naming them.
  for (const path of ['a.ts', 'b.md']) {
    const s = selectFormatter(project, normaliseUserConfig({}), path);
    assert.equal(s.kind, 'invalid-config', JSON.stringify(s));
    if (s.kind !== 'invalid-config') continue;
    assert.equal(s.error.refusal, true);
    assert.match(s.error.message, /^this config loads the Prettier plugins \.\/local-plugin\.js, prettier-plugin-evil, \/abs\/plugin\.mjs, /);
    assert.match(s.error.message, /which formatbox does not run; untrusted mode never runs repository code/);
  }
});

test('a plugin listed in an override refuses only the files the override matches; allowlisted plugins are not refused', () => {
  const project = loadProjectConfig({ '.prettierrc': JSON.stringify({ semi: false, plugins: ['@prettier/plugin-xml', 'prettier-plugin-sh'], overrides: [{ files: ['*.tsx', 'src/**/*.css'], excludeFiles: 'src/keep/**', options: { plugins: ['prettier-plugin-tailwindcss'] } }] }) }, { trust: 'untrusted' });
  const user = normaliseUserConfig({});
  for (const path of ['a.tsx', 'deep/b.tsx', 'src/x/c.css']) {
    const s = selectFormatter(project, user, path);
    assert.equal(s.kind, 'invalid-config', `${path}: ${JSON.stringify(s)}`);
    if (s.kind === 'invalid-config') assert.match(s.error.message, /^overrides\[0\] of this config loads the Prettier plugin prettier-plugin-tailwindcss, which formatbox does not run/);
  }
  for (const path of ['a.ts', 'c.css', 'src/keep/d.css', 'e.xml']) assert.equal(formatted(selectFormatter(project, user, path)).settings.semi, false, path);
  // Trusted: Prettier itself loads the plugins, nothing is refused.
  assert.equal(selectFormatter(loadProjectConfig({ '.prettierrc': '{"plugins":["prettier-plugin-tailwindcss"]}' }, { trust: 'trusted' }), user, 'a.tsx').kind, 'format');
});

test('Biome: plugins stripped, maxSize clamped, "//" merges the root config', () => {
  const files = {
    'biome.json': '{ "formatter": { "indentStyle": "space", "lineWidth": 100 } }',
    'packages/a/biome.jsonc': '// nested\n{ "root": false, "extends": "//", "plugins": ["./rule.grit"], "files": { "maxSize": 1073741824 }, "formatter": { "lineWidth": 80 }, }',
  };
  const s = formatted(select(files, 'packages/a/src/x.ts'));
  assert.equal(s.formatter, 'biome');
  assert.deepEqual(s.settings, { formatter: { indentStyle: 'space', lineWidth: 80 }, files: { maxSize: 1024 * 1024 } });
  assert.equal(s.settingsDir, 'packages/a'); // Biome's globs in it are relative to packages/a.
  const items = s.ignored.map((i) => i.item).join('\n');
  assert.match(items, /plugins\[0\]/);
  assert.match(items, /files\.maxSize/);
});

test('Biome: extends files inside the root are merged in order (overrides concatenated, other lists replaced), anything else refuses', () => {
  const files = {
    'biome.json': JSON.stringify({ extends: ['./a.json', 'cfg/b.jsonc'], formatter: { lineWidth: 90 } }),
    'a.json': JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 3, lineWidth: 70 }, files: { includes: ['**', '!gen'] }, overrides: [{ includes: ['x.ts'], formatter: { indentWidth: 5 } }], plugins: ['./p.grit'] }),
    'cfg/b.jsonc': '{ "extends": ["./c.json"], "formatter": { "indentWidth": 4 }, "files": { "includes": ["**"] }, "overrides": [{ "includes": ["y.ts"] }], }',
  };
  const s = formatted(select(files, 'src/x.ts'));
  assert.deepEqual(s.settings, {
    formatter: { indentStyle: 'space', indentWidth: 4, lineWidth: 90 },
    files: { includes: ['**'] },
    overrides: [{ includes: ['x.ts'], formatter: { indentWidth: 5 } }, { includes: ['y.ts'] }],
  });
  const items = s.ignored.map((i) => `${i.file}: ${i.item}`).join('\n');
  assert.match(items, /a\.json: plugins\[0\]/);
  assert.match(items, /cfg\/b\.jsonc: extends: \["\.\/c\.json"\]/);
  const refused = (extendsValue: unknown, extra: Record<string, string> = {}): string => {
    const selection = select({ 'biome.json': JSON.stringify({ extends: extendsValue }), ...extra }, 'a.ts');
    assert.equal(selection.kind, 'invalid-config', JSON.stringify(selection));
    return selection.kind === 'invalid-config' ? `${selection.error.file}: ${selection.error.message}` : '';
  };
  assert.match(refused(['../up.json']), /^biome\.json: extends "\.\.\/up\.json" is not followed: a path outside the project root$/);
  assert.match(refused(['x/../../up.json']), /outside the project root/);
  assert.match(refused(['/etc/biome.json']), /an absolute path/);
  assert.match(refused(['@org/biome-config']), /no package\.json in the project root/);
  assert.match(refused(['./missing.json']), /missing\.json does not exist in the project/);
  assert.match(refused(['./big.json'], { 'big.json': null as unknown as string }), /big\.json was not read/);
  assert.match(refused(['//', './a.json'], { 'a.json': '{}' }), /Failed to resolve the configuration from \/\//);
  assert.match(refused(['./bad.json'], { 'bad.json': '[1]' }), /^bad\.json: not a JSON object \(extended by biome\.json\)$/);
});

test('Biome: files.includes and formatter settings are honoured before formatting', () => {
  const files = { 'biome.json': JSON.stringify({ files: { includes: ['**', '!**/generated', '!**/*.min.js'] }, formatter: { includes: ['src/**', 'test/**'] }, css: { formatter: { enabled: false } } }) };
  assert.equal(select(files, 'src/a.ts').kind, 'format');
  assert.deepEqual(select(files, 'src/generated/a.ts'), { kind: 'skip', reason: 'ignored by project config', detail: 'not in files.includes of biome.json', language: 'typescript' });
  assert.equal(select(files, 'src/x.min.js').kind, 'skip');
  assert.equal(select(files, 'scripts/a.ts').kind, 'skip');
  assert.equal(select(files, 'src/a.css').kind, 'skip');
});

test('Biome before Prettier; Prettier formats what Biome cannot only when the project declares Prettier', () => {
  const both = { 'biome.json': '{}', '.prettierrc': '{"proseWrap":"always"}' };
  assert.equal(formatted(select(both, 'a.ts')).formatter, 'biome');
  assert.equal(formatted(select(both, 'a.md')).formatter, 'prettier');
  const biomeOnly = { 'biome.json': '{}' };
  assert.equal(select(biomeOnly, 'a.md').kind, 'skip');
  assert.equal(select(biomeOnly, 'a.yaml').kind, 'skip');
  assert.equal(formatted(select(biomeOnly, 'a.md', { mode: 'always' })).formatter, 'prettier');
});

test('Ruff: nearest config wins, Ruff order in a directory, only format settings, extend ignored, a value Ruff rejects refused', () => {
  const files = {
    'pyproject.toml': '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 120\nselect = ["E"]\nextend = "../outside.toml"\n\n[tool.ruff.format]\nquote-style = "single"\nindent-style = "tab"\ndocstring-code-format = true\nexclude = ["gen"]\n\n[tool.ruff.lint]\nselect = ["F"]\n',
    'svc/.ruff.toml': 'line-length = 88\n[format]\nquote-style = "backtick"\npreview = true\n',
    'svc/ruff.toml': 'line-length = 10\n',
    'lib/pyproject.toml': '[project]\nname = "lib"\n',
  };
  const root = formatted(select(files, 'a.py'));
  assert.deepEqual(root.settings, { 'line-length': 120, format: { 'quote-style': 'single', 'indent-style': 'tab', 'docstring-code-format': true } });
  assert.ok(root.ignored.some((i) => i.item.startsWith('extend')));
  // Ruff refuses a config with a bad value: so does formatbox, naming the file and the key's line.
  const svc = select(files, 'svc/m/a.py');
  assert.equal(svc.kind, 'invalid-config');
  assert.deepEqual(svc.kind === 'invalid-config' && svc.error, { file: 'svc/.ruff.toml', line: 3, column: 1, message: 'invalid value for format.quote-style: "backtick"' });
  // A pyproject.toml without [tool.ruff] does not count: the root config applies.
  assert.deepEqual(formatted(select(files, 'lib/a.py')).settings, root.settings);
});

test('[tool.black] declares Python formatting through Ruff when no Ruff config exists', () => {
  const files = { 'pyproject.toml': '[tool.black]\nline-length = 100\nskip-string-normalization = true\nskip-magic-trailing-comma = true\n' };
  const s = formatted(select(files, 'pkg/a.py'));
  assert.equal(s.formatter, 'ruff');
  assert.deepEqual(s.settings, { 'line-length': 100, format: { 'quote-style': 'preserve', 'skip-magic-trailing-comma': true } });
  assert.match(s.because, /tool\.black/);
  const withRuff = { ...files, 'ruff.toml': 'line-length = 70\n' };
  assert.deepEqual(formatted(select(withRuff, 'a.py')).settings, { 'line-length': 70 });
});

test('go.mod declares gofmt and its toolchain line is reported; Cargo.toml edition and rustfmt.toml reach rustfmt', () => {
  const files = {
    'go.mod': 'module example.com/x\n\ngo 1.22\n\ntoolchain go1.23.4\n',
    'rs/Cargo.toml': '[workspace]\nmembers = ["a"]\n[workspace.package]\nedition = "2024"\n',
    'rs/a/Cargo.toml': '[package]\nname = "a"\nedition.workspace = true\n',
    'rs/b/Cargo.toml': '[package]\nname = "b"\nedition = "2018"\n',
    'rs/c/Cargo.toml': '[package]\nname = "c"\n',
    'rs/rustfmt.toml': 'max_width = 80\n',
    'rs/rust-toolchain.toml': '[toolchain]\npath = "/tmp/evil-toolchain"\n',
  };
  const go = formatted(select(files, 'cmd/main.go'));
  assert.equal(go.formatter, 'gofmt');
  assert.ok(go.ignored.some((i) => i.item === 'toolchain go1.23.4'));
  const a = formatted(select(files, 'rs/a/src/lib.rs'));
  assert.deepEqual(a.settings, { edition: '2024', configText: 'max_width = 80\n' });
  assert.ok(a.ignored.some((i) => i.file === 'rs/rust-toolchain.toml'));
  assert.equal(formatted(select(files, 'rs/b/src/lib.rs')).settings.edition, '2018');
  assert.equal(formatted(select(files, 'rs/c/src/lib.rs')).settings.edition, '2021');
});

test('.clang-format: per-language documents become a --style string', () => {
  const files = { '.clang-format': '---\nBasedOnStyle: Google\nIndentWidth: 4\n---\nLanguage: Java\nBasedOnStyle: Chromium\n...\n' };
  const c = formatted(select(files, 'src/a.c'));
  assert.deepEqual(JSON.parse(String(c.settings.style)), { BasedOnStyle: 'Google', IndentWidth: 4 });
  assert.deepEqual(JSON.parse(String(formatted(select(files, 'A.java')).settings.style)), { BasedOnStyle: 'Chromium' });
});

test('TOML is formatted when taplo or dprint declares it, or with mode always', () => {
  assert.equal(select({}, 'Cargo.toml').kind, 'skip');
  assert.equal(formatted(select({ '.taplo.toml': '' }, 'x.toml')).formatter, 'toml');
  assert.equal(formatted(select({ 'dprint.json': '{"plugins":["https://plugins.dprint.dev/toml-0.6.2.wasm"]}' }, 'x.toml')).formatter, 'toml');
  assert.equal(formatted(select({}, 'x.toml', { mode: 'always' })).formatter, 'toml');
});

test('mode always: language defaults; mode project: nothing without project config', () => {
  const expected: Record<string, string> = { 'a.ts': 'prettier', 'a.md': 'prettier', 'a.py': 'ruff', 'a.go': 'gofmt', 'a.rs': 'rustfmt', 'a.cc': 'clang-format', 'a.yaml': 'prettier', 'a.css': 'prettier' };
  for (const [path, name] of Object.entries(expected)) {
    assert.equal(formatted(select({}, path, { mode: 'always' })).formatter, name, path);
    const skipped = select({}, path);
    assert.equal(skipped.kind === 'skip' && skipped.reason, 'no formatter declared', path);
  }
  assert.deepEqual(select({}, 'LICENSE'), { kind: 'skip', reason: 'unknown extension' });
  // Prettier's Markdown language lists the file name README.
  assert.equal(formatted(select({}, 'README', { mode: 'always' })).formatter, 'prettier');
});

test('.prettierignore is honoured for Prettier', () => {
  const files = { '.prettierrc': '{}', '.prettierignore': '# generated\ndist/\n*.min.js\n/vendor.js\n!keep.min.js\n' };
  assert.equal(select(files, 'dist/a.js').kind, 'skip');
  assert.equal(select(files, 'src/x.min.js').kind, 'skip');
  assert.equal(select(files, 'src/keep.min.js').kind, 'format');
  assert.equal(select(files, 'vendor.js').kind, 'skip');
  assert.equal(select(files, 'src/vendor.js').kind, 'format');
});

test('paths that leave the root and the __proto__ key are not trusted', () => {
  const project = loadProjectConfig({ '../.prettierrc': '{"semi": false}', '/etc/.prettierrc': '{"tabWidth": 9}', '.prettierrc': '{"__proto__": {"polluted": true}, "semi": true}' }, { trust: 'untrusted' });
  assert.ok(project.ignored.some((i) => i.file === '../.prettierrc'));
  const s = formatted(selectFormatter(project, normaliseUserConfig({}), 'a.ts'));
  // '/etc/.prettierrc' normalises to 'etc/.prettierrc' (a project path), never to /etc.
  assert.deepEqual(s.settings, { semi: true });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('trusted mode: code configs and plugins are not reported as ignored (Prettier itself loads them)', () => {
  const project = loadProjectConfig({ 'prettier.config.mjs': null, 'pkg/.prettierrc': '{"plugins": ["x"]}' }, { trust: 'trusted' });
  assert.deepEqual(project.ignored, []);
  assert.equal(formatted(selectFormatter(project, normaliseUserConfig({}), 'a.ts')).because, 'prettier.config.mjs declares Prettier');
});

test('Prettier option values of the wrong type go to Prettier as written (its own check rejects them), with their positions', () => {
  const s = formatted(select({ '.prettierrc': '{"semi": "no", "tabWidth": "4", "printWidth": 100, "trailingComma": false}' }, 'a.ts'));
  assert.deepEqual(s.settings, { semi: 'no', tabWidth: '4', printWidth: 100, trailingComma: false });
  assert.deepEqual(s.settingOrigins?.tabWidth, { file: '.prettierrc', line: 1, column: 16 });
});

test('custom YAML tags make a YAML config unreadable (never a silently stringified value): formatbox refuses', () => {
  const s = select({ '.prettierrc.yaml': 'semi: !!js/function "function () {}"\n' }, 'a.ts');
  assert.equal(s.kind, 'invalid-config');
  assert.match(s.kind === 'invalid-config' ? s.error.message : '', /custom YAML tags/);
});

test('Biome: extended files count against the project config budget (text, and the globs in them)', () => {
  const files = { 'biome.json': JSON.stringify({ extends: ['./big.json'] }), 'big.json': JSON.stringify({ formatter: { indentStyle: 'space' }, files: { includes: ['**', ...Array.from({ length: 50 }, (_, i) => `!gen${i}/**`)] } }) };
  assert.equal(loadProjectConfig(files, { trust: 'untrusted' }).overBudget, undefined);
  assert.match(loadProjectConfig(files, { trust: 'untrusted', budget: { maxConfigChars: files['big.json'].length } }).overBudget ?? '', /over the project config budget/);
  assert.match(loadProjectConfig(files, { trust: 'untrusted', budget: { maxPatterns: 20 } }).overBudget ?? '', /over the project config budget/);
});
