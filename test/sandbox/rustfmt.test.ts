/**
 * The real rustfmt through the real bubblewrap sandbox, with settings chosen by formatbox's own
 * config module from Cargo.toml and rustfmt.toml. The reference is rustfmt run directly (outside the
 * sandbox; only this test does that), on the same input, in the project directory, finding
 * rustfmt.toml by itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';
import { createSubprocessFormatters } from '../../src/node/subprocess.js';
import { createEngine } from '../../src/engine/engine.js';
import type { FormatterAdapter, ProjectFiles } from '../../src/core/types.js';
import { missing, rustfmt, sandbox, tempProject } from './helpers.js';
import { rustCrates, type Crate } from './crates.js';

const crates = rustCrates();

/** The crates, or why they are missing (a skip outside CI; CI installs them). */
function missingCrates(): string | undefined {
  if (!('missing' in crates)) return undefined;
  if (process.env.CI) throw new Error(`CI must run the rustfmt tests: ${crates.missing}`);
  console.log(`# skipped: ${crates.missing}`);
  return crates.missing;
}

function crate(name: string): Crate {
  const found = 'missing' in crates ? undefined : crates.find((c) => c.name === name);
  assert.ok(found, name);
  return found;
}

function realRustfmt(): string {
  if ('missing' in rustfmt) throw new Error(rustfmt.missing);
  return rustfmt.binary;
}

/** rustfmt run directly, unsandboxed: the reference output (or the error). */
function direct(text: string, cwd: string, edition: string): { ok: boolean; out: string } {
  const result = spawnSync(realRustfmt(), ['--edition', edition, '--emit', 'stdout'], { input: text, cwd, encoding: 'utf8' });
  return { ok: result.status === 0, out: result.status === 0 ? result.stdout : result.stderr };
}

function adapterFor(root: string): FormatterAdapter {
  const adapter = createSubprocessFormatters({ sandbox, root }).adapters.find((a) => a.name === 'rustfmt');
  assert.ok(adapter);
  return adapter;
}

