#!/usr/bin/env node
// Builds formatbox with esbuild:
//   dist/index.js         universal entry (browser, Web Worker, workerd, Deno, Node); dependencies bundled.
//                         The build FAILS if anything in its graph imports a `node:` module or a Node builtin.
//   dist/node.js          formatbox/node (dependencies external, resolved from node_modules)
//   dist/format-worker.js the worker thread that hosts formatters for formatbox/node
//   dist/cli.js           the `formatbox` bin
//   dist/types/**         declarations (tsc --emitDeclarationOnly)
//   wasm/manifest.json    name, package, version, sha256 of every wasm module formatbox loads
import * as esbuild from 'esbuild';
import { builtinModules, createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];
const common = { bundle: true, format: 'esm', sourcemap: true, target: 'es2022', logLevel: 'warning', legalComments: 'none' };
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** Fails the universal build on any Node builtin in its import graph, naming the importer. */
export const forbidNodeBuiltins = {
  name: 'forbid-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      if (builtins.has(args.path) || args.path.startsWith('node:')) {
        return { errors: [{ text: `universal bundle must not import "${args.path}" (imported by ${args.importer})` }] };
      }
      return undefined;
    });
  },
};

/** Bundles the universal entry; rejects Node builtins anywhere in its graph. */
export function buildUniversal(entry, outfile, logLevel = 'warning') {
  return esbuild.build({
    ...common,
    entryPoints: [entry],
    outfile,
    logLevel,
    platform: 'neutral',
    mainFields: ['browser', 'module', 'main'],
    conditions: ['browser', 'import', 'default'],
    plugins: [forbidNodeBuiltins],
  });
}

async function main() {
  rmSync('dist', { recursive: true, force: true });
  mkdirSync('dist', { recursive: true });

  await buildUniversal('src/index.ts', 'dist/index.js');

  await esbuild.build({
    ...common,
    entryPoints: { node: 'src/node/index.ts', 'format-worker': 'src/node/format-worker.ts', 'trusted-prettier': 'src/node/trusted-prettier.ts', cli: 'src/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    external,
    banner: { js: "import { createRequire as __fbCreateRequire } from 'node:module'; const require = __fbCreateRequire(import.meta.url);" },
  });

  // The CLI needs a shebang; esbuild keeps the one in src/cli/main.ts.
  // The macOS sandbox profile is read next to the bundle (src/node/sandbox/sandbox-exec.ts).
  copyFileSync('src/node/sandbox/formatbox.sb', 'dist/formatbox.sb');

  // Wasm manifest: what the Node runtime loads from the installed packages, with hashes, so hosts
  // (browsers, workerd) can pin the exact modules. The bytes stay in their packages (no copies).
  const wasmAssets = [
    ['biome', '@biomejs/wasm-web', 'biome_wasm_bg.wasm'],
    ['ruff', '@astral-sh/ruff-wasm-web', 'ruff_wasm_bg.wasm'],
    ['ruff_fmt', '@wasm-fmt/ruff_fmt', 'ruff_fmt_bg.wasm'],
    ['gofmt', '@wasm-fmt/gofmt', 'gofmt.wasm'],
    ['clang-format', '@wasm-fmt/clang-format', 'clang-format.wasm'],
    ['toml', '@dprint/toml', 'plugin.wasm'],
    ['dprint-markdown', '@dprint/markdown', 'plugin.wasm'],
    ['dprint-json', '@dprint/json', 'plugin.wasm'],
  ];
  const manifest = [];
  for (const [name, pkgName, file] of wasmAssets) {
    let pkgJson;
    try {
      pkgJson = require.resolve(`${pkgName}/package.json`);
    } catch {
      continue;
    }
    const dir = pkgJson.slice(0, -'package.json'.length);
    const path = dir + file;
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path);
    manifest.push({
      name,
      package: pkgName,
      version: JSON.parse(readFileSync(pkgJson, 'utf8')).version,
      file,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  }
  writeFileSync('wasm/manifest.json', JSON.stringify(manifest, null, 2) + '\n');
  await (await import('./wasm/languages.mjs')).buildLanguageWasm('wasm/manifest.json'); // issue 14: editorconfig.wasm from C, language modules

  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (tsc.status !== 0) {
    console.error('type declarations failed');
    process.exit(1);
  }
  console.log('built dist/ (universal bundle has no node: imports)');
  }

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
