// The hostile-repository cases. Each case is materialised as a real directory:
//   <base>/root/      the project root handed to createRuntime
//   <base>/MARKER     written by any payload that runs (it must stay absent)
//   <base>/secret.txt a secret outside the root (it must never show up in any output)
// Payload text may use {{MARKER}}, {{SECRET}}, {{BASE}}, {{ROOT}} (replaced by JSON string literals
// for MARKER/SECRET, plain paths for BASE/ROOT).
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { Status, UserConfig } from '../../src/core/types.js';

export type CaseFile = string | { symlink: string } | { fifo: true } | { repeat: string; times: number } | { executable: string };

export interface HostileCase {
  name: string;
  /** What the issue asks to cover, for the summary table. */
  covers: string;
  /** Paths relative to <base>; the project is <base>/root. */
  files: Record<string, CaseFile>;
  /** Project-relative file the agent writes. */
  target: string;
  /** What the agent writes (W). */
  content: string | { repeat: string; times: number; prefix?: string; suffix?: string };
  expect: {
    status: Status[];
    /** F when the status is formatted/unchanged. Omitted: checked by `check` or not at all (skipped/failed). */
    content?: string;
    /** Every pattern must match some `file: item (reason)` line of doctor().ignored or the receipt's ignored. */
    ignored?: RegExp[];
    /** Must match the receipt's reason (for skipped/failed/refused). */
    reason?: RegExp;
    /** Alternative outcome accepted (e.g. no sandbox on this machine): statuses and reason. */
    orElse?: { status: Status[]; reason: RegExp };
  };
  /** A payload that Prettier's own Node API would run (positive control: the marker appears). */
  prettierControl?: boolean;
  /** User config for the runtime (trusted, from the embedding program). */
  config?: UserConfig;
}

const CJS = `require('node:fs').writeFileSync({{MARKER}}, 'ran ' + __filename);\nmodule.exports = { semi: false, tabWidth: 8 };\n`;
const ESM = `import { writeFileSync } from 'node:fs';\nwriteFileSync({{MARKER}}, 'ran ' + import.meta.url);\nexport default { semi: false, tabWidth: 8 };\n`;
const TS = `import { writeFileSync } from 'node:fs';\nwriteFileSync({{MARKER}}, 'ran ' + import.meta.url);\nconst config: Record<string, unknown> = { semi: false, tabWidth: 8 };\nexport default config;\n`;
/** A Prettier plugin that also reads the secret (and would leak it into the marker). */
const PLUGIN_ESM = `import { readFileSync, writeFileSync } from 'node:fs';\nwriteFileSync({{MARKER}}, readFileSync({{SECRET}}, 'utf8'));\nexport const languages = [];\nexport const parsers = {};\n`;
const PLUGIN_CJS = `const fs = require('node:fs');\nfs.writeFileSync({{MARKER}}, fs.readFileSync({{SECRET}}, 'utf8'));\nmodule.exports = { languages: [], parsers: {} };\n`;
const FAKE_BIN = `#!/bin/sh\necho ran > {{BASE}}/MARKER\ncat {{BASE}}/secret.txt\n`;

const TS_IN = 'function f(){return {a:1,b:[1,2]}}\n';
/** Prettier defaults: the JS config above (semi: false, tabWidth: 8) must not apply. */
const TS_DEFAULT = 'function f() {\n  return { a: 1, b: [1, 2] };\n}\n';
const TS_NO_SEMI = 'function f() {\n  return { a: 1, b: [1, 2] }\n}\n';
/** Biome defaults: tab indentation. */
const TS_BIOME = 'function f() {\n\treturn { a: 1, b: [1, 2] };\n}\n';
const TS_BIOME_SPACES = 'function f() {\n  return { a: 1, b: [1, 2] };\n}\n';

const CODE_CONFIG_NAMES = ['prettier.config.js', 'prettier.config.cjs', 'prettier.config.mjs', 'prettier.config.ts', 'prettier.config.cts', 'prettier.config.mts', '.prettierrc.js', '.prettierrc.cjs', '.prettierrc.mjs', '.prettierrc.ts', '.prettierrc.cts', '.prettierrc.mts'];

