// The CLI as a person runs it, each convention of docs/cli.md asserted through the real built CLI:
// on a real pseudo-terminal (python3's pty module: stdout and stderr are the terminal), with
// NO_COLOR, with --no-color, and on a pipe. Colour and progress only on the terminal; per-file
// problems on stderr in one form; plurals; one summary line with the next step; -l/-c/-w/-u,
// --log-level, --mode always, --verbose; did-you-mean for commands and flags; `help [command]`; no
// internal code in human output (kept in --json); doctor collapsed; daemon status in words.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project, runCli, type Run } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const hasPython = spawnSync('python3', ['-c', 'import pty'], { encoding: 'utf8' }).status === 0;
const skipPty = !hasPython && !process.env['CI'] ? 'python3 (its pty module) is not installed' : false;
if (skipPty) console.log(`# skipping the pseudo-terminal cases: ${skipPty}`);

/** The CLI on a pseudo-terminal: what the terminal shows (stdout and stderr together) and the exit code. */
function onTerminal(args: string[], cwd: string, env: NodeJS.ProcessEnv = iso.env): Run {
  const script = 'import os, pty, sys\nsys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))';
  const run = spawnSync('python3', ['-c', script, process.execPath, built.cli, ...args], { cwd, env: { ...env, TERM: 'xterm-256color' }, input: '', encoding: 'utf8' });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

const COLOUR = /\x1b\[\d+m/;
const ESCAPE = /\x1b/;
const MESSY = 'const a = "x"\n';

function gitProject(): string {
  const root = project({ '.prettierrc': '{ "singleQuote": true }\n', 'src/a.ts': MESSY, 'src/b.ts': "const b = 'y';\n", 'src/c.ts': 'const = ;\n' });
  mkdirSync(join(root, '.git'));
  dirs.push(root);
  return root;
}

test('colour and progress on a terminal; none with NO_COLOR, --no-color or a pipe; the same verdicts in every case', { skip: skipPty, timeout: 180_000 }, async () => {
  const root = gitProject();
  const tty = onTerminal(['format', '--no-daemon'], root);
  assert.equal(tty.code, 2, tty.stdout);
  assert.match(tty.stdout, /\x1b\[33mwould reformat\x1b\[39m: src\/a\.ts/, 'would-change in yellow');
  assert.match(tty.stdout, /\x1b\[31merror\x1b\[39m: src\/c\.ts: /, 'a problem in red');
  assert.match(tty.stdout, /\r\x1b\[K.*listing files in \.…/, 'the listing phase is shown');
  assert.match(tty.stdout, /\[4\/4\] \d+ files\/s/, 'the files phase is shown');
  for (const [what, args, env] of [['NO_COLOR=1', ['format'], { ...iso.env, NO_COLOR: '1' }], ['--no-color', ['format', '--no-color'], iso.env]] as const) {
    const plain = onTerminal([...args], root, env);
    assert.equal(plain.code, 2, `${what}: ${plain.stdout}`);
    assert.doesNotMatch(plain.stdout, COLOUR, `${what}: no colour`);
    assert.match(plain.stdout, /would reformat: src\/a\.ts/, what);
  }
  const piped = await runCli(built.cli, ['format'], { env: iso.env, cwd: root });
  assert.equal(piped.code, 2);
  assert.doesNotMatch(piped.stdout + piped.stderr, ESCAPE, 'a pipe gets no colour and no progress');
  assert.equal(piped.stdout, 'would reformat: src/a.ts\n', 'stdout: the files that would change');
  assert.match(piped.stderr, /^error: src\/c\.ts: .+$/m, 'stderr: the problem, in the one form');
  assert.match(piped.stderr, /^Checked 4 files: 1 would change, 2 already formatted, 1 failed\. See the error above\.$/m);
  assert.equal(piped.stderr.trim().split('\n').length, 2, `the problem and one summary line: ${piped.stderr}`);
  assert.equal(readFileSync(join(root, 'src/a.ts'), 'utf8'), MESSY, 'no mode: nothing written');
});

test('-l lists only the paths, -w writes, -u silences a named unknown file, --log-level, plurals, --verbose', { timeout: 180_000 }, async () => {
  const root = gitProject();
  writeFileSync(join(root, 'notes.unknownext'), 'x\n');
  const run = (args: string[]) => runCli(built.cli, args, { env: iso.env, cwd: root });
  const listed = await run(['format', '-l', 'src/a.ts', 'src/b.ts']);
  assert.deepEqual([listed.code, listed.stdout], [1, 'src/a.ts\n'], listed.stderr);
  assert.match(listed.stderr, /^Checked 2 files: 1 would change, 1 already formatted\. Run with --write to fix\.$/m);
  const one = await run(['format', '-c', 'src/b.ts']);
  assert.match(one.stderr, /^Checked 1 file: 0 would change, 1 already formatted\.$/m, 'one file, not "1 files"');
  const unknown = await run(['format', 'notes.unknownext']);
  assert.match(unknown.stderr, /^not formatted: notes\.unknownext \(/m);
  assert.doesNotMatch((await run(['format', '-u', 'notes.unknownext'])).stderr, /not formatted:/);
  const silent = await run(['format', '--log-level', 'silent']);
  assert.deepEqual([silent.code, silent.stdout, silent.stderr], [2, '', ''], 'silent: the exit code says it');
  const errors = await run(['format', '--log-level=error']);
  assert.deepEqual([errors.code, errors.stdout], [2, '']);
  assert.match(errors.stderr, /^error: src\/c\.ts: [^\n]+\n$/, 'error: the problem only');
  const verbose = await run(['format', '--verbose', 'src']);
  assert.match(verbose.stderr, /^\d+\.\d+ s, \d+ files\/s, 1 thread; \d+ answered from the cache/m, 'the details under --verbose');
  assert.doesNotMatch((await run(['format', 'src'])).stderr, /files\/s/, 'and not without');
  const write = await run(['format', '-w', 'src/a.ts']);
  assert.equal(write.code, 0, write.stderr);
  assert.equal(readFileSync(join(root, 'src/a.ts'), 'utf8'), "const a = 'x';\n");
  assert.match(write.stderr, /^Formatted 1 of 1 file: 0 already formatted\.$/m);
});

test('--mode always formats a folder with no config with the language defaults; without it the summary says what to do', { timeout: 120_000 }, async () => {
  const bare = project({ 'a.ts': 'const a = "x"\n', 'b.json': '{"a":1}\n' });
  mkdirSync(join(bare, '.git'));
  dirs.push(bare);
  const run = (args: string[]) => runCli(built.cli, args, { env: iso.env, cwd: bare });
  const plain = await run(['format']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, '');
  assert.equal(plain.stderr, 'Checked 2 files: 0 would change, 0 already formatted, 2 not formatted. The project declares no formatter for them: add a formatter config, or run with --mode always.\n', 'one line, not one per file');
  const always = await run(['format', '--mode', 'always']);
  assert.equal(always.code, 1, always.stderr);
  assert.equal(always.stdout, 'would reformat: a.ts\nwould reformat: b.json\n');
  const stdin = await runCli(built.cli, ['format', '--mode=always', '--stdin-filepath', 'x.ts'], { env: iso.env, cwd: bare, input: 'const x = {a:1}\n' });
  assert.equal(stdin.stdout, 'const x = { a: 1 };\n', 'through the daemon too');
});

test('mistakes: did-you-mean for flags and commands, help [command], no internal code in human output', { timeout: 120_000 }, async () => {
  const root = gitProject();
  const run = (args: string[]) => runCli(built.cli, args, { env: iso.env, cwd: root });
  const flag = await run(['format', '--chek']);
  assert.deepEqual([flag.code, flag.stderr], [2, 'formatbox: unknown option --chek for format; did you mean --check?\n']);
  const command = await run(['fromat']);
  assert.deepEqual([command.code, command.stderr], [2, 'formatbox: unknown command "fromat"; did you mean format?\nRun formatbox help for the commands.\n']);
  assert.equal((await run(['zzzzzz'])).stderr, 'formatbox: unknown command "zzzzzz"\nRun formatbox help for the commands.\n', 'no wild guess, no 40 lines of help');
  const help = await run(['help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^formatbox — /);
  const formatHelp = await run(['help', 'format']);
  assert.equal(formatHelp.code, 0);
  assert.equal(formatHelp.stdout, (await run(['format', '--help'])).stdout);
  const refused = await run(['format', '--root', '/', 'src/a.ts']);
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /cannot be a project root/);
  assert.doesNotMatch(refused.stderr + (await run(['format', '--threads=x'])).stderr, /\([A-Z_]{5,}\)/, 'no internal code for a person');
  const json = await runCli(built.cli, ['apply', '--json'], { env: iso.env, cwd: root, input: '{"path":"/etc/passwd","input":{"content":"x"}}' });
  assert.equal(JSON.parse(json.stdout).error.code, 'PATH_REFUSED', 'programs keep the code');
});

test('doctor shows what the project uses and collapses the rest; the sandbox once; daemon status in words', { timeout: 120_000 }, async () => {
  const root = gitProject();
  const doctor = await runCli(built.cli, ['doctor'], { env: iso.env, cwd: root });
  assert.equal(doctor.code, 0, doctor.stderr);
  const languages = doctor.stdout.slice(doctor.stdout.indexOf('languages:'), doctor.stdout.indexOf('\n\n', doctor.stdout.indexOf('languages:')));
  assert.match(languages, /^ {2}typescript +prettier — /m);
  assert.doesNotMatch(languages, /^ {2}python /m, 'an unused language has no line of its own');
  assert.match(languages, /not formatted \(no formatter declared\): \d+ languages — [^\n]*python[^\n]*\(--verbose: each\)/);
  assert.ok(languages.split('\n').length < 25, languages);
  assert.equal(doctor.stdout.match(/bubblewrap \d/g)?.length ?? 0, doctor.stdout.includes('bubblewrap') ? 1 : 0, 'the sandbox line once');
  assert.match((await runCli(built.cli, ['doctor', '--verbose'], { env: iso.env, cwd: root })).stdout, /^ {2}python +not formatted/m);
  await runCli(built.cli, ['format', '--stdin-filepath', 'x.ts'], { env: iso.env, cwd: root, input: 'x\n' }); // starts the daemon
  const status = await runCli(built.cli, ['daemon', 'status'], { env: iso.env });
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /^formatbox \S+ daemon, pid \d+, up \d+ (s|min), \d+ requests?, \d+ MB\nexits after 15 min without a request; socket /);
  assert.doesNotMatch(status.stdout, /^\{/);
  assert.equal(typeof JSON.parse((await runCli(built.cli, ['daemon', 'status', '--json'], { env: iso.env })).stdout).pid, 'number');
});
