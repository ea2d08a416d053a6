#!/usr/bin/env node
// Builds formatbox with esbuild:
//   dist/index.js, dist/core.js, dist/<formatter>.js
//                         universal entries (browser, Web Worker, workerd, Deno, Node), bundled together
//                         with code splitting: shared code and every lazily loaded part (Prettier's
//                         plugins, wasm glue) are chunks under dist/chunks/, fetched only when used.
//                         The build FAILS if anything in their graph imports a `node:` module or a Node builtin.
//   dist/node.js          formatbox/node (dependencies external, resolved from node_modules)
//   dist/format-worker.js the worker thread that hosts formatters for formatbox/node
//   dist/cli.js           the `formatbox` bin: a thin entry (daemon client); dist/cli-{main,local,mcp,mcp-tools}.js load on demand
//   dist/types/**         declarations (tsc --emitDeclarationOnly)
//   wasm/*.wasm           every wasm module the built-ins load, copied from its package under the name
//                         the code expects (BUILTIN_WASM_FILES); not committed. editorconfig.wasm comes
//                         from wasm/editorconfig/ (committed, built from C; the build checks it first)
//   wasm/manifest.json    name, package, version, file, bytes, sha256 and export names of each
//   src/formatters/wasm-identity.ts   the same identity for the load-time check (rewritten when it changes)
// Then it prints raw, gzip and brotli sizes per entry and per profile.
import * as esbuild from 'esbuild';
import { builtinModules, createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { EDITORCONFIG_VERSION } from './wasm/editorconfig/build.mjs';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];
/**
 * Small pure-JS config parsers bundled into the Node bundles rather than imported from node_modules:
 * resolving and linking them as separate packages cost ~30 ms of every CLI start (a cached
 * `formatbox format` run is ~60 ms of work).
 */
const BUNDLED_IN_NODE = new Set(['json5', 'jsonc-parser', 'picomatch', 'smol-toml', 'yaml']); // yaml: a lazy stub (lazyYaml)
/** The agent SDKs the adapters plug into are the user's own (optional peer dependencies): never bundled. */
const peers = Object.keys(pkg.peerDependencies ?? {});
const nodeExternal = [...external.filter((name) => !BUNDLED_IN_NODE.has(name)), ...peers];
const common = { bundle: true, format: 'esm', sourcemap: true, target: 'es2022', logLevel: 'warning', legalComments: 'none' };
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/**
 * The formatters, as src/formatters/registry.ts lists them (read through tsx: the build runs before
 * anything is compiled). Each declares its wasm assets; its folder's entry.ts is a universal entry,
 * its builtin.ts its built-in adapters.
 */
const { tsImport } = await import('tsx/esm/api');
const { MODULES } = await tsImport('./src/formatters/derived.ts', import.meta.url);

/**
 * Every wasm module formatbox ships, from each formatter's declaration: `name` is its key in
 * BUILTIN_WASM_FILES, `source` the file inside `package`, `file` the name it is published under in
 * wasm/ (the dprint plugins are all plugin.wasm). One of package `formatbox` is built here from C
 * (wasm/editorconfig/build.mjs, checked reproducible before it is shipped); its version is its own.
 */
export const WASM_ASSETS = MODULES.flatMap((module) => module.wasm.map((asset) => ({ ...asset })));

/** Universal entries (package subpath → source): the engine, one per formatter (so an app imports only what it uses), the WASI runner. */
export const UNIVERSAL_ENTRIES = {
  index: 'src/index.ts',
  core: 'src/entries/core.ts',
  ...Object.fromEntries(MODULES.filter((module) => existsSync(`src/formatters/${module.id}/entry.ts`)).map((module) => [module.id, `src/formatters/${module.id}/entry.ts`])),
  wasi: 'src/entries/wasi.ts',
  'ai-sdk': 'src/agents/ai-sdk/index.ts',
  'openai-agents': 'src/agents/openai-agents/index.ts',
};

/** Agent SDK adapters that run in Node (package subpath → source): the SDK hosts a Node process. */
export const NODE_AGENT_ENTRIES = {
  'claude-agent-sdk': 'src/agents/claude-agent-sdk/index.ts',
  mastra: 'src/agents/mastra/index.ts',
};

/**
 * What package.json's `exports`, `typesVersions` and `files` must say for these entries and assets
 * (package.json is static JSON: the build checks it, `--write-exports` writes it).
 */
