/**
 * The command adapter's contract, through the real sandbox: placeholders, stdin vs temp-file mode,
 * the exit-code policy, bad output, user commands from the prior-art config shapes, repo commands
 * and approval, and the refusal without a sandbox.
 */
import { test } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { createEngine } from '../../src/engine/engine.js';
import { commandFormatter, hasFilePlaceholder, templateArgv } from '../../src/formatters/command.js';
import { noSandbox } from '../../src/node/sandbox/none.js';
import { detectSandbox } from '../../src/node/sandbox/index.js';
import { bwrapSandbox } from '../../src/node/sandbox/bwrap.js';
import { createSubprocessFormatters, type ApprovalRequest } from '../../src/node/subprocess.js';
import { NO_SANDBOX_REASON } from '../../src/core/sandbox.js';
import type { AdapterRequest } from '../../src/core/types.js';
import { missing, sandbox, tempProject } from './helpers.js';

const request = (text: string, path = 'src/x.txt'): AdapterRequest => ({ path, language: 'text', text, settings: {} });

test('placeholders: {file}, {path}, $FILE and ${FILE} anywhere in an argument; nothing else is expanded', () => {
  assert.deepEqual(templateArgv(['fmt', '--in={file}', '{path}', '$FILE', '${FILE}', '$FILEX', '$HOME', '*.txt', '`id`'], '/tmp/formatbox/a.py'), [
    'fmt', '--in=/tmp/formatbox/a.py', '/tmp/formatbox/a.py', '/tmp/formatbox/a.py', '/tmp/formatbox/a.py', '$FILEX', '$HOME', '*.txt', '`id`',
  ]);
  assert.equal(hasFilePlaceholder(['black', '-q', '-']), false);
  assert.equal(hasFilePlaceholder(['yapf', '-i', '{file}']), true);
  // A path with spaces or shell characters stays one argument: there is no shell to split it.
  assert.deepEqual(templateArgv(['x', '{file}'], "/tmp/a b;$(rm -rf ~)'.py"), ['x', "/tmp/a b;$(rm -rf ~)'.py"]);
});

test('stdin mode: a filter; file mode: the private copy is rewritten and read back', { skip: missing() }, async () => {
  const project = tempProject({ 'src/x.txt': 'on disk\n' });
  try {
    const upper = commandFormatter({ name: 'tr', languages: ['text'], argv: ['/usr/bin/tr', 'a-z', 'A-Z'] }, { sandbox, root: project.root });
    assert.deepEqual(await upper.format(request('hello\n')), { kind: 'ok', text: 'HELLO\n' });
    // sed -i rewrites the copy in place (rename inside the tmpfs); the project file is untouched.
    // Both ways of reading the copy back: the pinned scratch dir (as root) and the in-sandbox supervisor.
    for (const backend of [sandbox, bwrapSandbox({ readBack: 'supervisor' })]) {
      const inPlace = commandFormatter({ name: 'sed', languages: ['text'], argv: ['/usr/bin/sed', '-i', 's/hello/bye/', '{file}'] }, { sandbox: backend, root: project.root });
      assert.deepEqual(await inPlace.format(request('hello world\n')), { kind: 'ok', text: 'bye world\n' });
      const big = 'hello '.repeat(200_000);
      assert.deepEqual(await inPlace.format(request(big)), { kind: 'ok', text: big.replace('hello', 'bye') });
    }
    assert.equal(readFileSync(join(project.root, 'src/x.txt'), 'utf8'), 'on disk\n');
    // The copy keeps the file's name (tools choose parsers by extension) and lives in the tmpfs; the
    // working directory is an empty one, not the project (issue 9, class 6).
    const where = commandFormatter({ name: 'sh', languages: ['text'], argv: ['/bin/sh', '-c', 'echo "$1 in $(pwd)" > "$1"', 'sh', '$FILE'] }, { sandbox, root: project.root });
    assert.deepEqual(await where.format(request('x\n', 'src/x.txt')), { kind: 'ok', text: '/tmp/formatbox/x.txt in /tmp/formatbox-cwd\n' });
  } finally {
    project.cleanup();
  }
});

