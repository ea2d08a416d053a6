// Measures the WASI preview1 host candidates and prints the table the choice rests on.
//
//   node --import tsx test/bench/wasi-choice.ts [--runs N]
//
// Candidates: formatbox's own shim (src/formatters/wasi.ts), node:wasi, @bjorn3/browser_wasi_shim and
// @wasmer/wasi (devDependencies, measured only). Each correctness case runs in its own child process
// (a flood or a runaway in one candidate cannot take the bench down), on the modules of
// wasm/test/wasi (C with wasi-libc, and .wat). Speed: `cat.wasm` on 64 KiB of text, instantiate + run,
// median of N. Size: the minified esbuild bundle of a runner using the candidate (node:wasi: built in).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASI as NodeWASI } from 'node:wasi';
import { File, OpenFile, WASI as ShimWASI, Fd } from '@bjorn3/browser_wasi_shim';
import { init as wasmerInit, WASI as WasmerWASI } from '@wasmer/wasi';
import { build } from 'esbuild';
import { runWasiCommand } from '../../src/formatters/wasi.js';

type Candidate = 'own' | 'node:wasi' | 'browser_wasi_shim' | '@wasmer/wasi';
const CANDIDATES: Candidate[] = ['own', 'node:wasi', 'browser_wasi_shim', '@wasmer/wasi'];
const modules = new URL('../../wasm/test/wasi/', import.meta.url);
const OUTPUT_CAP = 8 * 1024 * 1024;

interface Run { code?: number; stdout: string; stderr: string; error?: string }

async function runWith(candidate: Candidate, name: string, args: string[], env: Record<string, string>, stdin: string): Promise<Run> {
  const module = new WebAssembly.Module(readFileSync(new URL(`${name}.wasm`, modules)));
  const input = new TextEncoder().encode(stdin);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  try {
    switch (candidate) {
      case 'own': {
        const r = runWasiCommand(module, { args: [name, ...args], env, stdin: input, maxStdoutBytes: OUTPUT_CAP });
        if (r.kind === 'exit') return { code: r.code, stdout: decode(r.stdout), stderr: r.stderr };
        return { stdout: '', stderr: r.stderr, error: r.kind === 'trap' ? r.message : `stopped at the ${r.limitBytes}-byte stdout cap` };
      }
      case 'node:wasi': {
        // node:wasi takes only real file descriptors for stdio.
        const dir = mkdtempSync(join(tmpdir(), 'wasi-bench-'));
        writeFileSync(join(dir, 'in'), input);
        const fds = [openSync(join(dir, 'in'), 'r'), openSync(join(dir, 'out'), 'w'), openSync(join(dir, 'err'), 'w')];
        try {
          const wasi = new NodeWASI({ version: 'preview1', args: [name, ...args], env, returnOnExit: true, stdin: fds[0], stdout: fds[1], stderr: fds[2] });
          const instance = new WebAssembly.Instance(module, wasi.getImportObject() as WebAssembly.Imports);
          const code = wasi.start(instance);
          return { code, stdout: readFileSync(join(dir, 'out'), 'utf8'), stderr: readFileSync(join(dir, 'err'), 'utf8') };
        } finally {
          fds.forEach((fd) => closeSync(fd));
          rmSync(dir, { recursive: true, force: true });
        }
      }
      case 'browser_wasi_shim': {
        const out = new OpenFile(new File([]));
        const err = new OpenFile(new File([]));
        const wasi = new ShimWASI([name, ...args], Object.entries(env).map(([k, v]) => `${k}=${v}`), [new OpenFile(new File(input)), out, err] as Fd[]);
        const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi.wasiImport });
        const code = wasi.start(instance as never);
        return { code, stdout: decode(out.file.data), stderr: decode(err.file.data) };
      }
      case '@wasmer/wasi': {
        await wasmerInit();
        const wasi = new WasmerWASI({ args: [name, ...args], env });
        wasi.setStdinBuffer(input);
        const instance = wasi.instantiate(module, {});
        const code = wasi.start(instance);
        return { code, stdout: wasi.getStdoutString(), stderr: wasi.getStderrString() };
      }
    }
  } catch (error) {
    return { stdout: '', stderr: '', error: String((error as Error)?.message ?? error).split('\n')[0]!.slice(0, 120) };
  }
}

