// The wasm modules of issue 14's languages, for build.mjs (one hook line, after the manifest is written):
//   - builds wasm/editorconfig/editorconfig.wasm from C (wasm/editorconfig/build.mjs) when clang is
//     installed, and checks it is byte-identical to the committed file (the build is reproducible);
//   - adds every module these formatters load to wasm/manifest.json, in its existing format.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EDITORCONFIG_WASM } from './editorconfig/build.mjs';

const require = createRequire(import.meta.url);

/** [manifest name, package, file in the package] of the modules loaded from npm packages. */
export const LANGUAGE_WASM_ASSETS = [
  ['dprint-dockerfile', '@dprint/dockerfile', 'plugin.wasm'],
  ['sh-syntax', 'sh-syntax', 'main.wasm'],
  ['stylua', '@johnnymorganz/stylua', 'stylua_lib_bg.wasm'],
  ['sql_fmt', '@wasm-fmt/sql_fmt', 'sql_fmt_bg.wasm'],
];

function entryFor(name, pkg, version, file, path) {
  const bytes = readFileSync(path);
  return { name, package: pkg, version, file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export async function buildLanguageWasm(manifestPath = 'wasm/manifest.json') {
  if (spawnSync('clang', ['--version']).status === 0) {
    const check = spawnSync(process.execPath, [fileURLToPath(new URL('./editorconfig/build.mjs', import.meta.url)), '--check'], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`wasm/editorconfig: ${check.stdout}${check.stderr}`);
  } else {
    console.warn('clang is not installed: using the committed wasm/editorconfig/editorconfig.wasm as it is');
  }
  const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : [];
  const added = [];
  for (const [name, pkg, file] of LANGUAGE_WASM_ASSETS) {
    const pkgJson = require.resolve(`${pkg}/package.json`);
    added.push(entryFor(name, pkg, JSON.parse(readFileSync(pkgJson, 'utf8')).version, file, pkgJson.slice(0, -'package.json'.length) + file));
  }
  const version = /#define VERSION "([^"]+)"/.exec(readFileSync(new URL('./editorconfig/editorconfig.c', import.meta.url), 'utf8'))[1];
  added.push(entryFor('editorconfig', 'formatbox', version, 'wasm/editorconfig/editorconfig.wasm', EDITORCONFIG_WASM));
  const names = new Set(added.map((entry) => entry.name));
  writeFileSync(manifestPath, `${JSON.stringify([...manifest.filter((entry) => !names.has(entry.name)), ...added], null, 2)}\n`);
}
