#!/usr/bin/env node
// `npm run playground`: builds the playground into examples/playground/dist/ with esbuild (the page and
// its module Web Worker, code-split so Prettier's plugins and each wasm glue load on first use), copies
// every wasm module beside it, writes the service worker's app-shell list, and serves it.
//
//   node examples/playground/build.mjs [--serve] [--port <n>]
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, readFileSync, rmSync, writeFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WASM_ASSETS, shipWasm } from '../../build.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
export const PLAYGROUND_DIST = join(here, 'dist');

/** Builds the playground into `outdir`; returns the app-shell file list. */
export async function buildPlayground(outdir = PLAYGROUND_DIST) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: join(here, 'app.ts'), 'engine-worker': join(here, 'engine-worker.ts') },
    outdir,
    bundle: true,
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  shipWasm(WASM_ASSETS, join(outdir, 'wasm'));
  copyFileSync(join(here, 'index.html'), join(outdir, 'index.html'));
  // The shell: the page and all JS (small next to the wasm, which is cached when first used).
  const scripts = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js')).map((file) => `./${relative(outdir, resolve(file))}`);
  const shell = ['./', './index.html', ...scripts.sort()];
  const version = createHash('sha256').update(shell.map((file) => (file === './' ? '' : readFileSync(join(outdir, file)).toString('base64'))).join('\n')).digest('hex').slice(0, 12);
  writeFileSync(join(outdir, 'sw.js'), readFileSync(join(here, 'sw.js'), 'utf8').replace('__VERSION__', version).replace('__SHELL__', JSON.stringify(shell)));
  return shell;
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json' };

/** A static server for `dir` on 127.0.0.1 (`port` 0 = any); resolves to the server and its origin. */
export function servePlayground(dir = PLAYGROUND_DIST, port = 0) {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).replace(/\/$/, '/index.html');
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' }).end(readFileSync(file));
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const shell = await buildPlayground();
  console.log(`built ${PLAYGROUND_DIST} (${shell.length} app-shell files, ${WASM_ASSETS.length} wasm modules)`);
  if (process.argv.includes('--serve')) {
    const port = process.argv.includes('--port') ? Number(process.argv[process.argv.indexOf('--port') + 1]) : 8080;
    const { origin } = await servePlayground(PLAYGROUND_DIST, port);
    console.log(`formatbox playground: ${origin}/   (Ctrl-C to stop)`);
  }
}