interface Case { name: string; check: (r: Run) => string | true; module: string; args?: string[]; env?: Record<string, string>; stdin?: string }
const BIG = `${'héllo wörld ✓\t\r\n'.repeat(70000)}end`;
const CASES: Case[] = [
  { name: 'stdin→stdout 1 MB, non-ASCII', module: 'cat', stdin: BIG, check: (r) => (r.stdout === BIG && r.code === 0) || `got ${r.stdout.length} chars, code ${r.code}, ${r.error ?? ''}` },
  {
    name: 'args, env, clock, random; no files', module: 'probe', args: ['--x'], env: { A: 'b' },
    check: (r) => {
      if (r.error) return r.error;
      if (/OPENED/.test(r.stdout)) return `opened: ${r.stdout.match(/^.*OPENED.*$/gm)!.join('; ')}`;
      if (!/^arg --x$/m.test(r.stdout) || !/^env A=b$/m.test(r.stdout)) return 'args/env wrong';
      if (!/clock ok/.test(r.stdout) || !/random ok/.test(r.stdout)) return 'clock/random wrong';
      return true;
    },
  },
  { name: 'exit code 42 + stderr', module: 'exit', args: ['42'], check: (r) => (r.code === 42 && /exiting with 42/.test(r.stderr)) || `code ${r.code}, ${r.error ?? ''}` },
  { name: 'stdout flood is stopped', module: 'flood', check: (r) => (r.error !== undefined && /cap/.test(r.error)) || `not stopped: ${r.error ?? `code ${r.code}`}` },
  { name: 'foreign import refused', module: 'missing-import', check: (r) => (r.error !== undefined && /import|steal/i.test(r.error)) || `ran: ${r.error ?? r.code}` },
];

async function child(candidate: Candidate, caseIndex: number): Promise<void> {
  const c = CASES[caseIndex]!;
  const r = await runWith(candidate, c.module, c.args ?? [], c.env ?? {}, c.stdin ?? '');
  process.stdout.write(JSON.stringify({ verdict: c.check(r) }));
}

async function speed(candidate: Candidate, runs: number): Promise<number> {
  const text = 'x = 1\n'.repeat(11000);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const r = await runWith(candidate, 'cat', [], {}, text);
    times.push(performance.now() - started);
    if (r.stdout !== text) throw new Error(`${candidate}: wrong output`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function bundleBytes(candidate: Candidate): Promise<number> {
  if (candidate === 'node:wasi') return 0;
  const entry = {
    own: `export { runWasiCommand } from ${JSON.stringify(fileURLToPath(new URL('../../src/formatters/wasi.ts', import.meta.url)))};`,
    browser_wasi_shim: `export { WASI, File, OpenFile } from '@bjorn3/browser_wasi_shim';`,
    '@wasmer/wasi': `export { init, WASI } from '@wasmer/wasi';`,
  }[candidate];
  const result = await build({ stdin: { contents: entry, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, minify: true, format: 'esm', write: false, platform: 'neutral', mainFields: ['module', 'main'], logLevel: 'silent' });
  return result.outputFiles[0]!.contents.length;
}

const RUNTIMES: Record<Candidate, string> = {
  own: 'Node, Chromium, workerd, Deno (test/runtimes runs it)',
  'node:wasi': 'Node only (a node: module; stdio must be file descriptors)',
  browser_wasi_shim: 'all (plain JS); no stdout cap without a custom Fd',
  '@wasmer/wasi': 'Node, browsers; not workerd (compiles its inlined wasm from bytes at init)',
};

async function parent(runs: number): Promise<void> {
  console.log(`| candidate | correctness (${CASES.length} cases) | cat 64 KiB, median of ${runs} | bundle (minified) | runtimes |`);
  console.log('|---|---|---|---|---|');
  const self = fileURLToPath(import.meta.url);
  for (const candidate of CANDIDATES) {
    const failures: string[] = [];
    CASES.forEach((c, index) => {
      const out = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', candidate, String(index)], { encoding: 'utf8', timeout: 20000, maxBuffer: 64 * 1024 * 1024 });
      let verdict: string | true;
      try {
        // The last line: browser_wasi_shim logs to stdout (console.log) on its own.
        verdict = (JSON.parse(out.stdout.trim().split('\n').pop()!) as { verdict: string | true }).verdict;
      } catch {
        verdict = out.signal ? `killed (${out.signal}) after the 20 s limit` : `crashed: ${(out.stderr || '').split('\n').find((line) => /Error/.test(line)) ?? out.status}`;
      }
      if (verdict !== true) failures.push(`${c.name}: ${verdict}`);
    });
    const ms = await speed(candidate, runs);
    const bytes = await bundleBytes(candidate);
    const passed = CASES.length - failures.length;
    console.log(`| ${candidate} | ${passed}/${CASES.length}${failures.length ? ` (${failures.join('; ')})` : ''} | ${ms.toFixed(2)} ms | ${bytes ? `${(bytes / 1024).toFixed(1)} KiB` : 'built in'} | ${RUNTIMES[candidate]} |`);
  }
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') await child(argv[1] as Candidate, Number(argv[2]));
else await parent(Number(argv[argv.indexOf('--runs') + 1] ?? 50) || 50);
