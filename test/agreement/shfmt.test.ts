// Agreement: shell scripts through formatbox's shfmt (sh-syntax: mvdan/sh built to wasm with TinyGo)
// against Debian's shfmt 3.6 on the real scripts of this machine (/usr/bin, Go's tree, /usr/share,
// /usr/lib, /etc): with shfmt's defaults, and in a project whose .editorconfig sets shfmt's keys.
// sh-syntax 0.7.0 carries a newer mvdan/sh (v3.13 per its go.mod), so two known changes since 3.6
// are recognised and counted; anything else fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { joinCaseTerminators, onlyBackquoteUnescaping } from './shfmt-versions.js';

const LONG = process.env.FORMATBOX_LONG === '1';
const LIMIT = LONG ? 5000 : 150;
const haveShfmt = spawnSync('shfmt', ['--version']).status === 0;

function scripts(): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 8 || out.length >= LIMIT) return;
    let names: string[] = [];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(dir, name);
      const stats = statSync(full, { throwIfNoEntry: false });
      if (!stats) continue;
      if (stats.isDirectory()) walk(full, depth + 1);
      else if (stats.isFile() && stats.size < 200_000 && /\.(sh|bash)$/.test(name) && out.length < LIMIT) out.push(full);
    }
  };
  for (const name of readdirSync('/usr/bin').sort()) {
    const full = join('/usr/bin', name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (!stats?.isFile() || stats.size > 200_000) continue;
    const fd = openSync(full, 'r');
    const head = Buffer.alloc(64);
    readSync(fd, head, 0, 64, 0);
    closeSync(fd);
    if (/^#!\s?\/(usr\/)?bin\/(env\s+)?(sh|bash)\b/.test(head.toString('latin1'))) out.push(full);
  }
  for (const dir of ['/usr/lib/go-1.19/src', '/usr/share', '/usr/lib', '/etc']) walk(dir, 0);
  return [...new Set(out)].slice(0, LIMIT);
}

async function compare(files: string[], settingsDir: string | undefined, editorconfig: string | undefined) {
  const engine = createEngine({ formatters: createBuiltinAdapters(), config: { mode: 'always' }, projectFiles: editorconfig ? { '.editorconfig': editorconfig } : {} });
  const stats = { identical: 0, caseTerminators: 0, backquotes: 0, rejectedByBoth: 0 };
  const mismatches: string[] = [];
  for (const file of files) {
    const original = readFileSync(file, 'utf8');
    // Scripts without an extension (/usr/bin) are named .sh: shfmt then reads the shebang, as it does for no extension.
    const name = /\.(sh|bash)$/.test(file) ? file.split('/').pop()! : 'script.sh';
    const native = settingsDir
      ? (writeFileSync(join(settingsDir, name), original), spawnSync('shfmt', [name], { cwd: settingsDir, encoding: 'utf8' }))
      : spawnSync('shfmt', ['--filename', name], { input: original, encoding: 'utf8' });
    const ours = await engine.format({ path: name, text: original });
    if (native.status !== 0) {
      if (ours.status === 'failed') stats.rejectedByBoth++;
      else mismatches.push(`${file}: shfmt rejected it (${native.stderr.split('\n')[0]}), formatbox ${ours.status}`);
      continue;
    }
    if (ours.status === 'failed') {
      mismatches.push(`${file}: formatbox failed: ${ours.reason}`);
      continue;
    }
    assert.equal(ours.formatter?.name, 'sh-syntax', `${file}: ${ours.line}`);
    if (ours.content === native.stdout) stats.identical++;
    else if (joinCaseTerminators(ours.content) === joinCaseTerminators(native.stdout)) stats.caseTerminators++;
    else if (onlyBackquoteUnescaping(joinCaseTerminators(native.stdout), joinCaseTerminators(ours.content), original)) stats.backquotes++;
    else mismatches.push(file);
  }
  await engine.dispose();
  return { stats, mismatches };
}

test('shell: sh-syntax agrees with Debian shfmt 3.6 on real scripts, up to two named version changes', { timeout: 600_000, skip: !haveShfmt && !process.env.CI ? 'shfmt is not installed (outside CI)' : false }, async () => {
  const files = scripts();
  assert.ok(files.length >= 50, `corpus: ${files.length} scripts`);
  const defaults = await compare(files, undefined, undefined);
  console.log(`  # shfmt defaults: ${defaults.stats.identical}/${files.length} identical, ${defaults.stats.caseTerminators} differ only in ';;' placement (3.7+), ${defaults.stats.backquotes} only in backquote unescaping (3.7+), ${defaults.stats.rejectedByBoth} rejected by both`);
  assert.deepEqual(defaults.mismatches, []);

  const dir = mkdtempSync(join(tmpdir(), 'formatbox-shfmt-'));
  try {
    const editorconfig = '[*]\nindent_style = space\nindent_size = 2\n\n[{*.sh,*.bash}]\nbinary_next_line = true\nswitch_case_indent = true\nspace_redirects = true\nfunction_next_line = true\n';
    writeFileSync(join(dir, '.editorconfig'), `root = true\n${editorconfig}`);
    const configured = await compare(files.slice(0, LONG ? files.length : 60), dir, editorconfig);
    console.log(`  # .editorconfig with shfmt keys: ${configured.stats.identical} identical, ${configured.stats.caseTerminators} ';;' placement, ${configured.stats.backquotes} backquotes, ${configured.stats.rejectedByBoth} rejected by both`);
    assert.deepEqual(configured.mismatches, []);
    assert.ok(configured.stats.identical > 20);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
