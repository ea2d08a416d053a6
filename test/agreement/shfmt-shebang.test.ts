// Agreement: which files without a shell extension are shell scripts, formatbox against the real
// shfmt. shfmt's walk (`shfmt -f` / `-l`) reads the first 32 bytes of a name without a `.` and keeps
// it when they hold a shell shebang (mvdan/sh `fileutil`); formatbox's walk and its edits must agree,
// and format such a file as shfmt does, with the variant from the shebang. Real scripts from /usr/bin,
// small fixtures of our own for the exact cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import type { UserConfig } from '../../src/core/types.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { createRuntime } from '../../src/node/index.js';
import { listFiles } from '../../src/node/project/list.js';
import { tempTree } from '../cli/temp-tree.js';
import { joinCaseTerminators, onlyBackquoteUnescaping } from './shfmt-versions.js';

const REPO = resolve('.');
const version = spawnSync('shfmt', ['--version'], { encoding: 'utf8' });
const haveShfmt = version.status === 0;
const skip = !haveShfmt && !process.env.CI ? 'shfmt is not installed (outside CI)' : false;
/** Debian 12's shfmt is 3.6; formatbox's rules are mvdan/sh 3.13's (sh-syntax 0.7.0). */
const shfmtBefore37 = /^v?3\.[0-6]\./.test(version.stdout ?? '');

function shfmt(args: string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const run = spawnSync('shfmt', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '').sort();

/** `formatbox format --check --json` on `root`: every file it reports, and those it would change. */
function formatboxCheck(root: string): { reported: Map<string, string>; wouldChange: string[] } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), 'format', '--check', '--json', '--root', root, root], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(root, '..', 'no-config'), XDG_CACHE_HOME: join(root, '..', 'cache') },
  });
  assert.ok(run.status === 0 || run.status === 1, `formatbox format exited ${run.status}: ${run.stderr}`);
  const reported = new Map<string, string>();
  for (const line of lines(run.stdout)) {
    const item = JSON.parse(line) as { path?: string; status?: string };
    if (item.path !== undefined && item.status !== undefined) reported.set(item.path, item.status);
  }
  return { reported, wouldChange: [...reported].filter(([, status]) => status === 'would-change').map(([path]) => path).sort() };
}

/** Name → bytes; each is a file without a shell extension unless the name says otherwise. */
const FIXTURES: Record<string, string | Buffer> = {
  'plain': '#!/bin/sh\necho  a\n',
  'sh-e': '#!/bin/sh -e\nif true; then\necho a\nfi\n',
  'env-bash': '#!/usr/bin/env bash\nf() { echo a;}\n',
  'env-S': '#!/usr/bin/env -S bash -e\necho  a\n',
  'one-space': '#! /bin/bash\necho  a\n',
  'tab': '#!\t/bin/sh\necho  a\n',
  'crlf': '#!/bin/sh\r\nif true; then\r\necho a\r\nfi\r\n',
  'usr-local': '#!/usr/local/bin/bash\necho  a\n',
  'dash': '#!/bin/dash\necho  a\n',
  'ksh': '#!/bin/ksh\necho  a\n',
  'mksh': '#!/bin/mksh\necho  a\n',
  'bats': '#!/usr/bin/env bats\n@test "a" {\ntrue\n}\n',
  'zsh': '#!/bin/zsh\necho  a\n',
  'python': '#!/usr/bin/python3\nprint(1)\n',
  'node': '#!/usr/bin/env node\nconsole.log(1)\n',
  'nine-bytes': '#!/bin/sh',
  'ten-bytes': '#!/bin/sh\n',
  'bashx': '#!/bin/bashx\necho  a\n',
  // `bash` ends at byte 32, where shfmt stops reading: a match. One more space and it is cut to `bas`.
  'cut-at-32': `#!/usr/bin/env${' '.repeat(14)}bashful\necho  a\n`,
  'past-32': `#!/usr/bin/env${' '.repeat(15)}bash\necho  a\n`,
  'bom': '\uFEFF#!/bin/sh\necho  a\n',
  'empty': '',
  'no-shebang': 'echo  a\n',
  'binary-with-shebang': Buffer.concat([Buffer.from('#!/bin/sh\nexit 0\n'), Buffer.from([0, 0xff, 0xfe, 0, 1, 2, 3])]),
  'elf': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0]),
  'release.v2': '#!/bin/bash\necho  a\n',
  '.hidden': '#!/bin/bash\necho  a\n',
  '.dot.sh': 'echo  a\n',
  'x.sh': 'echo  a\n',
  'x.zsh': 'echo  a\n',
};

/** Differences in shfmt's own rules between 3.6 and 3.13: formatbox follows 3.13. */
const VERSION_FIXTURES: Record<string, { text: string; in313: boolean; in36: boolean }> = {
  'two-spaces': { text: '#!  /bin/sh\necho  a\n', in313: true, in36: false },
  'env-formfeed': { text: '#!/usr/bin/env\fbash\necho  a\n', in313: false, in36: true },
};