function codeConfigCase(name: string): HostileCase {
  const body = name.endsWith('.cjs') || name.endsWith('.cts') ? CJS.replace('__filename', "'config'") : name.endsWith('ts') ? TS : ESM;
  // `.js` is ESM here (package.json type: module), `.cjs`/`.cts` CommonJS.
  return {
    name: `prettier code config ${name}`,
    covers: 'every JS/TS config file name of Prettier',
    files: { [`root/${name}`]: body, 'root/package.json': '{ "name": "victim", "type": "module" }' },
    target: 'src/a.ts',
    content: TS_IN,
    // Refused, never formatted with Prettier's defaults: the project's Prettier would apply the config.
    expect: { status: ['refused'], reason: new RegExp(`^${name.replace(/\./g, '\\.')}: this config is code; untrusted mode never runs repository code`), ignored: [new RegExp(`${name.replace(/\./g, '\\.')}.*never loaded`)] },
    prettierControl: true,
  };
}

function pluginCase(form: string, plugin: string, extraFiles: Record<string, CaseFile> = {}, control = true): HostileCase {
  return {
    name: `prettier plugin ${form}`,
    covers: 'each plugin form and every URL scheme',
    files: { 'root/.prettierrc.json': JSON.stringify({ semi: false, plugins: [plugin] }), ...extraFiles },
    target: 'src/a.ts',
    content: TS_IN,
    // Never loaded; formatting without it would not give the project's bytes, so the file is refused.
    expect: { status: ['refused'], reason: /^\.prettierrc\.json: this config loads the Prettier plugin .+,? which formatbox does not run; untrusted mode never runs repository code/, ignored: [/plugins\[0\].*never loaded/] },
    prettierControl: control,
  };
}

