#!/usr/bin/env node
// Builds wasm/editorconfig/editorconfig.wasm from editorconfig.c with Debian's clang, lld and
// wasi-libc (packages clang lld wasi-libc libclang-rt-14-dev-wasm32), reproducibly: no debug info,
// names stripped, source paths mapped, a fixed 64 MiB memory maximum.
//   node wasm/editorconfig/build.mjs [--check]   (--check: build to a temp file and compare)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const EDITORCONFIG_WASM = join(here, 'editorconfig.wasm');
export const MEMORY_MAX_BYTES = 64 * 1024 * 1024;
/** The normaliser's own version (`#define VERSION` in editorconfig.c): the manifest's version of the module. */
export const EDITORCONFIG_VERSION = /#define VERSION "([^"]+)"/.exec(readFileSync(join(here, 'editorconfig.c'), 'utf8'))[1];

/**
 * Compiled and linked in two clang calls. Linked in one call with -O2, clang's wasm driver also runs
 * any binaryen `wasm-opt` it finds on the machine, so the bytes would depend on what else is
 * installed; a link command without -O never runs it.
 */
const COMPILE_ARGS = ['--target=wasm32-wasi', '--sysroot=/usr', '-O2', '-std=c11', '-Wall', '-Werror', `-ffile-prefix-map=${here}=.`, '-fno-ident'];
const LINK_ARGS = ['--target=wasm32-wasi', '--sysroot=/usr', '-Wl,--strip-all', `-Wl,--max-memory=${MEMORY_MAX_BYTES}`];

/** Builds to `output`; returns its sha256, or throws with clang's message. */
export function buildEditorconfigWasm(output = EDITORCONFIG_WASM) {
  const objectDir = mkdtempSync(join(tmpdir(), 'editorconfig-obj-'));
  try {
    const object = join(objectDir, 'editorconfig.o');
    clang([...COMPILE_ARGS, '-c', '-o', object, join(here, 'editorconfig.c')]);
    clang([...LINK_ARGS, '-o', output, object]);
  } finally {
    rmSync(objectDir, { recursive: true, force: true });
  }
  return createHash('sha256').update(readFileSync(output)).digest('hex');
}

function clang(args) {
  const result = spawnSync('clang', args, { encoding: 'utf8' });
  if (result.error) throw new Error(`clang is not installed (apt-get install clang lld wasi-libc libclang-rt-14-dev-wasm32): ${result.error.message}`);
  if (result.status !== 0) throw new Error(`clang failed:\n${result.stderr}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const dir = mkdtempSync(join(tmpdir(), 'editorconfig-wasm-'));
    try {
      const built = buildEditorconfigWasm(join(dir, 'editorconfig.wasm'));
      const committed = createHash('sha256').update(readFileSync(EDITORCONFIG_WASM)).digest('hex');
      console.log(built === committed ? `reproducible: ${built}` : `DIFFERENT: built ${built}, committed ${committed}`);
      process.exit(built === committed ? 0 : 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    console.log(`built ${EDITORCONFIG_WASM}: sha256 ${buildEditorconfigWasm()}`);
  }
}