export function packageShape(entries = UNIVERSAL_ENTRIES, assets = WASM_ASSETS) {
  const typesOf = (source) => `dist/types/${source.slice('src/'.length).replace(/\.ts$/, '.d.ts')}`;
  const exports = { '.': { types: './dist/types/index.d.ts', default: './dist/index.js' } };
  const typesVersions = {};
  const subpaths = { ...Object.fromEntries(Object.entries(entries).filter(([name]) => name !== 'index')), node: 'src/node/index.ts', ...NODE_AGENT_ENTRIES };
  for (const [name, source] of Object.entries(subpaths)) {
    exports[`./${name}`] = { types: `./${typesOf(source)}`, default: `./dist/${name}.js` };
    typesVersions[name] = [typesOf(source)];
  }
  Object.assign(exports, {
    './opencode': { types: './dist/types/agents/opencode/plugin.d.ts', default: './dist/opencode-plugin.js' },
    './server': './dist/opencode-plugin.js',
    './wasm/manifest.json': './wasm/manifest.json',
    './wasm/*': './wasm/*',
    './package.json': './package.json',
  });
  // Modules built here (wasm/editorconfig/) ship once, as the copy in wasm/ the code reads; their source directory stays out.
  const files = ['dist', '!dist/**/*.map', 'wasm/*.wasm', 'wasm/manifest.json', 'README.md'];
  return { exports, typesVersions: { '*': typesVersions }, files };
}

/**
 * The text of src/formatters/builtin-adapters.ts: every registered folder's builtin.ts, in registry
 * order. A written file rather than a field of the declaration, so that only createFormatters' graph
 * (formatbox, formatbox/node) imports adapters, never the engine's (formatbox/core).
 */
export function builtinAdaptersSource(modules = MODULES) {
  const withBuiltins = modules.filter((module) => existsSync(`src/formatters/${module.id}/builtin.ts`));
  const local = (module) => `${module.id.replace(/-(\w)/g, (_, c) => c.toUpperCase())}Builtins`;
  return `// Written by build.mjs from src/formatters/registry.ts (each folder's builtin.ts). Do not edit: run \`node build.mjs --write-exports\`.
import type { BuiltinFactory } from './module.js';
${withBuiltins.map((module) => `import { builtins as ${local(module)} } from './${module.id}/builtin.js';`).join('\n')}

/** Each registered formatter's built-in adapters, in registry order. */
export const BUILTIN_FACTORIES: readonly BuiltinFactory[] = [${withBuiltins.map(local).join(', ')}];
`;
}

/**
 * Fails unless what is derived from the registry is up to date: package.json's exports, typesVersions
 * and files, and src/formatters/builtin-adapters.ts. With `write`, writes them instead (package.json's
 * other keys untouched). Returns what differed.
 */
export function checkPackageShape(path = 'package.json', write = false, shape = packageShape(), builtinsPath = 'src/formatters/builtin-adapters.ts') {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const differing = Object.keys(shape).filter((key) => JSON.stringify(json[key]) !== JSON.stringify(shape[key]));
  const builtins = builtinAdaptersSource();
  const builtinsStale = !existsSync(builtinsPath) || readFileSync(builtinsPath, 'utf8') !== builtins;
  const stale = [...differing.map((key) => `${path} ${key}`), ...(builtinsStale ? [builtinsPath] : [])];
  if (stale.length === 0) return stale;
  if (!write) {
    throw new Error(`${stale.join(', ')}: not what src/formatters/registry.ts implies; run \`node build.mjs --write-exports\`${differing.length ? ` (${path} should say ${JSON.stringify(Object.fromEntries(differing.map((key) => [key, shape[key]])))})` : ''}`);
  }
  if (differing.length) writeFileSync(path, JSON.stringify({ ...json, ...shape }, null, 2) + '\n');
  if (builtinsStale) writeFileSync(builtinsPath, builtins);
  console.log(`updated ${stale.join(', ')} from src/formatters/registry.ts: commit it`);
  return stale;
}

