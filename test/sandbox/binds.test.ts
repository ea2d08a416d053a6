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
