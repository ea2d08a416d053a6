#!/usr/bin/env node
// `npm run worker:build`: bundles edge.js, edge-biome.js and full.js with esbuild, as wrangler would
// (ES module worker, `workerd`/`worker`/`browser` conditions, wasm imports kept as separate
// CompiledWasm modules), into dist/edge/, dist/edge-biome/ and dist/full/: worker.js, the .wasm files
// (without their custom sections), a workerd config.capnp, a wrangler.toml (no_bundle), and
// sizes.json (raw and gzip per module, summed as wrangler measures).
//
//   node examples/worker/build.mjs [--from <dir with edge.js, edge-biome.js, full.js, serve.js>] [--out <dir>]
//
// 'formatbox' resolves as a package: the repository itself (npm run build first) or an installed one.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

export const PROFILES = ['edge', 'edge-biome', 'full'];
/** Gzip bytes summed per module: Workers' free-plan limit for edge, the paid plan's for the others. */
export const GZIP_LIMITS = { edge: 3e6, 'edge-biome': 10e6, full: 10e6 };

/** The profiles that leave Prettier's optional parsers and the shipped plugins out. */
const LEAN_PROFILES = new Set(['edge', 'edge-biome']);

/**
 * Prettier's optional parsers (used only when a project sets `parser` to one of them, or Markdown embeds
 * Flow; angular and glimmer stay, Prettier's embed step needs them for HTML, Vue and TS) and formatbox's
 * shipped Prettier plugins (used only when a project's config lists them: XML, Svelte), left out of the
 * edge profile: workerd compiles every listed module when the isolate starts, so each chunk costs
 * start time even if never imported. A project asking for one gets an `unsupported` receipt saying so.
 */
export const EDGE_OMITTED_PRETTIER_PLUGINS = ['acorn', 'flow', 'meriyah', 'prettier-plugin-xml', 'prettier-plugin-svelte'];

/** Resolves the omitted plugins (by package path, or by their chunk name in formatbox's dist/) to an empty plugin. */
function omitPrettierPlugins(names) {
  const pattern = new RegExp(`^(?:prettier/plugins/(${names.join('|')})|(?:.*/)?(${names.join('|')})-[A-Z0-9]{8}\\.js)$`);
  return {
    name: 'omit-prettier-plugins',
    setup(build) {
      build.onResolve({ filter: pattern }, (args) => ({ path: args.path, namespace: 'omitted-prettier-plugin' }));
      build.onLoad({ filter: /.*/, namespace: 'omitted-prettier-plugin' }, () => ({
        contents: 'export const parsers = {}; export const formatboxOmitted = true;',
        loader: 'js',
      }));
    },
  };
}

/**
 * The module without its custom sections (section id 0: `name`, `producers`, `target_features`):
 * debug names and build metadata that no instruction reads. Every other section is copied byte for
 * byte, in order, so the code, data and exports are the official build's. Biome's `name` section is
 * 3.4 MB (0.65 MB gzip).
 */
export function withoutCustomSections(bytes) {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100) throw new Error('not a wasm module');
  const kept = [bytes.subarray(0, 8)];
  let offset = 8;
  while (offset < bytes.length) {
    const start = offset;
    const id = bytes[offset++];
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[offset++];
      if (byte === undefined || shift > 28) throw new Error(`malformed section size at byte ${start}`);
      size += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) break;
    }
    const end = offset + size;
    if (end > bytes.length) throw new Error(`section at byte ${start} runs past the end`);
    if (id !== 0) kept.push(bytes.subarray(start, end));
    offset = end;
  }
  return Buffer.concat(kept);
}

/** Keeps every `*.wasm` import as its own module next to worker.js, as Workers require. */
function wasmModules(outdir, copied) {
  return {
    name: 'wasm-modules',
    setup(build) {
      build.onResolve({ filter: /\.wasm$/ }, async (args) => {
        if (args.pluginData === 'wasm-modules') return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'wasm-modules' });
        if (found.errors.length > 0) return { errors: found.errors };
        const name = basename(found.path);
        writeFileSync(join(outdir, name), withoutCustomSections(readFileSync(found.path)));
        copied.push(name);
        return { path: `./${name}`, external: true };
      });
    },
  };
}

/** A workerd config serving worker.js, its chunks (ES modules) and wasm modules on `address`. */
export function workerdConfig(wasmNames, chunks = [], address = '127.0.0.1:8787') {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "${address}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
${chunks.map((name) => `    (name = "${name}", esModule = embed "${name}"),`).join('\n')}
${wasmNames.map((name) => `    (name = "${name}", wasm = embed "${name}"),`).join('\n')}
  ],
  compatibilityDate = "2024-09-01",
);
`;
}

/** Bundles one profile into `outdir`; returns its sizes. */
export async function buildProfile(entry, outdir, profile) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const wasm = [];
  const result = await esbuild.build({
    entryPoints: { worker: entry },
    outdir,
    // Prettier's plugins stay separate modules, imported on first use: the isolate does not parse them at start.
    splitting: true,
    chunkNames: '[name]-[hash]',
    metafile: true,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['browser', 'module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    plugins: [wasmModules(outdir, wasm), ...(LEAN_PROFILES.has(profile) ? [omitPrettierPlugins(EDGE_OMITTED_PRETTIER_PLUGINS)] : [])],
    logLevel: 'warning',
    legalComments: 'none',
  });
  const chunks = Object.keys(result.metafile.outputs).map((file) => basename(file)).filter((name) => name !== 'worker.js');
  writeFileSync(join(outdir, 'config.capnp'), workerdConfig(wasm, chunks));
  writeFileSync(
    join(outdir, 'wrangler.toml'),
    `name = "formatbox-${profile}"\nmain = "worker.js"\ncompatibility_date = "2024-09-01"\nno_bundle = true\n\n[[rules]]\ntype = "CompiledWasm"\nglobs = ["**/*.wasm"]\n\n[[rules]]\ntype = "ESModule"\nglobs = ["**/*.js"]\n`,
  );
  const modules = ['worker.js', ...chunks, ...wasm].map((name) => {
    const bytes = readFileSync(join(outdir, name));
    return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sizes = { profile, modules, raw: sum(modules, 'raw'), gzip: sum(modules, 'gzip'), gzipLimit: GZIP_LIMITS[profile] };
  writeFileSync(join(outdir, 'sizes.json'), JSON.stringify(sizes, null, 2) + '\n');
  return sizes;
}

function sum(rows, key) {
  return rows.reduce((total, row) => total + row[key], 0);
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? resolve(args[args.indexOf(name) + 1]) : fallback);
  const here = fileURLToPath(new URL('.', import.meta.url));
  const from = option('--from', here);
  const out = option('--out', join(from, 'dist'));
  for (const profile of PROFILES) {
    const sizes = await buildProfile(join(from, `${profile}.js`), join(out, profile), profile);
    const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
    const verdict = sizes.gzip <= sizes.gzipLimit ? 'within' : 'OVER';
    console.log(`${profile}: ${mb(sizes.raw)} raw, ${mb(sizes.gzip)} gzip summed over ${sizes.modules.length} modules (${verdict} the ${mb(sizes.gzipLimit)} goal) → ${join(out, profile)}`);
    for (const m of sizes.modules) console.log(`  ${m.name.padEnd(22)} ${mb(m.raw).padStart(9)} raw ${mb(m.gzip).padStart(9)} gzip`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--from') && !existsSync(fileURLToPath(new URL('../../dist/core.js', import.meta.url)))) {
    console.error('dist/ is missing: run `npm run build` first (the examples import the built package).');
    process.exit(1);
  }
  await main();
}