/** Node-only entries (dependencies external). */
export const NODE_ENTRIES = {
  node: 'src/node/index.ts',
  'format-worker': 'src/node/format-worker.ts',
  'trusted-prettier': 'src/node/trusted-prettier.ts',
  'pinned-prettier': 'src/node/pinned-prettier.ts',
  'pinned-biome': 'src/node/pinned-biome.ts',
  'pinned-ruff': 'src/node/pinned-ruff.ts',
  'pinned-dprint': 'src/node/pinned-dprint.ts',
  cli: 'src/cli/entry.ts',
  'cli-main': 'src/cli/main.ts',
  'cli-local': 'src/cli/local.ts',
  'cli-mcp': 'src/cli/mcp.ts',
  'cli-mcp-tools': 'src/cli/mcp-tools.ts',
  'cli-format-main': 'src/cli/format-main.ts',
  'cli-runtime': 'src/node/runtime.ts',
  'opencode-plugin': 'src/agents/opencode/plugin.ts',
  ...NODE_AGENT_ENTRIES,
  'shipped-prettier-plugin-xml': 'src/formatters/shipped/prettier-plugin-xml.ts',
  'shipped-prettier-plugin-svelte': 'src/formatters/shipped/prettier-plugin-svelte.ts',
  'shipped-prettier-plugin-php': 'src/node/shipped/prettier-plugin-php.ts',
  'shipped-prettier-plugin-java': 'src/node/shipped/prettier-plugin-java.ts',
};

/**
 * What an app of each kind ships: universal entries (with their chunks, lazy ones included) plus wasm
 * files. The worker profiles (examples/worker/) are measured as built by `npm run worker:build`.
 */
export const PROFILES = {
  'biome-only app': { entries: ['core', 'biome'], wasm: ['biome'] },
  'prettier-only app': { entries: ['core', 'prettier'], wasm: [] },
  'edge (Prettier, ruff_fmt, gofmt, TOML)': { entries: ['core', 'prettier', 'ruff', 'gofmt', 'toml'], wasm: ['ruff_fmt', 'gofmt', 'toml'] },
  'full (edge + Biome, official Ruff)': { entries: ['core', 'prettier', 'biome', 'ruff', 'gofmt', 'toml'], wasm: ['ruff_fmt', 'gofmt', 'toml', 'biome', 'ruff'] },
  'everything (formatbox)': { entries: ['index'], wasm: WASM_ASSETS.map((asset) => asset.name) },
};

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

/**
 * The bin (dist/cli.js) is a thin entry: a dynamic import of main, local or mcp stays a separate
 * file (dist/cli-<name>.js) loaded only when needed, so a hooked edit loads no formatter and no engine.
 */
const cliChunks = {
  name: 'cli-chunks',
  setup(build) {
    build.onResolve({ filter: /^\.\/(main|local|mcp|mcp-tools|format-main)\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: `./cli-${args.path.slice(2, -3)}.js`, external: true } : undefined,
    );
    // formatTree starts a runtime only for files the cache and native Biome leave: a separate file.
    build.onResolve({ filter: /^\.\.\/runtime\.js$/ }, (args) => (args.kind === 'dynamic-import' && /[\\/]src[\\/]node[\\/]project[\\/]/.test(args.importer) ? { path: './cli-runtime.js', external: true } : undefined));
  },
};

/**
 * YAML is parsed only for a YAML config file (.prettierrc.yaml, .clang-format, …), yet the parser is
 * 40% of the CLI's format bundle: in the Node bundles `yaml` is a stub that requires the package on
 * the first parse (a project without YAML config never loads it).
 */
const lazyYaml = {
  name: 'lazy-yaml',
  setup(build) {
    // The stub's own require stays a runtime require of the package.
    build.onResolve({ filter: /^yaml$/ }, (args) => (args.namespace === 'lazy-yaml' ? { path: 'yaml', external: true } : { path: 'yaml', namespace: 'lazy-yaml' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-yaml' }, () => ({
      contents: "let yaml; export function parseDocument(...args) { yaml ??= require('yaml'); return yaml.parseDocument(...args); }",
      loader: 'js',
    }));
  },
};

/**
 * The shipped Prettier plugins stay lazy in the Node bundles: each is its own entry
 * (dist/shipped-<name>.js) imported when a file needs it. Bundled in, esbuild would hoist the
 * plugin package (an external) to a static import that every worker start pays for (~100 ms).
 */
const lazyShippedPlugins = {
  name: 'lazy-shipped-plugins',
  setup(build) {
    build.onResolve({ filter: /^\.\/shipped\/[\w-]+\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: `./shipped-${args.path.slice('./shipped/'.length)}`, external: true } : undefined,
    );
  },
};

