// The one flag table (src/cli/flags.ts): every command and the thin entry parse by it, so `--x value`
// and `--x=value` mean the same everywhere, and a flag another command takes is an unknown option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { FLAG_TABLE, parseFlags, type FlagName } from '../../src/cli/flags.js';
import { COMMAND_HELP, USAGE } from '../../src/cli/help.js';
import { EXIT_CODE_MEANINGS } from '../../src/cli/exit-codes.js';
import { tempTree } from './temp-tree.js';

const SAMPLE: Record<string, string> = { string: 'some/dir', integer: '7', list: 'ignore-file' };

test('every flag with a value parses the same as --x value and --x=value, for the commands that take it', () => {
  for (const [name, row] of Object.entries(FLAG_TABLE) as Array<[FlagName, (typeof FLAG_TABLE)[FlagName]]>) {
    const command = 'only' in row ? row.only[0] : 'apply';
    if (row.kind === 'boolean') {
      assert.throws(() => parseFlags([`--${name}=yes`], { command }), /takes no value/, name);
      continue;
    }
    const value = 'values' in row ? row.values[0] : row.kind === 'integer' && 'range' in row ? String(row.range[0]) : (SAMPLE[row.kind] as string);
    const spaced = parseFlags([`--${name}`, value, 'path'], { command });
    const joined = parseFlags([`--${name}=${value}`, 'path'], { command });
    assert.deepEqual(joined, spaced, name);
    assert.deepEqual(spaced.positional, ['path'], name);
    assert.throws(() => parseFlags([`--${name}`], { command }), /needs a value/, name);
  }
});

test('aliases, bounds, --, and flags of another command', () => {
  assert.equal(parseFlags(['--stdin-file-path=a.ts']).stdinFilepath, 'a.ts');
  assert.deepEqual(parseFlags(['--threads', '2', '--ignore-path', 'a', '--ignore-path=b', '--no-cache', '--no-native'], { command: 'format' }), {
    ...parseFlags([], { command: 'format' }),
    threads: 2,
    ignorePaths: ['a', 'b'],
    cache: false,
    native: false,
  });
  assert.throws(() => parseFlags(['--threads=0'], { command: 'format' }), /whole number from 1 to 256/);
  assert.throws(() => parseFlags(['--threads=2'], { command: 'apply' }), /unknown option --threads for apply/);
  assert.deepEqual(parseFlags(['--threads=2', '--bogus'], { command: 'hook', unknown: 'collect' }).unknown, ['--threads=2', '--bogus']);
  assert.deepEqual(parseFlags(['--', '--json', '-']).positional, ['--json', '-']);
  assert.throws(() => parseFlags(['--check', '--write']), /exclude each other/);
});

test('the help is made from the tables: each command\'s usage lines, the common options, every exit code', () => {
  for (const text of Object.values(COMMAND_HELP)) {
    const usage = text.split('\n')[0]!.replace(/^usage: /, '');
    assert.ok(USAGE.includes(usage), usage);
  }
  for (const [name, row] of Object.entries(FLAG_TABLE)) if ('common' in row) assert.match(COMMAND_HELP.format!, new RegExp(`--${name}`));
  for (const [code, meaning] of EXIT_CODE_MEANINGS) assert.ok(USAGE.includes(`${code}`.padEnd(3) + ` ${meaning}`), meaning);
});

test('the bin takes --root=DIR as --root DIR, through the daemon (thin entry) and in process (full CLI)', () => {
  const base = tempTree('fb-flags-', { 'p/.git/HEAD': 'ref: refs/heads/main\n', 'p/.prettierrc': '{}\n', 'p/a.ts': 'const a   = 1\n' });
  const root = join(base, 'p');
  const bin = [resolve('node_modules/tsx/dist/esm/index.mjs'), resolve('src/cli/entry.ts')];
  // A daemon of this test's own (its socket under this TMPDIR), stopped at the end.
  const { XDG_RUNTIME_DIR: _runtimeDir, FORMATBOX_NO_DAEMON: _noDaemon, ...inherited } = process.env;
  const env = { ...inherited, TMPDIR: base, FORMATBOX_CONFIG: '', XDG_CACHE_HOME: join(base, 'cache') };
  const run = (args: string[]) => spawnSync(process.execPath, ['--import', ...bin, ...args], { cwd: base, env, encoding: 'utf8', timeout: 120_000 });
  try {
    for (const daemon of [[], ['--no-daemon']]) {
      const spaced = run(['format', '--check', '--root', root, ...daemon, join(root, 'a.ts')]);
      const joined = run(['format', '--check', `--root=${root}`, ...daemon, join(root, 'a.ts')]);
      assert.equal(spaced.status, 1, spaced.stderr);
      assert.equal(joined.status, 1, joined.stderr);
      assert.equal(joined.stdout, 'would reformat: a.ts\n');
      assert.equal(joined.stdout, spaced.stdout);
      if (daemon.length === 0) assert.doesNotMatch(joined.stderr, /no daemon/, 'the daemon answered');
    }
  } finally {
    run(['daemon', 'stop']);
  }
});