test('exit-code policy, empty output, non-UTF-8 output, a deleted copy', { skip: missing() }, async () => {
  const run = (script: string, extra: { okExitCodes?: number[]; file?: boolean } = {}) =>
    commandFormatter(
      { name: 'sh', languages: ['text'], argv: ['/bin/sh', '-c', script, 'sh', ...(extra.file ? ['{file}'] : [])], ...(extra.okExitCodes ? { okExitCodes: extra.okExitCodes } : {}) },
      { sandbox },
    ).format(request('input\n'));
  assert.deepEqual(await run('echo "\nsyntax error at 3:4" >&2; echo partial; exit 2'), { kind: 'error', message: 'syntax error at 3:4', exitCode: 2 });
  assert.deepEqual(await run('echo only stdout; exit 3'), { kind: 'error', message: 'only stdout', exitCode: 3 });
  assert.deepEqual(await run('exit 4'), { kind: 'error', message: 'exit 4', exitCode: 4 });
  assert.deepEqual(await run('cat; exit 1', { okExitCodes: [0, 1] }), { kind: 'ok', text: 'input\n' });
  assert.deepEqual(await run('kill -9 $$'), { kind: 'error', message: 'exit 137', exitCode: 137 });
  assert.deepEqual(await run('true'), { kind: 'error', message: 'the formatter returned empty output for a non-empty file', exitCode: 0 });
  assert.deepEqual(await run("printf '\\377\\376'"), { kind: 'error', message: 'the formatter wrote output that is not UTF-8', exitCode: 0 });
  assert.deepEqual(await run('rm "$1"', { file: true }), { kind: 'error', message: 'the formatter deleted the file', exitCode: 0 });
});

test('no sandbox: every subprocess formatter is refused with the reason, and nothing runs', async () => {
  const none = noSandbox('bubblewrap (bwrap) is not installed');
  assert.equal(none.kind, 'none');
  const project = tempProject({ 'Cargo.toml': '[package]\nname = "t"\nversion = "0.1.0"\nedition = "2021"\n', 'src/lib.rs': 'fn a(){}\n' });
  try {
    const sub = createSubprocessFormatters({ sandbox: none, root: project.root });
    const reason = `${NO_SANDBOX_REASON}: bubblewrap (bwrap) is not installed`;
    for (const adapter of [...sub.adapters, sub.adapterFor({ command: ['/usr/bin/touch', `${project.root}/ran`] }, 'rust')!]) {
      const result = await adapter.format({ path: 'src/lib.rs', language: 'rust', text: 'fn a(){}\n', settings: { edition: '2021' } });
      assert.deepEqual(result, { kind: 'refused', reason }, adapter.name);
    }
    assert.equal(sub.status()[0]!.available, false);
    assert.match(sub.status()[0]!.detail, /^none: bubblewrap \(bwrap\) is not installed$/);
    // Through the engine: a `refused` receipt with the reason in its line.
    const engine = createEngine({ formatters: sub.adapters, adapterFor: sub.adapterFor, projectFiles: { 'Cargo.toml': '[package]\nedition = "2021"\n' } });
    const receipt = await engine.afterEdit({ path: 'src/lib.rs', prior: 'fn a(){}\n', input: { content: 'fn b(){}\n' } });
    assert.equal(receipt.status, 'refused', receipt.line);
    assert.equal(receipt.line, `formatter refused (${reason}): src/lib.rs`);
    assert.equal(receipt.content, 'fn b(){}\n');
    assert.equal(existsSync(`${project.root}/ran`), false);
  } finally {
    project.cleanup();
  }
  // detectSandbox with a bwrap that does not exist falls back to `none`, never to running unsandboxed.
  const detected = detectSandbox({ bwrapPath: '/nonexistent/bwrap' });
  assert.equal(detected.kind, 'none');
  assert.match(detected.unavailable ?? '', /^no OS sandbox for a subprocess formatter: bwrap cannot create a sandbox here: /);
  assert.deepEqual(await detected.run({ argv: ['/usr/bin/true'], timeoutMs: 1000, maxStdoutBytes: 10, maxStderrBytes: 10 }), { kind: 'refused', reason: detected.unavailable });
  assert.equal(detectSandbox({ platform: 'win32' }).unavailable, 'no OS sandbox for a subprocess formatter: no supported sandbox on win32');
  if (process.platform !== 'darwin') assert.equal(detectSandbox({ platform: 'darwin' }).kind, 'none');
});