test('walk: formatbox lists the shell scripts shfmt -f lists, and would change those shfmt -l lists', { timeout: 300_000, skip }, () => {
  const files: Record<string, string> = { 'root/.editorconfig': '[*]\nswitch_case_indent = false\n' };
  const base = tempTree('fb-shebang-walk-', files);
  const root = join(base, 'root');
  const put = (rel: string, bytes: string | Buffer) => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), bytes);
  };
  for (const [name, bytes] of Object.entries(FIXTURES)) put(`s/${name}`, bytes);
  for (const [name, { text }] of Object.entries(VERSION_FIXTURES)) put(`v/${name}`, text);
  // shfmt's walk enters every directory but .git, .svn and .hg: dot-directories and vendor too.
  put('.github/scripts/ci', '#!/bin/sh\necho  a\n');
  put('vendor/tool/run', '#!/usr/bin/env bash\necho  a\n');
  put('.git/hooks/pre-commit', '#!/bin/sh\necho  a\n');
  // Known differences, asserted below: formatbox never enters node_modules; its `.ksh` is shell by name.
  put('node_modules/pkg/bin/run', '#!/bin/sh\necho  a\n');
  put('s/y.ksh', 'echo  a\n');
  // A symlink is not a script for shfmt's walk; formatbox does not list a symlink without a language either.
  symlinkSync(join(root, 's/plain'), join(root, 's/link'));

  const found = lines(shfmt(['-f', '.'], root).stdout).map((path) => path.replace(/^\.\//, ''));
  assert.ok(found.includes('node_modules/pkg/bin/run'), 'shfmt enters node_modules');
  assert.ok(!found.includes('s/y.ksh'), "shfmt's walk does not take .ksh for shell");
  for (const [name, fixture] of Object.entries(VERSION_FIXTURES)) {
    // The reference's own rule for the two version-dependent fixtures, read from the binary's answer.
    assert.equal(found.includes(`v/${name}`), shfmtBefore37 ? fixture.in36 : fixture.in313, `shfmt ${version.stdout.trim()} on v/${name}`);
  }
  const shellByShfmt = found.filter((path) => !path.startsWith('node_modules/') && !path.startsWith('v/'));

  const ours = formatboxCheck(root);
  const listed = [...ours.reported.keys()].sort();
  const shellByFormatbox = listed.filter((path) => path !== 's/y.ksh' && !path.startsWith('v/'));
  assert.deepEqual(shellByFormatbox, shellByShfmt);
  assert.ok(listed.includes('s/y.ksh'));
  for (const [name, fixture] of Object.entries(VERSION_FIXTURES)) assert.equal(listed.includes(`v/${name}`), fixture.in313, `formatbox on v/${name}`);
  // The cases the rules turn on, spelled out (shfmt agreed with each above).
  for (const name of ['plain', 'sh-e', 'env-bash', 'one-space', 'tab', 'crlf', 'mksh', 'bats', 'zsh', 'ten-bytes', 'cut-at-32', 'binary-with-shebang', 'x.sh', 'x.zsh']) assert.ok(listed.includes(`s/${name}`), name);
  for (const name of ['env-S', 'usr-local', 'dash', 'ksh', 'python', 'node', 'nine-bytes', 'bashx', 'past-32', 'bom', 'empty', 'no-shebang', 'elf', 'release.v2', '.hidden', '.dot.sh', 'link']) assert.ok(!listed.includes(`s/${name}`), name);
  assert.ok(listed.includes('.github/scripts/ci') && listed.includes('vendor/tool/run') && !listed.includes('.git/hooks/pre-commit'));
  // A script that is not text is listed (as shfmt lists it) and left alone, saying why.
  assert.equal(ours.reported.get('s/binary-with-shebang'), 'skipped');

  const changedByShfmt = lines(shfmt(['-l', '.'], root).stdout).map((path) => path.replace(/^\.\//, '')).filter((path) => !path.startsWith('node_modules/') && !path.startsWith('v/'));
  assert.deepEqual(ours.wouldChange.filter((path) => path !== 's/y.ksh' && !path.startsWith('v/')), changedByShfmt);
});

test('walk: a FIFO is no candidate, and a huge script is listed with only its first bytes read', { skip: process.platform === 'win32' ? 'no FIFOs' : false }, async () => {
  const base = tempTree('fb-shebang-fifo-', { 'root/bin/tool': '#!/bin/sh\necho a\n' });
  const root = join(base, 'root');
  // shfmt 3.6 opens (and blocks on) a FIFO without an extension; 3.13 leaves non-regular files alone, as formatbox does.
  assert.equal(spawnSync('mkfifo', [join(root, 'bin/fifo')]).status, 0);
  // 8 MiB: past every size bound, yet only its first 32 bytes are read to list it.
  writeFileSync(join(root, 'bin/huge'), Buffer.concat([Buffer.from('#!/bin/bash\n'), Buffer.alloc(8 * 1024 * 1024, 'echo a\n')]));
  const listing = await listFiles(root, [root], []);
  assert.deepEqual(listing.files, ['bin/huge', 'bin/tool']);
  assert.equal(listing.firstBytes.get('bin/tool'), '#!/bin/sh\necho a\n');
  assert.equal(listing.firstBytes.get('bin/huge')?.length, 32);
  assert.ok(!listing.walk.skipped.some((item) => item.rel === 'bin/fifo'), 'a FIFO without an extension is no candidate');
});

/** Extensionless regular files of /usr/bin: the shell scripts shfmt finds there, and as many others (ELF, Perl, Python). */
function usrBinSample(): { shell: string[]; others: string[] } {
  const shell = lines(shfmt(['-f', '/usr/bin'], '/').stdout).filter((path) => !path.slice('/usr/bin/'.length).includes('.'));
  const small = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? Infinity;
  const chosenShell = shell.filter((path) => small(path) < 200_000).slice(0, 40);
  const others = readdirSync('/usr/bin')
    .sort()
    .map((name) => join('/usr/bin', name))
    .filter((path) => !path.slice(9).includes('.') && !shell.includes(path) && lstatSync(path, { throwIfNoEntry: false })?.isFile() && small(path) < 100_000)
    .slice(0, 40);
  return { shell: chosenShell, others };
}

test('real scripts from /usr/bin: the same files are shell, and formatted as shfmt formats them (up to the two named version changes)', { timeout: 300_000, skip }, async () => {
  const { shell, others } = usrBinSample();
  assert.ok(shell.length >= 10, `only ${shell.length} shell scripts in /usr/bin`);
  assert.ok(others.length >= 10, `only ${others.length} other programs in /usr/bin`);
  const base = tempTree('fb-shebang-usr-bin-', {});
  const root = join(base, 'root');
  mkdirSync(join(root, 'bin'), { recursive: true });
  for (const path of [...shell, ...others]) copyFileSync(path, join(root, 'bin', path.slice('/usr/bin/'.length)));

  const found = lines(shfmt(['-f', '.'], root).stdout).map((path) => path.replace(/^\.\//, ''));
  const listing = await listFiles(root, [root], []);
  assert.deepEqual(listing.files, found);
  assert.equal(found.length, shell.length);

  const engine = createEngine({ formatters: createBuiltinAdapters(), config: { mode: 'always' } });
  const stats = { identical: 0, knownChange: 0, rejectedByBoth: 0 };
  const mismatches: string[] = [];
  for (const rel of found) {
    const original = readFileSync(join(root, rel), 'utf8');
    const ours = await engine.format({ path: rel, text: original });
    const native = shfmt([rel], root);
    if (native.status !== 0) {
      if (ours.status === 'failed') stats.rejectedByBoth++;
      else mismatches.push(`${rel}: shfmt rejected it (${native.stderr.split('\n')[0]}), formatbox ${ours.status}`);
      continue;
    }
    assert.match(ours.languageFrom ?? '', /its shebang names (sh|bash)\b/, rel);
    if (ours.content === native.stdout) stats.identical++;
    else if (joinCaseTerminators(ours.content) === joinCaseTerminators(native.stdout) || onlyBackquoteUnescaping(joinCaseTerminators(native.stdout), joinCaseTerminators(ours.content), original)) stats.knownChange++;
    else mismatches.push(`${rel}: formatbox ${ours.status} differs from shfmt`);
  }
  console.log(`  # /usr/bin: ${found.length} shell of ${shell.length + others.length}; ${stats.identical} identical, ${stats.knownChange} differ only by the 3.7 changes, ${stats.rejectedByBoth} rejected by both`);
  assert.deepEqual(mismatches, []);
  assert.ok(stats.identical >= 5);
});

test('an edit: the variant comes from the shebang, bytes equal shfmt, the config applies as for .sh', { timeout: 120_000, skip }, async () => {
  const editorconfig = '[*]\nindent_style = space\nindent_size = 2\nswitch_case_indent = true\n';
  const base = tempTree('fb-shebang-edit-', { 'root/.editorconfig': editorconfig });
  const root = join(base, 'root');
  const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: { '.editorconfig': editorconfig } });
  const cases: Record<string, string> = {
    'posix-array': '#!/bin/sh\na=(1 2)\n',
    'bash-array': '#!/bin/bash\na=(1 2)\n',
    'sh-e': '#!/bin/sh -e\ncase $1 in\na) echo a;;\nesac\n',
    'crlf': '#!/usr/bin/env bash\r\nif true; then\r\necho a\r\nfi\r\n',
    'mksh': '#!/bin/mksh\nfunction f { echo a; }\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    writeFileSync(join(root, name), text);
    const native = shfmt([name], root);
    const ours = await engine.format({ path: name, text });
    if (native.status !== 0) {
      assert.equal(ours.status, 'failed', `${name}: shfmt rejected it (${native.stderr.trim()})`);
    } else {
      // A case clause's `;;` is the one named change from Debian's 3.6 these scripts touch.
      if (text.includes(';;')) assert.equal(joinCaseTerminators(ours.content), joinCaseTerminators(native.stdout), name);
      else assert.equal(ours.content, native.stdout, name);
      assert.equal(ours.status, ours.content === text ? 'unchanged' : 'formatted', name);
    }
    assert.match(ours.languageFrom ?? '', /shebang names/, name);
  }
  // The variant really is the shebang's: sh rejects an array, bash does not.
  assert.equal((await engine.format({ path: 'posix-array', text: cases['posix-array']! })).status, 'failed');
  assert.equal((await engine.format({ path: 'bash-array', text: cases['bash-array']! })).status, 'unchanged');
});

test('an edit: not shell without a shell shebang, off when the user turns shell off, and chosen anew when the shebang changes', async () => {
  const engine = createEngine({ formatters: createBuiltinAdapters(), config: { mode: 'always' } });
  const without = await engine.format({ path: 'bin/tool', text: 'print(1)\n' });
  for (const text of ['#!/usr/bin/python3\nprint(1)\n', '#!/usr/bin/env node\nprint(1)\n', '#!/usr/bin/env -S bash -e\necho  a\n']) {
    const outcome = await engine.format({ path: 'bin/tool', text });
    assert.deepEqual({ status: outcome.status, reason: outcome.reason, languageFrom: outcome.languageFrom }, { status: without.status, reason: without.reason, languageFrom: undefined }, text);
  }
  // Same path, now a shell script: the selection follows the first line, not the cached path.
  const now = await engine.format({ path: 'bin/tool', text: '#!/bin/sh\necho  a\n' });
  assert.equal(now.status, 'formatted');
  assert.equal(now.content, '#!/bin/sh\necho a\n');
  // A name with an extension is decided by its name: a shebang does not make notes.txt shell.
  assert.equal((await engine.format({ path: 'notes.txt', text: '#!/bin/sh\necho  a\n' })).content, '#!/bin/sh\necho  a\n');

  const turnedOff: UserConfig[] = [{ mode: 'always', formatters: { shell: false } }, { mode: 'always', formatters: { 'bin/**': false } }, { enabled: false }];
  for (const config of turnedOff) {
    const off = createEngine({ formatters: createBuiltinAdapters(), config });
    const outcome = await off.format({ path: 'bin/tool', text: '#!/bin/sh\necho  a\n' });
    assert.equal(outcome.status, 'skipped', JSON.stringify(config));
    assert.equal(outcome.content, '#!/bin/sh\necho  a\n');
  }
  // Over the size bound: skipped as a large .sh is, and still said to be shell by its shebang.
  const small = createEngine({ formatters: createBuiltinAdapters(), config: { mode: 'always', maxInputBytes: 1000 } });
  const large = await small.format({ path: 'bin/big', text: `#!/bin/sh\n${'echo a\n'.repeat(500)}` });
  assert.equal(large.status, 'skipped');
  assert.match(large.reason ?? '', /too large/);
  assert.match(large.languageFrom ?? '', /shebang names sh/);
});

test('runtime: a written script without an extension is formatted, and the receipt and doctor say the language came from the shebang', { timeout: 120_000 }, async () => {
  const base = tempTree('fb-shebang-runtime-', { 'root/.editorconfig': '[*]\nshell_variant = bash\n', 'root/bin/.keep': '' });
  const root = join(base, 'root');
  const runtime = createRuntime({ root });
  try {
    const receipt = await runtime.write({ path: 'bin/deploy', content: '#!/usr/bin/env bash\nif true; then\necho a\nfi\n' });
    assert.equal(receipt.status, 'formatted');
    assert.equal(readFileSync(join(root, 'bin/deploy'), 'utf8'), '#!/usr/bin/env bash\nif true; then\n\techo a\nfi\n');
    assert.equal(receipt.languageFrom, 'shell: the name has no extension and its shebang names bash');
    const doctor = await runtime.doctor();
    const row = doctor.languages.find((l) => l.firstLine !== undefined);
    assert.deepEqual({ language: row?.language, firstLine: row?.firstLine, formatter: row?.formatter }, { language: 'shell', firstLine: '#!/bin/sh', formatter: 'shfmt' });
    assert.match(row?.languageFrom ?? '', /shebang names sh/);
  } finally {
    await runtime.close();
  }
});