function configFiles(root: string): ProjectFiles {
  const files: ProjectFiles = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/^(Cargo\.toml|\.?rustfmt\.toml|rust-toolchain(\.toml)?)$/.test(entry.name)) files[relative(root, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return files;
}

/** Settings exactly as the engine would pass them: formatbox's config module on the project's files. */
function settingsFor(root: string, path: string): Record<string, unknown> {
  const selection = selectFormatter(loadProjectConfig(configFiles(root), { trust: 'untrusted' }), normaliseUserConfig(undefined), path);
  assert.equal(selection.kind, 'format');
  assert.equal(selection.kind === 'format' && selection.formatter, 'rustfmt');
  return selection.kind === 'format' ? selection.settings : {};
}

/** The edition a crate's Cargo.toml declares (Debian's crates here are 2018). */
function editionOf(root: string): string {
  return /^edition\s*=\s*"(\d+)"/m.exec(readFileSync(join(root, 'Cargo.toml'), 'utf8'))?.[1] ?? '2015';
}

/** The same code with all indentation removed: rustfmt has real work to do. */
function deindent(text: string): string {
  return text.replace(/^[ \t]+/gm, '');
}

test('rustfmt through bwrap equals rustfmt run directly, on real crates (as written and de-indented)', { skip: missing({ rustfmt: true }) ?? missingCrates() }, async () => {
  let cases = 0;
  let changed = 0;
  for (const project of ['anyhow', 'memchr']) {
    const { root, files } = crate(project);
    const adapter = adapterFor(root);
    const edition = editionOf(root);
    for (const file of files) {
      const settings = settingsFor(root, file);
      assert.equal(settings.edition, edition, 'edition from Cargo.toml');
      const original = readFileSync(join(root, file), 'utf8');
      for (const input of [original, deindent(original)]) {
        const result = await adapter.format({ path: file, language: 'rust', text: input, settings });
        const reference = direct(input, root, edition);
        assert.ok(reference.ok, reference.out);
        assert.equal(result.kind, 'ok', `${project}/${file}: ${JSON.stringify(result).slice(0, 300)}`);
        assert.equal(result.kind === 'ok' && result.text, reference.out, `${project}/${file}`);
        cases++;
        if (reference.out !== input) changed++;
      }
    }
  }
  assert.ok(cases >= 30, `${cases} cases`);
  assert.ok(changed >= 15, `only ${changed} inputs needed formatting`);
});

test('rustfmt.toml is honoured (memchr: max_width = 79, use_small_heuristics = "max")', { skip: missing({ rustfmt: true }) ?? missingCrates() }, async () => {
  const { root } = crate('memchr');
  const adapter = adapterFor(root);
  const edition = editionOf(root);
  const file = 'src/memmem/twoway.rs';
  const original = readFileSync(join(root, file), 'utf8');
  const settings = settingsFor(root, file);
  assert.match(String(settings.configText), /max_width = 79/);
  const withConfig = await adapter.format({ path: file, language: 'rust', text: original, settings });
  // rustfmt run directly in the project finds memchr's rustfmt.toml itself.
  assert.deepEqual(withConfig, { kind: 'ok', text: direct(original, root, edition).out });
  const { configText: _dropped, ...withoutConfigText } = settings;
  const withoutConfig = await adapter.format({ path: file, language: 'rust', text: original, settings: withoutConfigText });
  // Without it (and outside the project, where rustfmt finds none) the default width reflows the file.
  assert.deepEqual(withoutConfig, { kind: 'ok', text: direct(original, '/', edition).out });
  assert.notEqual(withoutConfig.kind === 'ok' && withoutConfig.text, withConfig.kind === 'ok' && withConfig.text, 'the config changes the output');
  assert.ok(Math.max(...(withConfig.kind === 'ok' ? withConfig.text : '').split('\n').map((l) => l.length)) <= 79);
});

/** Does this rustfmt know the 2024 edition? (Debian's older rustfmt does not.) */
function knows2024(): boolean {
  return spawnSync(realRustfmt(), ['--edition', '2024', '--emit', 'stdout'], { input: 'fn a() {}\n', cwd: '/' }).status === 0;
}

test('the edition comes from Cargo.toml and takes effect', { skip: missing({ rustfmt: true }) }, async (t) => {
  const code = 'use foo::{x10, x9, X1};\nfn main() { let async = 1; }\n';
  const projects: ReturnType<typeof tempProject>[] = [];
  const format = async (edition: string, text: string) => {
    const project = tempProject({ 'Cargo.toml': `[package]\nname = "e"\nversion = "0.1.0"\nedition = "${edition}"\n`, 'src/main.rs': text });
    projects.push(project);
    const settings = settingsFor(project.root, 'src/main.rs');
    assert.equal(settings.edition, edition);
    const result = await adapterFor(project.root).format({ path: 'src/main.rs', language: 'rust', text, settings });
    const reference = direct(text, project.root, edition);
    if (reference.ok) assert.deepEqual(result, { kind: 'ok', text: reference.out }, `edition ${edition}`);
    return result;
  };
  try {
    // 2015: `async` is an identifier.
    assert.deepEqual(await format('2015', code), { kind: 'ok', text: 'use foo::{x10, x9, X1};\nfn main() {\n    let async = 1;\n}\n' });
    // 2018: `async` is a keyword: rustfmt refuses, and the message carries the location.
    const failed = await format('2018', code);
    assert.equal(failed.kind, 'error');
    assert.equal(failed.kind === 'error' && failed.exitCode, 1);
    assert.match(failed.kind === 'error' ? failed.message : '', /^error: expected identifier, found keyword `async` at 2:17$/);
    // 2024 (style edition 2024, where this rustfmt has it) sorts imports by version; format()
    // already checked that the sandboxed output equals rustfmt's own for that edition.
    const imports = 'use foo::{x10, x9, X1};\n';
    if (!knows2024() || direct(imports, '/', '2024').out === direct(imports, '/', '2021').out) {
      t.diagnostic('this rustfmt has no 2024 style edition; the import-sorting check is skipped');
      return;
    }
    assert.deepEqual(await format('2024', imports), { kind: 'ok', text: 'use foo::{X1, x9, x10};\n' });
  } finally {
    for (const project of projects) project.cleanup();
  }
});

test("a repo's rust-toolchain file cannot redirect which rustfmt runs", { skip: missing({ rustfmt: true }) }, async () => {
  const project = tempProject({
    'Cargo.toml': '[package]\nname = "t"\nversion = "0.1.0"\nedition = "2021"\n',
    'rust-toolchain.toml': '[toolchain]\npath = "evil"\n',
    'evil/bin/rustfmt': '#!/bin/sh\necho pwned > "$(dirname "$0")/../../pwned"\necho "fn pwned() {}"\n',
    'src/lib.rs': 'fn a(){}\n',
  });
  try {
    spawnSync('chmod', ['+x', join(project.root, 'evil/bin/rustfmt')]);
    const settings = settingsFor(project.root, 'src/lib.rs');
    const result = await adapterFor(project.root).format({ path: 'src/lib.rs', language: 'rust', text: 'fn a(){}\n', settings });
    assert.deepEqual(result, { kind: 'ok', text: 'fn a() {}\n' });
    assert.equal(existsSync(join(project.root, 'pwned')), false);
    assert.doesNotMatch(realRustfmt(), /\.cargo\/bin/);
    const ignored = loadProjectConfig(configFiles(project.root), { trust: 'untrusted' }).ignored;
    assert.ok(ignored.some((i) => i.file === 'rust-toolchain.toml'), 'doctor lists the toolchain file as ignored');
  } finally {
    project.cleanup();
  }
});

test('a project-wide `cargo fmt` in the user config runs as rustfmt on the edited file, edition from Cargo.toml', { skip: missing({ rustfmt: true }) }, async () => {
  const cargo = '[package]\nname = "c"\nversion = "0.1.0"\nedition = "2015"\n';
  const project = tempProject({ 'Cargo.toml': cargo, 'src/main.rs': 'fn main() {}\n' });
  try {
    const sub = createSubprocessFormatters({ sandbox, root: project.root });
    const engine = createEngine({
      formatters: sub.adapters,
      adapterFor: sub.adapterFor,
      config: { format_on_save: { '**/*.rs': 'cargo fmt' } },
      projectFiles: { 'Cargo.toml': cargo },
    });
    // `async` is an identifier only in edition 2015: formatting succeeds only with Cargo.toml's edition.
    const receipt = await engine.afterEdit({ path: 'src/main.rs', prior: 'fn main() {}\n', input: { content: 'fn main(){let async=1;}\n' } });
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.equal(receipt.content, direct('fn main(){let async=1;}\n', project.root, '2015').out);
    assert.equal(receipt.formatter?.via, 'sandbox');
  } finally {
    project.cleanup();
  }
});