test('user commands in the prior-art shapes run in the sandbox (onEdit with {file}, format_on_save with {path}, false)', { skip: missing() }, async () => {
  const project = tempProject({ 'q/a.sql': 'select 1\n', 'b.txt': 'b\n' });
  try {
    const sub = createSubprocessFormatters({ sandbox, root: project.root });
    const engine = createEngine({
      formatters: sub.adapters,
      adapterFor: sub.adapterFor,
      config: {
        format: { onEdit: { sql: 'sed -i "s/select/SELECT/" {file}', go: false } },
        format_on_save: { '**/*.txt': 'sed -i s/b/B/ {path}' },
      },
    });
    const sql = await engine.afterEdit({ path: 'q/a.sql', prior: 'select 1\n', input: { oldText: '1', newText: '2' } });
    assert.equal(sql.status, 'formatted', sql.line);
    assert.equal(sql.content, 'SELECT 2\n');
    assert.equal(sql.line, 'formatted (sed user command, sandbox): q/a.sql');
    const txt = await engine.afterEdit({ path: 'b.txt', prior: 'b\n', input: { content: 'bb\n' } });
    assert.equal(txt.content, 'Bb\n');
    const go = await engine.afterEdit({ path: 'main.go', prior: 'package main\n', input: { content: 'package  main\n' } });
    assert.equal(go.status, 'skipped');
    // A bare "black" means the native black adapter (stdin filter), where black is installed.
    const black = createEngine({ formatters: sub.adapters, adapterFor: sub.adapterFor, config: { formatters: { python: 'black' } } });
    const py = await black.afterEdit({ path: 'a.py', prior: '', input: { content: "x = {  'a':1 }\n" } });
    if (sub.adapters.some((a) => a.name === 'black')) {
      assert.equal(py.status, 'formatted', py.line);
      assert.equal(py.content, 'x = {"a": 1}\n');
      assert.match(py.line, /^formatted \(black \S+, sandbox\): a\.py$/);
    } else if (process.env.CI) {
      assert.fail('CI installs black');
    }
  } finally {
    project.cleanup();
  }
});

test("repo commands: refused untrusted; with approve() they run after a yes, remembered per command and config hash", { skip: missing() }, async () => {
  const project = tempProject({ 'a.txt': 'x\n' });
  try {
    const choice = (sha256: string) => ({ command: ['/usr/bin/tr', 'a-z', 'A-Z'], project: { file: '.formatbox.json', sha256 } });
    const refused = createSubprocessFormatters({ sandbox, root: project.root });
    assert.deepEqual(await refused.adapterFor(choice('h1'), 'text')!.format(request('abc\n')), {
      kind: 'refused',
      reason: "command from the repo's .formatbox.json is not run in untrusted mode (no approval callback)",
    });
    assert.match(refused.status().at(-1)!.detail, /^refused: command from the repo's \.formatbox\.json; untrusted mode runs none/);

    const asked: ApprovalRequest[] = [];
    let answer = true;
    const sub = createSubprocessFormatters({ sandbox, root: project.root, approve: (r) => (asked.push(r), answer) });
    const first = sub.adapterFor(choice('h1'), 'text')!;
    assert.deepEqual(await first.format(request('abc\n')), { kind: 'ok', text: 'ABC\n' });
    assert.deepEqual(await first.format(request('def\n')), { kind: 'ok', text: 'DEF\n' });
    assert.deepEqual(await sub.adapterFor(choice('h1'), 'text')!.format(request('ghi\n')), { kind: 'ok', text: 'GHI\n' });
    assert.equal(asked.length, 1, 'asked once for the same command and config hash');
    assert.deepEqual({ ...asked[0], message: undefined }, { command: ['/usr/bin/tr', 'a-z', 'A-Z'], file: '.formatbox.json', sha256: 'h1', message: undefined });
    answer = false;
    assert.deepEqual(await sub.adapterFor(choice('h2'), 'text')!.format(request('abc\n')), { kind: 'refused', reason: "the user declined the command from the repo's .formatbox.json" });
    assert.equal(asked.length, 2, 'a changed config file asks again');

    const trusted = createSubprocessFormatters({ sandbox, root: project.root, trust: 'trusted' });
    assert.deepEqual(await trusted.adapterFor(choice('h3'), 'text')!.format(request('abc\n')), { kind: 'ok', text: 'ABC\n' });
  } finally {
    project.cleanup();
  }
});

test('binaries inside the project are not run; a relative argv[0] resolves in the root only when trusted', { skip: missing() }, async () => {
  const project = tempProject({ 'bin/fmt': '#!/bin/sh\ntr a-z A-Z\n' });
  try {
    const { chmodSync } = await import('node:fs');
    chmodSync(`${project.root}/bin/fmt`, 0o755);
    const untrusted = createSubprocessFormatters({ sandbox, root: project.root });
    const result = await untrusted.adapterFor({ command: ['./bin/fmt'] }, 'text')!.format(request('abc\n'));
    assert.equal(result.kind, 'unsupported');
    assert.match(result.kind === 'unsupported' ? result.reason : '', /is inside the project .*formatbox does not run code from the repo$/);
    const trusted = createSubprocessFormatters({ sandbox, root: project.root, trust: 'trusted' });
    assert.deepEqual(await trusted.adapterFor({ command: ['./bin/fmt'] }, 'text')!.format(request('abc\n')), { kind: 'ok', text: 'ABC\n' });
  } finally {
    project.cleanup();
  }
});
