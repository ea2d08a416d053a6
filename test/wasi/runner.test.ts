// The WASI preview1 runner (src/formatters/wasi.ts) on its own test modules (wasm/test/wasi: C built
// with Debian's clang + wasi-libc, and hand-written .wat), in this thread: everything that ends on its
// own. Modules that never end (loop, grow) are stopped by the Node worker in test/wasi/node.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { capModuleMemory, loadCapped, runWasiCommand, wasiFormatter, type WasiRunResult } from '../../src/formatters/wasi.js';

const dir = new URL('../../wasm/test/wasi/', import.meta.url);
const bytes = (name: string) => new Uint8Array(readFileSync(new URL(`${name}.wasm`, dir)));
const MiB = 1024 * 1024;

async function run(name: string, options: { args?: string[]; env?: Record<string, string>; stdin?: string; maxStdoutBytes?: number; memoryMaxBytes?: number } = {}): Promise<WasiRunResult> {
  const loaded = await loadCapped(bytes(name), options.memoryMaxBytes ?? 64 * MiB, name);
  assert.ok('module' in loaded, JSON.stringify(loaded));
  return runWasiCommand(loaded.module, {
    args: [name, ...(options.args ?? [])],
    env: options.env ?? {},
    stdin: new TextEncoder().encode(options.stdin ?? ''),
    maxStdoutBytes: options.maxStdoutBytes ?? 16 * MiB,
  });
}

const stdoutOf = (result: WasiRunResult) => {
  assert.equal(result.kind, 'exit', JSON.stringify(result));
  return new TextDecoder().decode((result as { stdout: Uint8Array }).stdout);
};

test('stdin reaches stdout byte for byte, including multi-chunk and non-ASCII input', async () => {
  const input = `${'héllo wörld, ✓ \t\r\n'.repeat(20000)}end`;
  const result = await run('cat', { stdin: input });
  assert.equal(stdoutOf(result), input);
  assert.equal((result as { code: number }).code, 0);
});

test('a probe sees no file, no directory and no environment beyond what the config lists; clock and random work', async () => {
  const out = stdoutOf(await run('probe', { args: ['--flag', 'x y'], env: { FORMAT_STYLE: 'tight' } }));
  assert.doesNotMatch(out, /OPENED/);
  assert.match(out, /open \/etc\/passwd: denied/);
  assert.match(out, /open README\.md: denied/);
  assert.match(out, /opendir \.: denied/);
  assert.match(out, /create: denied/);
  assert.match(out, /^arg probe$/m);
  assert.match(out, /^arg --flag$/m);
  assert.match(out, /^arg x y$/m);
  assert.deepEqual(out.match(/^env .*$/gm), ['env FORMAT_STYLE=tight']);
  assert.match(out, /HOME=\(none\)/);
  assert.match(out, /clock ok/);
  assert.match(out, /random ok/);
});

test('exit codes: 0, 1, 42, 255 and a negative one are reported with stderr', async () => {
  for (const [arg, code] of [['0', 0], ['1', 1], ['42', 42], ['255', 255], ['-1', -1]] as const) {
    const result = await run('exit', { args: [arg] });
    assert.equal(result.kind, 'exit');
    assert.equal((result as { code: number }).code, code, arg);
    assert.match((result as { stderr: string }).stderr, new RegExp(`exiting with ${arg}`));
  }
  const adapter = wasiFormatter({ wasm: bytes('exit'), name: 'exit', info: { name: 'exit.wasm', version: 'test' }, languages: ['text'], args: ['42'] });
  const failed = await adapter.format({ path: 'a.txt', language: 'text', text: 'x', settings: {} });
  assert.deepEqual(failed, { kind: 'error', message: 'exiting with 42', exitCode: 42 });
});

test('a module flooding stdout is stopped at the output cap', async () => {
  const result = await run('flood', { maxStdoutBytes: 4 * MiB });
  assert.deepEqual(result, { kind: 'output-limit', limitBytes: 4 * MiB, stderr: '' });
  const adapter = wasiFormatter({ wasm: bytes('flood'), name: 'flood', info: { name: 'flood.wasm', version: 'test' }, languages: ['text'] });
  const answer = await adapter.format({ path: 'a.txt', language: 'text', text: 'x', settings: {} });
  assert.equal(answer.kind, 'error');
  assert.match((answer as { message: string }).message, /wrote more than 1048580 bytes to stdout and was stopped/);
});

test('memory is capped at instantiation: memory.grow is refused at the cap, malloc fails cleanly', async () => {
  const refused = await run('grow-until-refused', { memoryMaxBytes: 32 * MiB });
  assert.equal(refused.kind, 'exit');
  assert.equal((refused as { code: number }).code, 7);
  const alloc = await run('alloc', { memoryMaxBytes: 48 * MiB });
  assert.equal((alloc as { code: number }).code, 3);
  const got = Number(/allocated (\d+) MiB/.exec(stdoutOf(alloc))![1]);
  assert.ok(got > 30 && got < 48, `allocated ${got} MiB under a 48 MiB cap`);
  // The rewrite sets a maximum on a module that declared none.
  const capped = capModuleMemory(bytes('grow'), 16 * MiB);
  assert.ok(capped.ok);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(capped.bytes as Uint8Array<ArrayBuffer>), {});
  const memory = instance.exports.memory as WebAssembly.Memory;
  assert.equal(memory.grow(255), 1);
  assert.throws(() => memory.grow(1), RangeError);
});

test('refused before running: missing imports, an imported memory, a 4 GiB initial memory, not wasm', async () => {
  const cases: Array<[string, RegExp]> = [
    ['missing-import', /imports env\.steal_secrets \(function\), which a WASI formatter does not get/],
    ['imported-memory', /imports a memory \(env\.memory\)/],
    ['huge-initial', /needs 4095.9 MiB of memory at start; the cap is 64 MiB/],
  ];
  for (const [name, reason] of cases) {
    const loaded = await loadCapped(bytes(name), 64 * MiB, `${name}.wasm`);
    assert.ok('refused' in loaded, name);
    assert.match(loaded.refused, reason);
    const adapter = wasiFormatter({ wasm: bytes(name), name, info: { name: `${name}.wasm`, version: 'test' }, languages: ['text'], memoryMaxBytes: 64 * MiB });
    const answer = await adapter.format({ path: 'a.txt', language: 'text', text: 'x', settings: {} });
    assert.equal(answer.kind, 'refused', name);
  }
  const notWasm = await loadCapped(new TextEncoder().encode('#!/bin/sh\nrm -rf /\n'), 64 * MiB, 'fmt.wasm');
  assert.deepEqual(notWasm, { refused: 'fmt.wasm is not run: not a WebAssembly module' });
});

test('a trap is an error value naming the module', async () => {
  const adapter = wasiFormatter({ wasm: bytes('trap'), name: 'trap', info: { name: 'trap.wasm', version: 'test' }, languages: ['text'] });
  const answer = await adapter.format({ path: 'a.txt', language: 'text', text: 'x', settings: {} });
  assert.equal(answer.kind, 'error');
  assert.match((answer as { message: string }).message, /^trap\.wasm trapped: unreachable/);
});
