// The four wasm adapters (clang-format, gofmt, Ruff, TOML) run in workerd, the strictest host:
// wasm only as an imported WebAssembly.Module, no compile from bytes, no eval. Each adapter formats
// real files there and must give byte-identical results to the same adapter in Node.
// The worker is bundled with esbuild (the adapters' own sources) and run with `workerd test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clangFormatFormatter } from '../../src/formatters/clang-format/adapter.js';
import { gofmtFormatter } from '../../src/formatters/gofmt/adapter.js';
import { ruffFormatter } from '../../src/formatters/ruff/adapter.js';
import { tomlFormatter } from '../../src/formatters/toml/adapter.js';
import type { AdapterRequest, FormatterAdapter, WasmSource } from '../../src/core/types.js';
import { bundleForHost, resultsIn, runWorkerd } from '../runtimes/hosts.js';

const WORKERD = 'node_modules/.bin/workerd';
const skip = existsSync(WORKERD) || process.env['CI'] ? false : 'workerd is not installed';
if (skip) console.log(`# skipping the workerd run: ${skip}`);

const WASM = {
  ruff: 'node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm',
  gofmt: 'node_modules/@wasm-fmt/gofmt/gofmt.wasm',
  clang: 'node_modules/@wasm-fmt/clang-format/clang-format.wasm',
  toml: 'node_modules/@dprint/toml/plugin.wasm',
};

/** Real inputs, made messy where they are already formatted, plus one syntax error each. */
function inputs(): Array<{ adapter: keyof typeof WASM; request: AdapterRequest }> {
  const read = (file: string, fallback: string) => (existsSync(file) ? readFileSync(file, 'utf8') : fallback);
  const go = read('/usr/lib/go/src/sort/sort.go', 'package sort\nfunc f( ){}\n').replace(/\n\t+/g, '\n');
  const python = read('/usr/lib/python3.11/bisect.py', 'x=1\n');
  const c = read('/usr/share/doc/zlib1g-dev/examples/zpipe.c', 'int  x;\n');
  const toml = read('/usr/lib/google-cloud-sdk/platform/gsutil/third_party/urllib3/pyproject.toml', 'a=1\n').replace(/ = /g, '=');
  const request = (path: string, language: string, text: string, settings: Record<string, unknown> = {}): AdapterRequest => ({ path, language, text, settings });
  return [
    { adapter: 'ruff', request: request('lib/bisect.py', 'python', python, { 'line-length': 60, format: { 'quote-style': 'single' } }) },
    { adapter: 'ruff', request: request('lib/bad.py', 'python', 'def f(:\n') },
    { adapter: 'gofmt', request: request('sort/sort.go', 'go', go) },
    { adapter: 'gofmt', request: request('bad.go', 'go', 'package main\nfunc main({\n') },
    { adapter: 'clang', request: request('zpipe.c', 'c', c, { style: '{BasedOnStyle: Google, IndentWidth: 8}' }) },
    { adapter: 'clang', request: { ...request('range.c', 'c', 'int a(){return 1;}\nint b(){return 2;}\n'), range: { utf16Start: 20, utf16End: 25 } } },
    { adapter: 'toml', request: request('pyproject.toml', 'toml', toml, { indentWidth: 4 }) },
    { adapter: 'toml', request: request('bad.toml', 'toml', 'a = = 1\n') },
  ];
}

function adapters(wasm: Record<keyof typeof WASM, WasmSource>): Record<keyof typeof WASM, FormatterAdapter> {
  return {
    ruff: ruffFormatter({ wasm: wasm.ruff }),
    gofmt: gofmtFormatter({ wasm: wasm.gofmt }),
    clang: clangFormatFormatter({ wasm: wasm.clang }),
    toml: tomlFormatter({ wasm: wasm.toml }),
  };
}

// The worker: the same adapter factories, given the wasm modules workerd imports as WebAssembly.Module.
const WORKER_ENTRY = `
import ruff from './ruff.wasm';
import gofmt from './gofmt.wasm';
import clang from './clang.wasm';
import toml from './toml.wasm';
import inputsText from './inputs.txt';
import { ruffFormatter } from './src/formatters/ruff/adapter.ts';
import { gofmtFormatter } from './src/formatters/gofmt/adapter.ts';
import { clangFormatFormatter } from './src/formatters/clang-format/adapter.ts';
import { tomlFormatter } from './src/formatters/toml/adapter.ts';
export default {
  async test() {
    for (const m of [ruff, gofmt, clang, toml]) if (!(m instanceof WebAssembly.Module)) throw new Error('not a Module');
    const adapters = { ruff: ruffFormatter({ wasm: ruff }), gofmt: gofmtFormatter({ wasm: gofmt }), clang: clangFormatFormatter({ wasm: clang }), toml: tomlFormatter({ wasm: toml }) };
    const results = [];
    for (const { adapter, request } of JSON.parse(inputsText)) results.push(await adapters[adapter].format(request));
    const infos = {};
    for (const [name, adapter] of Object.entries(adapters)) infos[name] = await adapter.info();
    console.log('RESULTS ' + JSON.stringify({ results, infos }));
  },
};
`;

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .worker) ] );
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "ruff.wasm", wasm = embed "ruff.wasm"),
    (name = "gofmt.wasm", wasm = embed "gofmt.wasm"),
    (name = "clang.wasm", wasm = embed "clang.wasm"),
    (name = "toml.wasm", wasm = embed "toml.wasm"),
    (name = "inputs.txt", text = embed "inputs.json"),
  ],
  compatibilityDate = "2024-09-01",
);
`;

test('the Ruff, gofmt, clang-format and TOML adapters give the same results in workerd as in Node', { skip, timeout: 300_000 }, async () => {
  const cases = inputs();
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-workerd-'));
  try {
    await bundleForHost(WORKER_ENTRY, join(dir, 'worker.js'), { conditions: ['browser', 'worker'], external: ['./*.wasm', './inputs.txt'] });
    for (const [name, file] of Object.entries(WASM)) copyFileSync(file, join(dir, `${name}.wasm`));
    writeFileSync(join(dir, 'inputs.json'), JSON.stringify(cases));
    writeFileSync(join(dir, 'config.capnp'), CONFIG);
    const inWorkerd = resultsIn<{ results: unknown[]; infos: Record<string, unknown> }>(runWorkerd(dir));

    const inNode = adapters({
      ruff: readFileSync(WASM.ruff),
      gofmt: readFileSync(WASM.gofmt),
      clang: readFileSync(WASM.clang),
      toml: readFileSync(WASM.toml),
    });
    for (const [index, { adapter, request }] of cases.entries()) {
      const expected = await inNode[adapter].format(request);
      assert.deepEqual(inWorkerd.results[index], expected, `${adapter} ${request.path}`);
    }
    for (const [name, adapter] of Object.entries(inNode)) assert.deepEqual(inWorkerd.infos[name], await adapter.info(), name);
    // The cases really exercised formatting and errors.
    const kinds = inWorkerd.results.map((r) => (r as { kind: string }).kind);
    assert.deepEqual(kinds, ['ok', 'error', 'ok', 'error', 'ok', 'ok', 'ok', 'error']);
    assert.notEqual((inWorkerd.results[2] as { text: string }).text, cases[2]!.request.text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
