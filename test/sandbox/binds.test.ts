// What the sandbox binds for a binary outside /usr (issue 9, class 2): read from the real ELF
// headers of installed binaries, never an install prefix; credential paths inside a bound tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { binaryNeeds, readElf } from '../../src/node/sandbox/binary-deps.js';
import { credentialsInside } from '../../src/node/sandbox/credentials.js';
import { resolveRustfmt } from '../../src/node/sandbox/tools.js';

test('readElf: the dynamic loader and libc of an installed binary, read as data', () => {
  const elf = readElf(realpathSync('/usr/bin/cat'));
  assert.ok(elf, 'an ELF64 little-endian binary');
  assert.ok(elf.needed.includes('libc.so.6'), elf.needed.join(', '));
  assert.match(elf.interpreter ?? '', /^\/lib(64)?\/ld-linux/);
  assert.equal(readElf('/etc/hostname'), undefined);
  assert.deepEqual(binaryNeeds('/usr/bin/cat'), { paths: [], dirs: [] }, 'everything under /usr is bound anyway');
});

test('rustfmt: a system one needs no bind; a rustup one the binary and the libraries its RUNPATH ($ORIGIN/../lib) names, not the toolchain', (t) => {
  const rustfmt = resolveRustfmt();
  if ('missing' in rustfmt) {
    if (process.env.CI) assert.fail(`CI installs rustfmt: ${rustfmt.missing}`);
    t.skip(rustfmt.missing);
    return;
  }
  if (rustfmt.binary.startsWith('/usr/')) {
    assert.equal(rustfmt.readOnlyPaths, undefined);
    return;
  }
  const paths = rustfmt.readOnlyPaths ?? [];
  assert.equal(paths[0], rustfmt.binary);
  const lib = join(dirname(dirname(rustfmt.binary)), 'lib');
  assert.ok(paths.slice(1).every((p) => p.startsWith(`${lib}/`)), paths.join(', '));
  assert.ok(paths.some((p) => /librustc_driver/.test(p)), 'librustc_driver is found through RUNPATH');
});

test('scripts: a virtualenv root or an npm package is bound, never the prefix around it', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'fb-binds-')));
  try {
    const venv = join(base, 'venvs/tool');
    mkdirSync(join(venv, 'bin'), { recursive: true });
    writeFileSync(join(venv, 'pyvenv.cfg'), 'home = /usr/bin\n');
    symlinkSync('/usr/bin/python3', join(venv, 'bin/python'));
    writeFileSync(join(venv, 'bin/fmt'), `#!${venv}/bin/python\nprint(1)\n`);
    chmodSync(join(venv, 'bin/fmt'), 0o755);
    assert.deepEqual(binaryNeeds(join(venv, 'bin/fmt')), { paths: [join(venv, 'bin/fmt'), venv, join(venv, 'bin/python')], dirs: [venv] });

    const pkg = join(base, 'prefix/lib/node_modules/@scope/fmt');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{}');
    writeFileSync(join(pkg, 'bin/fmt.js'), '#!/usr/bin/env node\n');
    assert.deepEqual(binaryNeeds(join(pkg, 'bin/fmt.js')), { paths: [join(pkg, 'bin/fmt.js'), pkg], dirs: [pkg] });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('credentialsInside: home-relative credentials under a bound dir, the list applied to the dir, a .cargo elsewhere', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'fb-creds-')));
  try {
    const home = join(base, 'home');
    for (const file of ['.ssh/id_rsa', '.cargo/credentials.toml', '.config/gh/hosts.yml', 'notes.txt']) {
      mkdirSync(dirname(join(home, file)), { recursive: true });
      writeFileSync(join(home, file), 'x');
    }
    const cargoHome = join(base, 'opt/.cargo');
    mkdirSync(cargoHome, { recursive: true });
    writeFileSync(join(cargoHome, 'credentials'), 'x');
    assert.deepEqual(credentialsInside(base, home), [
      { path: join(home, '.cargo/credentials.toml'), kind: 'file' },
      { path: join(home, '.config/gh'), kind: 'dir' },
      { path: join(home, '.ssh'), kind: 'dir' },
    ]);
    assert.deepEqual(credentialsInside(cargoHome, home), [{ path: join(cargoHome, 'credentials'), kind: 'file' }]);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a writable scratch root on /dev/shm (native Biome --write copies): writable inside, the rest of /dev read-only, the host sees the write', async (t) => {
  const { findBwrap } = await import('../../src/node/sandbox/bwrap.js');
  const { bwrapSandbox } = await import('../../src/node/sandbox/index.js');
  const { existsSync, readFileSync } = await import('node:fs');
  const bwrap = findBwrap();
  if (!bwrap || !existsSync('/dev/shm')) {
    if (process.env.CI) assert.fail('CI has bwrap and /dev/shm');
    t.skip('no bwrap or no /dev/shm');
    return;
  }
  const root = realpathSync(mkdtempSync('/dev/shm/fb-binds-'));
  try {
    writeFileSync(join(root, 'in.txt'), 'copied\n');
    const result = await bwrapSandbox({ bwrapPath: bwrap }).run({
      argv: ['/bin/sh', '-c', 'cat in.txt > out.txt; touch /dev/shm/escape 2>/dev/null && echo wrote-dev-shm; touch /dev/escape 2>/dev/null && echo wrote-dev; echo done'],
      root,
      writableRoot: true,
      cwd: root,
      timeoutMs: 10_000,
      maxStdoutBytes: 4096,
      maxStderrBytes: 4096,
    });
    assert.equal(result.kind, 'exit');
    if (result.kind !== 'exit') return;
    assert.equal(new TextDecoder().decode(result.stdout), 'done\n', result.stderr);
    assert.equal(readFileSync(join(root, 'out.txt'), 'utf8'), 'copied\n');
    assert.equal(existsSync('/dev/shm/escape'), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