export const CASES: HostileCase[] = [
  ...CODE_CONFIG_NAMES.map(codeConfigCase),
  {
    name: 'package.json prettier string (relative module)',
    covers: 'package.json string configs',
    files: { 'root/package.json': '{ "name": "victim", "prettier": "./shared-config.cjs" }', 'root/shared-config.cjs': CJS },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['refused'], reason: /names a module \(code\): require resolves it to .*; untrusted mode never runs repository code/, ignored: [/"prettier": "\.\/shared-config\.cjs".*module/] },
    prettierControl: true,
  },
  {
    name: 'package.json prettier string (package in the repo node_modules)',
    covers: 'package.json string configs',
    files: {
      'root/package.json': '{ "name": "victim", "prettier": "@evil/prettier-config" }',
      'root/node_modules/@evil/prettier-config/package.json': '{ "name": "@evil/prettier-config", "main": "index.js" }',
      'root/node_modules/@evil/prettier-config/index.js': CJS,
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['refused'], reason: /names a module \(code\): require resolves it to .*; untrusted mode never runs repository code/, ignored: [/@evil\/prettier-config.*module/] },
    prettierControl: true,
  },
  {
    name: 'package.yaml prettier string',
    covers: 'package.json string configs',
    files: { 'root/package.yaml': 'name: victim\nprettier: ./shared-config.cjs\n', 'root/shared-config.cjs': CJS },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['refused'], reason: /names a module \(code\): require resolves it to .*; untrusted mode never runs repository code/, ignored: [/shared-config\.cjs.*module/] },
    prettierControl: true,
  },
  pluginCase('relative path', './plugin.mjs', { 'root/plugin.mjs': PLUGIN_ESM }),
  pluginCase('bare package name', 'prettier-plugin-evil', {
    'root/node_modules/prettier-plugin-evil/package.json': '{ "name": "prettier-plugin-evil", "main": "index.js" }',
    'root/node_modules/prettier-plugin-evil/index.js': PLUGIN_CJS,
  }),
  pluginCase('absolute path', '{{BASE}}/outside-plugin.cjs', { 'outside-plugin.cjs': PLUGIN_CJS }),
  pluginCase('file: URL', 'file://{{BASE}}/outside-plugin.mjs', { 'outside-plugin.mjs': PLUGIN_ESM }),
  pluginCase('data: URL', `data:text/javascript,import("node:fs").then((fs)=>fs.writeFileSync(${'{{MARKER_URI}}'},"ran"));export const parsers={};`),
  pluginCase('http: URL', 'http://127.0.0.1:9/plugin.mjs', {}, false),
  pluginCase('https: URL', 'https://plugins.invalid/plugin.mjs', {}, false),
  pluginCase('node: URL', 'node:child_process', {}, false),
  pluginCase('blob: URL', 'blob:nodedata:00000000-0000-0000-0000-000000000000', {}, false),
  {
    name: 'prettier plugins inside overrides, and a parser only that plugin provides',
    covers: 'overrides',
    files: {
      'root/.prettierrc.json': JSON.stringify({ overrides: [{ files: ['*.ts'], options: { semi: false, plugins: ['./plugin.mjs'] } }, { files: 'src/**', options: { parser: 'evil-parser' } }] }),
      'root/plugin.mjs': PLUGIN_ESM,
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['refused'], reason: /^\.prettierrc\.json: overrides\[0\] of this config loads the Prettier plugin \.\/plugin\.mjs, which formatbox does not run/, ignored: [/overrides\[0\]\.options\.plugins\[0\]/] },
    prettierControl: true,
  },
  {
    name: 'prettier parser given as a module path (Prettier 2 loaded it)',
    covers: 'overrides',
    files: { 'root/.prettierrc.json': JSON.stringify({ overrides: [{ files: '*.ts', options: { parser: './evil-parser.cjs' } }] }), 'root/evil-parser.cjs': CJS },
    target: 'src/a.ts',
    content: TS_IN,
    // Prettier 3 loads no parser from a path: its CLI stops with "Couldn't resolve parser", and so does formatbox (never defaults).
    expect: { status: ['failed'], reason: /invalid project config: \.prettierrc\.json:.*Couldn't resolve parser "\.\/evil-parser\.cjs"/ },
  },
  {
    name: 'overrides glob bomb in .prettierrc',
    covers: 'overrides',
    files: { 'root/.prettierrc': JSON.stringify({ semi: false, overrides: [{ files: `${'{a,b}'.repeat(30)}*.ts`, options: { plugins: ['./plugin.mjs'] } }] }), 'root/plugin.mjs': PLUGIN_ESM },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: TS_NO_SEMI, ignored: [/overrides\[0\]\.files.*more than 256/] },
  },
  {
    name: 'YAML custom tags (!!js/function, !!python/object) in .prettierrc.yml',
    covers: 'YAML alias bombs',
    files: { 'root/.prettierrc.yml': 'semi: !!js/function "function () { require(\'fs\').writeFileSync(\'x\', \'y\') }"\ntabWidth: !!python/object:os.system ["touch MARKER"]\n' },
    target: 'src/a.ts',
    content: TS_IN,
    // A config formatbox cannot read as Prettier would is refused, never replaced by defaults.
    expect: { status: ['failed'], reason: /invalid project config: \.prettierrc\.yml:1:\d+: .*custom YAML tags/ },
  },
  {
    name: '__proto__ keys in package.json "prettier" (prototype pollution)',
    covers: 'package.json string configs',
    files: { 'root/package.json': '{ "name": "victim", "prettier": { "__proto__": { "semi": false, "plugins": ["./plugin.mjs"] }, "constructor": { "prototype": { "semi": false } } } }', 'root/plugin.mjs': PLUGIN_ESM },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: TS_DEFAULT },
  },
  {
    name: 'configs in parent directories (code config, .editorconfig, .prettierrc) above the root',
    covers: 'configs in parent directories',
    files: {
      'prettier.config.cjs': CJS,
      '.prettierrc.json': JSON.stringify({ plugins: ['./outside-plugin.mjs'], semi: false }),
      'outside-plugin.mjs': PLUGIN_ESM,
      '.editorconfig': 'root = true\n[*]\nindent_style = tab\n',
      'root/src/keep.txt': 'the project declares nothing itself: mode always uses Prettier defaults\n',
    },
    target: 'src/a.ts',
    content: TS_IN,
    config: { mode: 'always' },
    expect: { status: ['formatted'], content: TS_DEFAULT },
  },
  {
    name: 'symlinked .prettierrc pointing outside the root (at a config with a plugin)',
    covers: 'symlinked configs pointing outside the root',
    files: { 'outside.json': JSON.stringify({ semi: false, plugins: ['./outside-plugin.mjs'] }), 'outside-plugin.mjs': PLUGIN_ESM, 'root/.prettierrc': { symlink: '../outside.json' } },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /invalid project config: \.prettierrc: not read/, ignored: [/\.prettierrc.*symlink that leaves the project root/] },
  },
  {
    name: 'symlinked biome.json pointing at a secret',
    covers: 'symlinked configs pointing at secrets',
    files: { 'root/biome.json': { symlink: '../secret.txt' } },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /invalid project config: biome\.json: not read/, ignored: [/biome\.json.*symlink that leaves the project root/] },
  },
  {
    name: 'symlinked ruff.toml pointing at /etc/passwd, and a symlinked config directory',
    covers: 'symlinked configs pointing at secrets',
    files: { 'root/ruff.toml': { symlink: '/etc/passwd' }, 'outside-dir/.prettierrc.cjs': CJS, 'outside-dir/.ruff.toml': 'line-length = 20\n', 'root/linked': { symlink: '../outside-dir' }, 'root/pyproject.toml': '[tool.ruff]\nline-length = 100\n' },
    target: 'a.py',
    content: "x = {'a':1,\"b\":[1,2]}\n",
    // Ruff reads ruff.toml before pyproject.toml: the unreadable link is the config, so formatbox refuses.
    expect: { status: ['failed'], reason: /invalid project config: ruff\.toml/, ignored: [/ruff\.toml.*symlink that leaves the project root/] },
  },
  {
    name: 'Biome extends a path outside the root',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: { 'evil-biome.json': '{ "formatter": { "indentStyle": "space", "indentWidth": 8 } }', 'root/biome.json': '{ "extends": ["../evil-biome.json"], "formatter": { "indentStyle": "space" } }' },
    target: 'src/a.ts',
    content: TS_IN,
    // Never read: refused (Biome's own CLI would read the file above the root).
    expect: { status: ['failed'], reason: /invalid project config: biome\.json: extends "\.\.\/evil-biome\.json" is not followed: a path outside the project root/ },
  },
  {
    name: 'Biome extends a file inside the root (merged as Biome does)',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: { 'root/shared/base.json': '{ "formatter": { "indentStyle": "space", "indentWidth": 2 } }', 'root/biome.json': '{ "extends": ["./shared/base.json"] }' },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: TS_BIOME_SPACES },
  },
  {
    name: 'Biome extends a package name in a project without a package.json (Biome would look above the root)',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: {
      'root/node_modules/evil-biome/package.json': '{ "name": "evil-biome", "exports": { ".": "./biome.json" } }',
      'root/node_modules/evil-biome/biome.json': '{ "formatter": { "indentWidth": 8 } }',
      'root/biome.json': '{ "extends": ["evil-biome"] }',
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /biome\.json: extends "evil-biome" is not followed: no package\.json in the project root/ },
  },
  {
    name: 'Biome extends a package whose node_modules entry is a symlink out of the root',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: {
      'evil-pkg/package.json': '{ "name": "evil-biome", "exports": { ".": "./biome.json" } }',
      'evil-pkg/biome.json': '{ "formatter": { "indentWidth": 8 } }',
      'root/package.json': '{ "name": "app" }',
      'root/node_modules/evil-biome': { symlink: '../../evil-pkg' },
      'root/biome.json': '{ "extends": ["evil-biome"] }',
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /biome\.json: extends "evil-biome" is not followed: node_modules\/evil-biome\/package\.json was not read/ },
  },
  {
    name: 'Prettier string config naming a package whose exports leave it',
    covers: 'package.json string configs',
    files: {
      'root/package.json': '{ "name": "app", "prettier": "evil-prettier" }',
      'root/node_modules/evil-prettier/package.json': '{ "name": "evil-prettier", "exports": "./../../../../etc/passwd.json" }',
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['refused', 'failed'], reason: /"prettier": "evil-prettier" names a shared config formatbox does not read: .*not a plain path inside the package/ },
  },
  {
    name: 'Biome extends a symlink inside the root that points at a file outside it',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: { 'evil-biome.json': '{ "formatter": { "indentWidth": 8 } }', 'root/shared.json': { symlink: '../evil-biome.json' }, 'root/biome.json': '{ "extends": ["./shared.json"] }' },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /biome\.json: extends "\.\/shared\.json" is not followed: shared\.json was not read/, ignored: [/shared\.json.*symlink that leaves the project root/] },
  },
  {
    name: 'Biome extends a package in the repo node_modules',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: {
      'root/node_modules/evil-biome/package.json': '{ "name": "evil-biome", "exports": { "./biome": "./biome.json" } }',
      'root/node_modules/evil-biome/biome.json': '{ "formatter": { "indentWidth": 8 } }',
      'root/biome.jsonc': '// shared config\n{ "extends": "evil-biome/biome", "formatter": { "indentStyle": "space" } }',
    },
    target: 'src/a.ts',
    content: TS_IN,
    // Biome's own loader rejects a string `extends` naming a package: refused with Biome's message.
    expect: { status: ['failed'], reason: /invalid project config: biome\.jsonc:2:\d+: The `extends` field must be either/ },
  },
  {
    name: 'Biome plugins (GritQL files inside and outside the root)',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: { 'root/biome.json': '{ "plugins": ["./rules/evil.grit", "../../outside.grit", "{{BASE}}/missing.grit"] }', 'root/rules/evil.grit': '`console.log($x)` where { register_diagnostic(span=$x, message="x") }\n' },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: TS_BIOME, ignored: [/plugins\[0\]/, /plugins\[1\]/, /plugins\[2\]/] },
  },
  {
    name: 'Biome files.maxSize raised to 1 GiB, with a 1.5 MB file',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: { 'root/biome.json': '{ "files": { "maxSize": 1073741824 } }' },
    target: 'big.js',
    content: { repeat: 'const a = 1;\n', times: 120_000 },
    expect: { status: ['skipped', 'failed', 'unchanged'], ignored: [/files\.maxSize.*clamped/] },
  },
  {
    name: 'Biome files.includes excludes the edited file',
    covers: 'Biome extends, plugins, maxSize and includes',
    files: { 'root/biome.json': '{ "files": { "includes": ["src/**", "!src/generated"] } }' },
    target: 'src/generated/a.ts',
    content: TS_IN,
    expect: { status: ['skipped'], reason: /ignored by project config|files\.includes/ },
  },
  {
    name: 'Ruff extend with a relative path outside the root',
    covers: 'Ruff extend with paths and $HOME expansion',
    files: { 'evil-ruff.toml': 'line-length = 20\n[format]\nquote-style = "single"\n', 'root/ruff.toml': 'extend = "../evil-ruff.toml"\nselect = ["E"]\n[format]\nindent-style = "space"\n' },
    target: 'pkg/a.py',
    content: "x = {'a':1,\"b\":[1,2]}\n",
    expect: { status: ['formatted'], content: 'x = {"a": 1, "b": [1, 2]}\n', ignored: [/extend: \.\.\/evil-ruff\.toml/] },
  },
  {
    name: 'Ruff extend with $HOME expansion (pyproject.toml)',
    covers: 'Ruff extend with paths and $HOME expansion',
    files: { 'root/pyproject.toml': '[project]\nname = "victim"\n\n[tool.ruff]\nextend = "$HOME/.config/ruff/evil.toml"\n\n[tool.ruff.format]\nquote-style = "single"\n' },
    target: 'a.py',
    content: "x = {'a':1,\"b\":[1,2]}\n",
    expect: { status: ['formatted'], content: "x = {'a': 1, 'b': [1, 2]}\n", ignored: [/extend: \$HOME/] },
  },
  {
    name: 'rust-toolchain.toml path = a fake toolchain whose rustfmt writes the marker',
    covers: 'rust-toolchain path override',
    files: {
      'root/Cargo.toml': '[package]\nname = "victim"\nversion = "0.1.0"\nedition = "2021"\n',
      'root/rust-toolchain.toml': '[toolchain]\npath = "{{BASE}}/fake-toolchain"\n',
      'fake-toolchain/bin/rustfmt': { executable: FAKE_BIN },
      'fake-toolchain/bin/cargo': { executable: FAKE_BIN },
      'fake-toolchain/bin/rustc': { executable: FAKE_BIN },
    },
    target: 'src/main.rs',
    content: 'fn main(){let x=1;println!("{}",x);}\n',
    expect: {
      status: ['formatted'],
      content: 'fn main() {\n    let x = 1;\n    println!("{}", x);\n}\n',
      ignored: [/rust-toolchain\.toml.*never redirect/],
      orElse: { status: ['refused', 'skipped', 'failed'], reason: /sandbox|not available|rustfmt/ },
    },
  },
  {
    name: 'legacy rust-toolchain file naming a toolchain to download',
    covers: 'rust-toolchain path override',
    files: { 'root/Cargo.toml': '[package]\nname = "victim"\nversion = "0.1.0"\nedition = "2018"\n', 'root/rust-toolchain': 'nightly-2099-01-01\n' },
    target: 'src/lib.rs',
    content: 'pub fn f(){}\n',
    expect: { status: ['formatted'], content: 'pub fn f() {}\n', ignored: [/rust-toolchain.*never redirect/], orElse: { status: ['refused', 'skipped', 'failed'], reason: /sandbox|not available|rustfmt/ } },
  },
  {
    name: 'go.mod toolchain line naming a toolchain to download',
    covers: 'go.mod toolchain',
    files: { 'root/go.mod': 'module example.com/victim\n\ngo 1.21\n\ntoolchain go1.99.0\n' },
    target: 'main.go',
    content: 'package main\n\nfunc main() {\nx := 1\n_ = x\n}\n',
    expect: { status: ['formatted'], content: 'package main\n\nfunc main() {\n\tx := 1\n\t_ = x\n}\n', ignored: [/go\.mod.*toolchain go1\.99\.0/] },
  },
  {
    name: 'YAML alias bomb in .prettierrc.yaml',
    covers: 'YAML alias bombs',
    files: { 'root/.prettierrc.yaml': yamlBomb() },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /invalid project config: \.prettierrc\.yaml.*alias/i },
  },
  {
    name: 'YAML alias bomb in .clang-format',
    covers: 'YAML alias bombs',
    files: { 'root/.clang-format': yamlBomb() },
    target: 'a.c',
    content: 'int main(){return 0;}\n',
    expect: { status: ['formatted'], content: 'int main() { return 0; }\n', ignored: [/\.clang-format/] },
  },
  {
    name: '.editorconfig brace bomb',
    covers: 'editorconfig brace bombs',
    files: { 'root/.editorconfig': `root = true\n[${'{a,b}'.repeat(40)}]\nindent_size = 8\n[{1..999999999}]\nindent_size = 8\n[*]\nindent_size = 4\nindent_style = space\n`, 'root/.prettierrc.json': '{}' },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: 'function f() {\n    return { a: 1, b: [1, 2] };\n}\n', ignored: [/\.editorconfig.*more than 256/, /\.editorconfig.*range/] },
  },
  {
    name: '.gitignore pattern and brace bomb (Biome vcs.useIgnoreFile)',
    covers: 'ignore-file glob bombs',
    files: {
      'root/biome.json': JSON.stringify({ vcs: { enabled: true, clientKind: 'git', useIgnoreFile: true } }),
      'root/.gitignore': `${'{a,b}'.repeat(40)}\n${`{a,b}{c,d}{e,f}{g,h}${'*x'.repeat(20)}\n`.repeat(5000)}`,
      'root/src/.gitignore': `${'a/*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x*x\n'.repeat(5000)}`,
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: TS_BIOME, ignored: [/\.gitignore.*more than 256/, /\.gitignore.*glob tokens/, /src\/\.gitignore.*glob tokens/] },
  },
  {
    name: 'deeply nested JSON (100k levels) in biome.json',
    covers: 'deeply nested JSON',
    files: { 'root/biome.json': { repeat: '[', times: 100_000 } },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /invalid project config: biome\.json: nested deeper than 64 levels/ },
  },
  {
    name: 'deeply nested TOML and JSON5 configs',
    covers: 'deeply nested JSON',
    files: { 'root/ruff.toml': `x = ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`, 'root/.prettierrc.json5': `${'{a:'.repeat(20_000)}1${'}'.repeat(20_000)}` },
    target: 'a.py',
    content: "x = {'a':1}\n",
    expect: { status: ['failed'], reason: /invalid project config: ruff\.toml: nested deeper than 64 levels/ },
  },
  {
    name: 'a 50 MB file',
    covers: 'a 50 MB file',
    files: { 'root/.prettierrc.json': '{}' },
    target: 'huge.ts',
    content: { repeat: 'const value = [1, 2, 3];\n', times: 2_000_000 },
    expect: { status: ['skipped'], reason: /too large/ },
  },
  {
    name: 'a 50 MB config file',
    covers: 'a 50 MB file',
    files: { 'root/.prettierrc': { repeat: '# padding padding padding padding padding padding padding\n', times: 900_000 } },
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['failed'], reason: /invalid project config: \.prettierrc: not read/, ignored: [/\.prettierrc.*larger than/] },
  },
  {
    name: '100k-deep nesting in the edited file',
    covers: '100k-deep nesting',
    files: { 'root/.prettierrc.json': '{}' },
    target: 'deep.json',
    content: { repeat: '[', times: 100_000, suffix: ']'.repeat(100_000) },
    expect: { status: ['failed', 'skipped', 'timeout'] },
  },
  {
    name: 'a FIFO named .prettierrc (reading it would hang)',
    covers: 'non-regular config files',
    files: { 'root/.prettierrc': { fifo: true }, 'root/.prettierrc.json': '{"semi": false}' },
    target: 'src/a.ts',
    content: TS_IN,
    // .prettierrc comes before .prettierrc.json in Prettier's order; Prettier would hang reading it. formatbox refuses.
    expect: { status: ['failed'], reason: /invalid project config: \.prettierrc: not read/, ignored: [/\.prettierrc.*not a regular file|could not be opened/] },
  },
];

function yamlBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  }
  return `${lines.join('\n')}\nsemi: false\n`;
}

export function textOf(content: HostileCase['content']): string {
  if (typeof content === 'string') return content;
  return (content.prefix ?? '') + content.repeat.repeat(content.times) + (content.suffix ?? '');
}

/** Writes the case under `base` and returns its root. */
export function materialise(testCase: HostileCase, base: string): string {
  const fill = (text: string): string =>
    text
      .replaceAll('{{MARKER_URI}}', JSON.stringify(join(base, 'MARKER')).replaceAll('"', "'"))
      .replaceAll('{{MARKER}}', JSON.stringify(join(base, 'MARKER')))
      .replaceAll('{{SECRET}}', JSON.stringify(join(base, 'secret.txt')))
      .replaceAll('{{BASE}}', base)
      .replaceAll('{{ROOT}}', join(base, 'root'));
  mkdirSync(join(base, 'root'), { recursive: true });
  writeFileSync(join(base, 'secret.txt'), `FORMATBOX-SECRET-${base.slice(-12)}\n`);
  for (const [path, spec] of Object.entries(testCase.files)) {
    const full = join(base, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof spec === 'string') writeFileSync(full, fill(spec));
    else if ('symlink' in spec) symlinkSync(spec.symlink, full);
    else if ('fifo' in spec) execFileSync('mkfifo', [full]);
    else if ('executable' in spec) {
      writeFileSync(full, fill(spec.executable));
      chmodSync(full, 0o755);
    } else writeFileSync(full, spec.repeat.repeat(spec.times));
  }
  return join(base, 'root');
}