const universalOptions = {
  ...common,
  platform: 'neutral',
  mainFields: ['browser', 'module', 'main'],
  conditions: ['browser', 'import', 'default'],
  external: peers,
  plugins: [forbidNodeBuiltins],
};

/** Bundles one universal entry into one file; rejects Node builtins anywhere in its graph. */
export function buildUniversal(entry, outfile, logLevel = 'warning') {
  return esbuild.build({ ...universalOptions, entryPoints: [entry], outfile, logLevel });
}

/** Bundles every universal entry with code splitting (lazy `import()`s become chunks); returns the metafile. */
export async function buildUniversalEntries(entries, outdir) {
  const result = await esbuild.build({ ...universalOptions, entryPoints: entries, outdir, splitting: true, chunkNames: 'chunks/[name]-[hash]', metafile: true });
  return result.metafile;
}

/**
 * Checks that the committed wasm/editorconfig/editorconfig.wasm is what its C source builds to (the
 * build is reproducible), so the module shipped and identified next is the one the source says. Needs
 * Debian's clang, lld and wasi-libc; without clang the committed module is shipped as it is.
 */
export function checkBuiltWasm() {
  if (spawnSync('clang', ['--version']).status !== 0) {
    console.warn('clang is not installed: shipping the committed wasm/editorconfig/editorconfig.wasm unchecked');
    return;
  }
  const check = spawnSync(process.execPath, ['wasm/editorconfig/build.mjs', '--check'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`wasm/editorconfig/editorconfig.wasm is not what editorconfig.c builds to (run node wasm/editorconfig/build.mjs): ${check.stdout}${check.stderr}`);
}

/**
 * Copies each asset's wasm from its installed package into `dir`; the manifest entries. An asset of
 * package `formatbox` is built in this repository: `source` is relative to it.
 */
export function shipWasm(assets, dir) {
  mkdirSync(dir, { recursive: true });
  return assets.map((asset) => {
    const pkgJson = asset.package === 'formatbox' ? `${process.cwd()}/package.json` : require.resolve(`${asset.package}/package.json`, { paths: [process.cwd()] });
    const from = pkgJson.slice(0, -'package.json'.length) + asset.source;
    if (!existsSync(from)) throw new Error(`${asset.package} has no ${asset.source}`);
    const bytes = readFileSync(from);
    copyFileSync(from, `${dir}/${asset.file}`);
    return {
      name: asset.name,
      package: asset.package,
      version: asset.version ?? JSON.parse(readFileSync(pkgJson, 'utf8')).version,
      file: asset.file,
      source: asset.source,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      exports: WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((entry) => entry.name),
    };
  });
}

/** Writes the identity table the universal code checks modules against, when it changed. */
export function writeIdentity(manifest, path) {
  const identity = Object.fromEntries(manifest.map((m) => [m.name, { file: m.file, package: m.package, version: m.version, bytes: m.bytes, exports: m.exports }]));
  const text = `// Written by build.mjs from the installed wasm packages (the same data as wasm/manifest.json). Do not edit.
import type { WasmIdentity } from '../core/wasm.js';

/** Size and export names of every built-in wasm module, checked when it loads. */
export const BUILTIN_WASM_IDENTITY: Readonly<Record<string, WasmIdentity>> = ${JSON.stringify(identity, null, 2)};
`;
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return false;
  writeFileSync(path, text);
  console.log(`updated ${path} (the wasm packages changed): commit it`);
  return true;
}

/** Raw, gzip and brotli byte counts of some buffers, summed per file (as a CDN or wrangler compresses them). */
export function sizesOf(buffers) {
  const total = { raw: 0, gzip: 0, brotli: 0 };
  for (const buffer of buffers) {
    total.raw += buffer.length;
    total.gzip += gzipSync(buffer, { level: 9 }).length;
    total.brotli += brotliCompressSync(buffer, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: buffer.length } }).length;
  }
  return total;
}

/** Output files an entry loads: eagerly (static imports) and in all (with its lazy chunks). */
export function closureOf(metafile, outfile) {
  const eager = new Set();
  const all = new Set();
  const walk = (file, lazyToo, into) => {
    if (into.has(file)) return;
    into.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (imported.external) continue;
      if (imported.kind === 'dynamic-import' && !lazyToo) continue;
      walk(imported.path, lazyToo, into);
    }
  };
  walk(outfile, false, eager);
  walk(outfile, true, all);
  return { eager: [...eager], all: [...all] };
}

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const row = (label, s) => `  ${label.padEnd(44)} ${mb(s.raw).padStart(9)} raw ${mb(s.gzip).padStart(9)} gzip ${mb(s.brotli).padStart(9)} brotli`;

