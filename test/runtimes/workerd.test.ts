// The whole universal engine in workerd (the Cloudflare Workers runtime), the strictest host: wasm
// only as imported WebAssembly.Module values, no compiling bytes at run time, no eval. Every built-in
// formatter, the shared cases of test/runtimes/cases.ts, receipts byte-identical to Node's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_WASM, resolvePackageFile } from '../../src/node/builtins.js';
import { BUILTIN_WASM_FILES } from '../../src/formatters/builtins.js';
import { bundleForHost, nodeReceipts, resultsIn, runWorkerd } from './hosts.js';

const WORKERD = 'node_modules/.bin/workerd';
const skip = existsSync(WORKERD) || process.env['CI'] ? false : 'workerd is not installed';
if (skip) console.log(`# skipping the workerd run: ${skip}`);

const NAMES = Object.keys(BUILTIN_WASM_FILES);
const ident = (name: string) => name.replace(/[^a-z]/g, '_');

const WORKER_ENTRY = `
${NAMES.map((name) => `import ${ident(name)} from './${name}.wasm';`).join('\n')}
import { createEngine, createFormatters } from './src/index.ts';
import { runCases } from './test/runtimes/cases.ts';
export default {
  async test() {
    const wasm = { ${NAMES.map((name) => `'${name}': ${ident(name)}`).join(', ')} };
    for (const m of Object.values(wasm)) if (!(m instanceof WebAssembly.Module)) throw new Error('not a Module');
    const results = await runCases({ createEngine }, () => createFormatters(wasm));
    console.log('RESULTS ' + JSON.stringify(results));
  },
};
`;

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
${NAMES.map((name) => `    (name = "${name}.wasm", wasm = embed "${name}.wasm"),`).join('\n')}
  ],
  compatibilityDate = "2024-09-01",
);
`;

test('workerd: the whole engine with every built-in formatter gives Node\'s receipts', { skip, timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-workerd-engine-'));
  try {
    await bundleForHost(WORKER_ENTRY, join(dir, 'worker.js'), { conditions: ['browser', 'worker'], external: ['./*.wasm'] });
    for (const name of NAMES) copyFileSync(resolvePackageFile(BUILTIN_WASM[name]!), join(dir, `${name}.wasm`));
    writeFileSync(join(dir, 'config.capnp'), CONFIG);
    const inWorkerd = resultsIn<unknown[]>(runWorkerd(dir));
    const inNode = await nodeReceipts();
    assert.deepEqual(inWorkerd, inNode);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