/** Prints what each entry ships eagerly and with every lazy chunk, and what each profile ships. */
export function printSizes(metafile, outdir, manifest) {
  const cache = new Map();
  const sized = (files) => {
    const total = { raw: 0, gzip: 0, brotli: 0 };
    for (const file of files) {
      if (!cache.has(file)) cache.set(file, sizesOf([readFileSync(file)]));
      const s = cache.get(file);
      total.raw += s.raw;
      total.gzip += s.gzip;
      total.brotli += s.brotli;
    }
    return total;
  };
  console.log('sizes per entry (JS only; eager = loaded on import, all = with every lazy chunk):');
  const outputsOf = (names) => new Set(names.flatMap((name) => closureOf(metafile, `${outdir}/${name}.js`).all));
  for (const name of Object.keys(UNIVERSAL_ENTRIES)) {
    const { eager, all } = closureOf(metafile, `${outdir}/${name}.js`);
    console.log(row(`formatbox${name === 'index' ? '' : `/${name}`} eager`, sized(eager)));
    console.log(row(`formatbox${name === 'index' ? '' : `/${name}`} all`, sized(all)));
  }
  console.log('sizes per profile (JS with lazy chunks + wasm):');
  for (const [label, profile] of Object.entries(PROFILES)) {
    const wasmFiles = profile.wasm.map((name) => `wasm/${manifest.find((m) => m.name === name).file}`);
    console.log(row(label, sized([...outputsOf(profile.entries), ...wasmFiles])));
  }
}

/**
 * The Node-side bundles (formatbox/node, the format worker, trusted-mode Prettier, the CLI) into
 * `outdir`. The CLI tests build their own copy with it, so a concurrent `npm run build` cannot pull
 * dist/ away from under them.
 */
export async function buildNode(outdir) {
  await esbuild.build({
    ...common,
    entryPoints: NODE_ENTRIES,
    outdir,
    platform: 'node',
    external: nodeExternal,
    // jsonc-parser's `main` is a UMD build whose lazy requires a bundler cannot follow; its ESM build is plain.
    mainFields: ['module', 'main'],
    plugins: [cliChunks, lazyShippedPlugins, lazyYaml],
    banner: { js: "import { createRequire as __fbCreateRequire } from 'node:module'; const require = __fbCreateRequire(import.meta.url);" },
  });

  // The CLI needs a shebang; esbuild keeps the one in src/cli/entry.ts.
  // The macOS sandbox profile is read next to the bundle (src/node/sandbox/sandbox-exec.ts).
  copyFileSync('src/node/sandbox/formatbox.sb', `${outdir}/formatbox.sb`);
}

async function main() {
  const write = process.argv.includes('--write-exports');
  checkPackageShape('package.json', write);
  if (process.argv.includes('--check-exports')) return;
  const editorconfig = WASM_ASSETS.find((asset) => asset.name === 'editorconfig');
  if (editorconfig?.version !== EDITORCONFIG_VERSION) throw new Error(`src/formatters/editorconfig/index.ts says version ${editorconfig?.version}, editorconfig.c ${EDITORCONFIG_VERSION}`);
  rmSync('dist', { recursive: true, force: true });
  mkdirSync('dist', { recursive: true });

  // First the wasm and its identity table: the universal entries bundle that table. The one module
  // built here (the EditorConfig normaliser) is checked against its source before it is copied.
  checkBuiltWasm();
  const manifest = shipWasm(WASM_ASSETS, 'wasm');
  writeFileSync('wasm/manifest.json', JSON.stringify(manifest, null, 2) + '\n');
  writeIdentity(manifest, 'src/formatters/wasm-identity.ts');

  const metafile = await buildUniversalEntries(UNIVERSAL_ENTRIES, 'dist');

  await buildNode('dist');

  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (tsc.status !== 0) {
    console.error('type declarations failed');
    process.exit(1);
  }
  if (!process.argv.includes('--no-sizes')) printSizes(metafile, 'dist', manifest);
  console.log('built dist/ and wasm/ (universal entries have no node: imports)');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
