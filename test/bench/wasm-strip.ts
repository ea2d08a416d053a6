/**
 * How small can the official Biome and Ruff wasm builds get when only their format path is kept?
 * formatbox calls a few of their exports (Biome: open/update/format/close and syntax diagnostics; Ruff:
 * `new Workspace` and `format`). This drops every other wasm-bindgen export and lets binaryen remove
 * what no kept export reaches (`wasm-opt --remove-unused-module-elements --strip-debug`), then
 * measures gzip, and asks why the rest stays:
 * - the indirect-call table: how many functions and code bytes it holds, and how many functions stay
 *   reachable when a `call_indirect` of signature T is taken to reach every table entry of type T (the
 *   sound static bound; read from `wasm-dis` text);
 * - a bound no runnable build reaches: the same module with its table emptied, so only direct calls
 *   from the kept exports count.
 * Then it checks that the stripped builds format exactly as the unmodified official ones on real code
 * (JS/TS/JSON/CSS from node_modules for Biome, the Python standard library for Ruff), failures too,
 * and, for Biome, measures a build with only the code that sample ran (not shippable: it traps on
 * code no sample reached, counted on a held-out sample).
 *
 *   node --import tsx test/bench/wasm-strip.ts [--files N] [--builds biome,ruff] [--no-oz]
 *   (about 10 minutes; -Oz on Biome takes 6 of them)
 *
 * Needs binaryen's `wasm-opt` and `wasm-dis` on PATH (Debian: `apt-get install binaryen`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { nodeModulesSources } from './corpus.js';
import { recordResult } from './report.js';
import { withoutCustomSections } from '../../examples/worker/build.mjs';

const args = process.argv.slice(2);
const FILES = args.includes('--files') ? Number(args[args.indexOf('--files') + 1]) : 400;
const OZ = !args.includes('--no-oz');
const ONLY = args.includes('--builds') ? args[args.indexOf('--builds') + 1]!.split(',') : undefined;
const root = process.cwd();
const FEATURES = ['--enable-bulk-memory', '--enable-mutable-globals', '--enable-sign-ext', '--enable-nontrapping-float-to-int', '--enable-reference-types', '--enable-multivalue'];

/** wasm-bindgen's own exports, which every glue needs. */
const BINDGEN = ['memory', '__wbindgen_malloc', '__wbindgen_realloc', '__wbindgen_exn_store', '__externref_table_alloc', '__wbindgen_externrefs', '__wbindgen_free', '__externref_table_dealloc', '__wbindgen_start'];
const BUILDS = {
  biome: {
    file: 'node_modules/@biomejs/wasm-web/biome_wasm_bg.wasm',
    // What src/formatters/biome/adapter.ts calls.
    keep: [...BINDGEN, 'main', '__wbg_memoryfilesystem_free', '__wbg_workspace_free', 'memoryfilesystem_insert', 'memoryfilesystem_new', 'memoryfilesystem_remove', 'workspace_new', 'workspace_withFileSystem', 'workspace_openProject', 'workspace_updateSettings', 'workspace_fileFeatures', 'workspace_openFile', 'workspace_formatFile', 'workspace_formatRange', 'workspace_closeFile', 'workspace_pullDiagnostics'],
  },
  ruff: {
    file: 'node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm',
    // What src/formatters/ruff/adapter.ts calls.
    keep: [...BINDGEN, 'run', '__wbg_workspace_free', 'workspace_new', 'workspace_format', 'workspace_version'],
  },
} as const;

function leb(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[offset++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, offset];
  }
}
function encodeLeb(value: number): Buffer {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return Buffer.from(out);
}
/** Each section as [id, start of its contents, end], in order. */
function sections(bytes: Buffer): Array<[number, number, number]> {
  const found: Array<[number, number, number]> = [];
  let offset = 8;
  while (offset < bytes.length) {
    const id = bytes[offset++]!;
    let size;
    [size, offset] = leb(bytes, offset);
    found.push([id, offset, offset + size]);
    offset += size;
  }
  return found;
}

/** The module with only the named exports kept (every other section byte for byte). */
function keepExports(bytes: Buffer, keep: readonly string[]): Buffer {
  const parts = [bytes.subarray(0, 8)];
  let start = 8;
  for (const [id, from, end] of sections(bytes)) {
    if (id !== 7) {
      parts.push(bytes.subarray(start, end));
    } else {
      let [count, at] = leb(bytes, from);
      const kept: Buffer[] = [];
      for (; count > 0; count--) {
        const entry = at;
        let length;
        [length, at] = leb(bytes, at);
        const name = bytes.subarray(at, at + length).toString();
        at = leb(bytes, at + length + 1)[1];
        if (keep.includes(name)) kept.push(bytes.subarray(entry, at));
      }
      const body = Buffer.concat([encodeLeb(kept.length), ...kept]);
      parts.push(Buffer.from([7]), encodeLeb(body.length), body);
    }
    start = end;
  }
  return Buffer.concat(parts);
}

/** Each table's element type byte (0x70 funcref, 0x6f externref), in index order; imported tables first. */
function tableTypes(bytes: Buffer): number[] {
  const types: number[] = [];
  for (const [id, from] of sections(bytes)) {
    if (id === 2) {
      for (const { kind, tableType } of importsIn(bytes, from)) if (kind === 1) types.push(tableType!);
    } else if (id === 4) {
      let [count, at] = leb(bytes, from);
      for (; count > 0; count--) {
        types.push(bytes[at++]!);
        const flags = bytes[at++]!;
        at = leb(bytes, at)[1];
        if (flags & 1) at = leb(bytes, at)[1];
      }
    }
  }
  return types;
}

/** The import section's entries (from its contents' start): each one's kind, and a table's element type. */
function importsIn(bytes: Buffer, from: number): Array<{ kind: number; tableType?: number }> {
  const found: Array<{ kind: number; tableType?: number }> = [];
  let [count, at] = leb(bytes, from);
  for (; count > 0; count--) {
    at = leb(bytes, at)[0] + leb(bytes, at)[1]; // module name
    at = leb(bytes, at)[0] + leb(bytes, at)[1]; // field name
    const kind = bytes[at++]!;
    found.push(kind === 1 ? { kind, tableType: bytes[at]! } : { kind });
    at = skipImportDescription(bytes, kind, at);
  }
  return found;
}

function skipImportDescription(bytes: Buffer, kind: number, at: number): number {
  if (kind === 0) return leb(bytes, at)[1];
  if (kind === 1) at++;
  if (kind === 1 || kind === 2) {
    const flags = bytes[at++]!;
    at = leb(bytes, at)[1];
    return flags & 1 ? leb(bytes, at)[1] : at;
  }
  return at + 2; // a global: value type and mutability
}

/**
 * binaryen 108 writes a table export with the wrong table index when a module has a funcref and an
 * externref table (wasm-bindgen's `__wbindgen_externrefs` comes out pointing at the function table,
 * and the glue's `table.grow` then fails). Points each table export of `written` back at the table
 * of the element type it had in `original` (one table per element type in these builds).
 */
function withTableExportsOf(original: Buffer, written: Buffer): Buffer {
  const exportedType = new Map<string, number>();
  const originalTypes = tableTypes(original);
  forEachExport(original, (name, kind, index) => {
    if (kind === 1) exportedType.set(name, originalTypes[index]!);
  });
  const writtenTypes = tableTypes(written);
  const parts = [written.subarray(0, 8)];
  let start = 8;
  for (const [id, , end] of sections(written)) {
    if (id !== 7) parts.push(written.subarray(start, end));
    else {
      const entries: Buffer[] = [];
      forEachExport(written, (name, kind, index) => {
        const type = exportedType.get(name);
        const fixed = kind === 1 && type !== undefined ? writtenTypes.indexOf(type) : index;
        if (fixed < 0) throw new Error(`no table of type ${type} for export ${name}`);
        const encoded = Buffer.from(name);
        entries.push(Buffer.concat([encodeLeb(encoded.length), encoded, Buffer.from([kind]), encodeLeb(fixed)]));
      });
      const body = Buffer.concat([encodeLeb(entries.length), ...entries]);
      parts.push(Buffer.from([7]), encodeLeb(body.length), body);
    }
    start = end;
  }
  return Buffer.concat(parts);
}

function forEachExport(bytes: Buffer, visit: (name: string, kind: number, index: number) => void): void {
  for (const [id, from] of sections(bytes)) {
    if (id !== 7) continue;
    let [count, at] = leb(bytes, from);
    for (; count > 0; count--) {
      let length;
      [length, at] = leb(bytes, at);
      const name = bytes.subarray(at, at + length).toString();
      const kind = bytes[at + length]!;
      let index;
      [index, at] = leb(bytes, at + length + 1);
      visit(name, kind, index);
    }
  }
}

/** The module with its element section emptied: only direct calls keep a function alive (not runnable). */
function withoutTable(bytes: Buffer): Buffer {
  const parts = [bytes.subarray(0, 8)];
  let start = 8;
  for (const [id, , end] of sections(bytes)) {
    parts.push(id === 9 ? Buffer.from([9, 1, 0]) : bytes.subarray(start, end));
    start = end;
  }
  return Buffer.concat(parts);
}

/** Function-body sizes (defined functions, in order) and the table's function indices. */
function tableFigures(bytes: Buffer): { functions: number; codeBytes: number; tableFunctions: number; tableCodeBytes: number } {
  let imported = 0;
  const bodySizes: number[] = [];
  const table = new Set<number>();
  for (const [id, from] of sections(bytes)) {
    if (id === 2) {
      imported = importsIn(bytes, from).filter(({ kind }) => kind === 0).length;
    } else if (id === 9) {
      let [segments, at] = leb(bytes, from);
      for (; segments > 0; segments--) {
        const [flags, next] = leb(bytes, at);
        if (flags !== 0) throw new Error(`element segment kind ${flags} is not read here`);
        at = next;
        while (bytes[at++] !== 0x0b); // the offset expression, up to its `end`
        let count;
        [count, at] = leb(bytes, at);
        for (; count > 0; count--) {
          let index;
          [index, at] = leb(bytes, at);
          table.add(index);
        }
      }
    } else if (id === 10) {
      let [count, at] = leb(bytes, from);
      for (; count > 0; count--) {
        let size;
        [size, at] = leb(bytes, at);
        bodySizes.push(size);
        at += size;
      }
    }
  }
  let tableCodeBytes = 0;
  for (const index of table) tableCodeBytes += bodySizes[index - imported] ?? 0;
  return { functions: bodySizes.length, codeBytes: bodySizes.reduce((a, b) => a + b, 0), tableFunctions: table.size, tableCodeBytes };
}

/**
 * Functions reachable from the exports and the start function when a `call_indirect` of signature T
 * may reach every table entry of signature T (binaryen's text, streamed from wasm-dis).
 */
async function typeReachable(file: string): Promise<{ defined: number; reachable: number; tableSignatures: number; signaturesCalled: number }> {
  const dis = spawn('wasm-dis', [file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const signatureOf = new Map<string, string>();
  const typeSignature = new Map<string, string>();
  const direct = new Map<string, Set<string>>();
  const indirect = new Map<string, Set<string>>();
  const roots: string[] = [];
  let table: string[] = [];
  let current: Set<string> | undefined;
  let currentIndirect: Set<string> | undefined;
  const signature = (text: string, named: boolean) => {
    const params = [...text.matchAll(named ? /\(param \$\S+ (\S+)\)/g : /\(param ([^)]*)\)/g)].flatMap((m) => m[1]!.trim().split(/\s+/));
    const results = [...text.matchAll(/\(result ([^)]*)\)/g)].flatMap((m) => m[1]!.trim().split(/\s+/));
    return `${params.join(',')}=>${results.join(',')}`;
  };
  for await (const line of createInterface({ input: dis.stdout, crlfDelay: Infinity })) {
    let m;
    if ((m = /^ \(type \$(\S+) \(func(.*)\)\)$/.exec(line))) typeSignature.set(m[1]!, signature(m[2]!, false));
    else if ((m = /^ \(func \$(\S+)(.*)$/.exec(line))) {
      signatureOf.set(m[1]!, signature(m[2]!, true));
      direct.set(m[1]!, (current = new Set()));
      indirect.set(m[1]!, (currentIndirect = new Set()));
    } else if ((m = /^ \(elem .* func (.*)\)$/.exec(line))) table = m[1]!.split(' ').map((name) => name.slice(1));
    else if ((m = /^ \(export "[^"]+" \(func \$(\S+)\)\)/.exec(line)) || (m = /^ \(start \$(\S+)\)/.exec(line))) roots.push(m[1]!);
    else if (current) {
      for (const call of line.matchAll(/\((?:return_)?call \$(\S+)|\(ref\.func \$(\S+)/g)) current.add((call[1] ?? call[2])!);
      for (const call of line.matchAll(/\((?:return_)?call_indirect \$\S+ \(type \$(\S+)\)/g)) currentIndirect!.add(typeSignature.get(call[1]!) ?? call[1]!);
    }
  }
  const tableBySignature = new Map<string, string[]>();
  for (const name of table) {
    const key = signatureOf.get(name) ?? '?';
    tableBySignature.set(key, [...(tableBySignature.get(key) ?? []), name]);
  }
  const seen = new Set<string>();
  const called = new Set<string>();
  const work = [...roots];
  while (work.length > 0) {
    const name = work.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    work.push(...(direct.get(name) ?? []));
    for (const key of indirect.get(name) ?? []) {
      if (called.has(key)) continue;
      called.add(key);
      work.push(...(tableBySignature.get(key) ?? []));
    }
  }
  return { defined: direct.size, reachable: [...seen].filter((name) => direct.has(name)).length, tableSignatures: tableBySignature.size, signaturesCalled: [...called].filter((key) => tableBySignature.has(key)).length };
}

function wasmOpt(input: Buffer, dir: string, name: string, passes = ['--remove-unused-module-elements']): Buffer {
  const from = join(dir, `${name}.in.wasm`);
  const to = join(dir, `${name}.out.wasm`);
  writeFileSync(from, input);
  const run = spawnSync('wasm-opt', [...FEATURES, '--strip-debug', '--strip-producers', ...passes, from, '-o', to], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) throw new Error(`wasm-opt: ${run.stderr}`);
  return withTableExportsOf(input, readFileSync(to));
}

const gzip = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;
const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;

/** Two instances of one wasm-bindgen web glue (a query string makes a new module instance), one per build. */
async function glue<T>(file: string, tag: string, wasm: Buffer): Promise<T> {
  const module = (await import(`${pathToFileURL(join(root, file)).href}?${tag}`)) as { default(options: { module_or_path: Buffer }): Promise<unknown> } & T;
  await module.default({ module_or_path: wasm });
  return module;
}

interface BiomeGlue {
  Workspace: new () => {
    openProject(p: object): { projectKey: number };
    updateSettings(p: object): void;
    openFile(p: object): void;
    formatFile(p: object): { code: string };
    pullDiagnostics(p: object): { diagnostics: Array<{ description?: string }> };
    closeFile(p: object): void;
    free(): void;
  };
}
interface RuffGlue {
  Workspace: new (options: object, encoding: number) => { format(text: string): string };
  PositionEncoding: { Utf16: number };
}

/** What a call gives, as text: its result, or its error's message (a wasm trap or a panic included). */
function outcome(call: () => string): string {
  try {
    return `ok ${call()}`;
  } catch (error) {
    return `error ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** `count` paths spread evenly, each `offset` (0–1) of the way into its step. */
function sample(paths: string[], count: number, offset = 0): string[] {
  const step = Math.max(1, Math.floor(paths.length / count));
  return paths.filter((_, index) => index % step === Math.floor(offset * step)).slice(0, count);
}

function walk(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (stats?.isDirectory() && name !== '.bin') walk(full, keep, out);
    else if (stats?.isFile() && stats.size > 0 && stats.size <= 100_000 && keep(name)) out.push(full);
  }
  return out;
}

/** A spread sample of real Biome inputs from node_modules (JS/TS, JSON, CSS), starting `offset` (0–1) into each step, plus broken ones. */
function biomeInputs(offset: number): Array<[string, string]> {
  const nodeModules = join(root, 'node_modules');
  const scripts = sample(nodeModulesSources(nodeModules).map((path) => join(nodeModules, path)), FILES, offset);
  const others = sample(walk(nodeModules, (name) => /\.(json|css|graphql|gql)$/.test(name)), Math.ceil(FILES / 4), offset);
  // Broken inputs must fail the same way.
  const broken = [['broken.ts', 'const a = ;\nlet   b = 1\n'], ['broken.json', '{"a": 1,,}'], ['broken.css', 'a { color: red; '], ['huge.js', 'x'.repeat(2_000_000)]] satisfies [string, string][];
  return [...[...scripts, ...others].map((path): [string, string] => [path.slice(nodeModules.length + 1), readFileSync(path, 'utf8')]), ...broken];
}

/** Each input's outcome (code, or error and syntax diagnostics) from one build, as formatbox's adapter calls it. */
function biomeOutcomes(build: BiomeGlue, inputs: Array<[string, string]>): string[] {
  const workspace = new build.Workspace();
  const { projectKey } = workspace.openProject({ path: '/repo', openUninitialized: true });
  workspace.updateSettings({ projectKey, configuration: { formatter: { indentStyle: 'space' } }, workspaceDirectory: '/repo' });
  const outcomes = inputs.map(([name, text]) => {
    const path = `/repo/${name}`;
    return outcome(() => {
      workspace.openFile({ projectKey, path, content: { type: 'fromClient', content: text, version: 0 } });
      try {
        try {
          return workspace.formatFile({ projectKey, path }).code;
        } catch (error) {
          const diagnostics = workspace.pullDiagnostics({ projectKey, path, categories: ['syntax'], only: [], skip: [] }).diagnostics;
          throw new Error(`${String(error)} | ${diagnostics.map((d) => d.description).join(' | ')}`);
        }
      } finally {
        workspace.closeFile({ projectKey, path });
      }
    });
  });
  // Freed here, not by the glue's finalizer, where a trap (code the coverage cut removed) would be uncaught.
  outcome(() => (workspace.free(), ''));
  return outcomes;
}

const BIOME_GLUE = 'node_modules/@biomejs/wasm-web/biome_wasm.js';

async function biomeAgreement(official: Buffer, stripped: Buffer): Promise<{ files: number; same: number; failed: number; kinds: string }> {
  const inputs = biomeInputs(0);
  const [expected, got] = [biomeOutcomes(await glue<BiomeGlue>(BIOME_GLUE, 'official', official), inputs), biomeOutcomes(await glue<BiomeGlue>(BIOME_GLUE, 'stripped', stripped), inputs)];
  let same = 0;
  const kinds = new Map<string, number>();
  inputs.forEach(([name], index) => {
    if (expected[index] === got[index]) same++;
    else console.log(`  biome differs: ${name}`);
    const kind = name.slice(name.lastIndexOf('.'));
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  });
  return { files: inputs.length, same, failed: expected.filter((result) => result.startsWith('error')).length, kinds: [...kinds].map(([kind, count]) => `${kind} ${count}`).join(', ') };
}

/**
 * What keeping only the code the corpus runs would give (not a build anyone may ship: code no sample
 * ran traps). binaryen's `--log-execution` build of the stripped module records which functions run
 * on the agreement sample; every other function body becomes `unreachable`; the result is measured
 * and then run on a held-out sample (the files between the first sample's) against the official build.
 */
async function biomeCoverageCut(official: Buffer, stripped: Buffer, dir: string): Promise<{ ran: number; functions: number; codeBytes: number; keptCodeBytes: number; gzip: number; heldOut: number; same: number; trapped: number }> {
  const logged = wasmOpt(stripped, dir, 'biome-logged', ['--log-execution']);
  writeFileSync(join(dir, 'biome-logged.wasm'), logged);
  // Which function each log id is in: the ids follow `(call $<the log import> (i32.const id))` in the text.
  const owner: number[] = [];
  const dis = spawn('wasm-dis', [join(dir, 'biome-logged.wasm')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let current = -1;
  let logImport = '';
  let logCall = false;
  for await (const line of createInterface({ input: dis.stdout, crlfDelay: Infinity })) {
    let m;
    if ((m = /^ \(func \$(\d+)/.exec(line))) current = Number(m[1]);
    else if ((m = /^ \(import "env" "log_execution" \(func (\$\S+)/.exec(line))) logImport = `(call ${m[1]}`;
    else if (logImport && line.trim() === logImport) logCall = true;
    else if (logCall && (m = /^\s*\(i32\.const (\d+)\)/.exec(line))) {
      owner[Number(m[1])] = current;
      logCall = false;
    } else logCall = false;
  }
  const ran = new Set<number>();
  const instantiate = WebAssembly.instantiate;
  const withLog = (source: BufferSource, imports?: WebAssembly.Imports) => instantiate(source, { ...imports, env: { log_execution: (id: number) => void ran.add(owner[id]!) } });
  (WebAssembly as { instantiate: unknown }).instantiate = withLog;
  try {
    biomeOutcomes(await glue<BiomeGlue>(BIOME_GLUE, 'logged', logged), biomeInputs(0));
  } finally {
    (WebAssembly as { instantiate: unknown }).instantiate = instantiate;
  }
  // The stripped module with every body that did not run replaced by `unreachable` (no locals).
  const parts = [stripped.subarray(0, 8)];
  let start = 8;
  let functions = 0;
  let codeBytes = 0;
  let keptCodeBytes = 0;
  for (const [id, from, end] of sections(stripped)) {
    if (id !== 10) parts.push(stripped.subarray(start, end));
    else {
      let [count, at] = leb(stripped, from);
      const bodies = [encodeLeb(count)];
      for (let index = 0; index < count; index++) {
        const [size, body] = leb(stripped, at);
        functions++;
        codeBytes += size;
        if (ran.has(index)) {
          bodies.push(stripped.subarray(at, body + size));
          keptCodeBytes += size;
        } else bodies.push(Buffer.from([3, 0, 0x00, 0x0b]));
        at = body + size;
      }
      const body = Buffer.concat(bodies);
      parts.push(Buffer.from([10]), encodeLeb(body.length), body);
    }
    start = end;
  }
  const cut = Buffer.concat(parts);
  const heldOut = biomeInputs(0.5);
  const expected = biomeOutcomes(await glue<BiomeGlue>(BIOME_GLUE, 'official-held-out', official), heldOut);
  const got = biomeOutcomes(await glue<BiomeGlue>(BIOME_GLUE, 'cut', cut), heldOut);
  const same = got.filter((result, index) => result === expected[index]).length;
  const trapped = got.filter((result, index) => result !== expected[index] && /unreachable/.test(result)).length;
  return { ran: ran.size, functions, codeBytes, keptCodeBytes, gzip: gzip(cut), heldOut: heldOut.length, same, trapped };
}

async function ruffAgreement(official: Buffer, stripped: Buffer): Promise<{ files: number; same: number; failed: number }> {
  const file = 'node_modules/@astral-sh/ruff-wasm-web/ruff_wasm.js';
  const builds = [await glue<RuffGlue>(file, 'official', official), await glue<RuffGlue>(file, 'stripped', stripped)];
  const stdlib = readdirSync('/usr/lib').filter((name) => /^python3\.\d+$/.test(name)).map((name) => join('/usr/lib', name))[0];
  const sources = stdlib ? sample(walk(stdlib, (name) => name.endsWith('.py')), FILES).map((path): [string, string] => [path, readFileSync(path, 'utf8')]) : [];
  const inputs: Array<[string, string]> = [...sources, ['broken.py', 'def f(:\n  pass\n'], ['tabs.py', 'if x:\n\tif y:\n        pass\n']];
  const workspaces = builds.map((build) => new build.Workspace({ 'line-length': 100, format: { 'quote-style': 'single' } }, build.PositionEncoding.Utf16));
  let same = 0;
  let failed = 0;
  for (const [name, text] of inputs) {
    const results = workspaces.map((workspace) => outcome(() => workspace.format(text)));
    if (results[0] === results[1]) same++;
    else console.log(`  ruff differs: ${name}`);
    if (results[0]!.startsWith('error')) failed++;
  }
  return { files: inputs.length, same, failed };
}

async function main(): Promise<void> {
  for (const tool of ['wasm-opt', 'wasm-dis']) {
    if (spawnSync(tool, ['--version']).status !== 0) {
      // Left out, as a benchmark without its tool is; its last results stay in the report.
      console.log(`skipped: ${tool} is not on PATH (binaryen; Debian: apt-get install binaryen)`);
      process.exit(0);
    }
  }
  const version = spawnSync('wasm-opt', ['--version'], { encoding: 'utf8' }).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-wasm-strip-'));
  try {
    for (const [name, build] of Object.entries(BUILDS)) {
      if (ONLY && !ONLY.includes(name)) continue;
      const file = join(root, build.file);
      if (!existsSync(file)) throw new Error(`missing ${build.file}`);
      const official = readFileSync(file);
      const noCustom = withoutCustomSections(official) as Buffer;
      const started = performance.now();
      const stripped = wasmOpt(keepExports(official, build.keep), dir, name);
      const stripMs = performance.now() - started;
      const agreement = name === 'biome' ? await biomeAgreement(official, stripped) : await ruffAgreement(official, stripped);
      console.log(`  stripped vs official: ${agreement.same} of ${agreement.files} inputs give the same result (${agreement.failed} of them fail in the official build)${'kinds' in agreement ? `; ${agreement.kinds}` : ''}`);
      recordResult({ group: 'wasm-strip', name: `${name} stripped build formats as the official build`, value: agreement.same, unit: 'files', anchor: 'inputs', anchorValue: agreement.files, ratio: agreement.same / agreement.files, goal: '≥ 1', note: `${agreement.failed} inputs fail in both (parse errors, size); ${name === 'biome' ? 'JS/TS/JSON/CSS from node_modules' : 'the Python standard library'}` });
      if (name === 'biome') {
        const cut = await biomeCoverageCut(official, stripped, dir);
        console.log(`  only the code the sample ran: ${cut.ran} of ${cut.functions} functions (${mb(cut.keptCodeBytes)} of ${mb(cut.codeBytes)} code), ${mb(cut.gzip)} gzip; on ${cut.heldOut} held-out inputs ${cut.same} give the official result, ${cut.trapped} reach removed code`);
        recordResult({ group: 'wasm-strip', name: 'biome with only the code the agreement sample ran (not shippable): gzip', value: cut.gzip / 1e6, unit: 'MB', anchor: 'format path only', anchorValue: gzip(stripped) / 1e6, ratio: cut.gzip / gzip(stripped), note: `${cut.ran} of ${cut.functions} functions ran (${mb(cut.keptCodeBytes)} of ${mb(cut.codeBytes)} code); the rest made unreachable` });
        recordResult({ group: 'wasm-strip', name: 'biome with only the code the agreement sample ran: held-out inputs it formats as the official build', value: cut.same, unit: 'files', anchor: 'held-out inputs', anchorValue: cut.heldOut, ratio: cut.same / cut.heldOut, goal: '≥ 1', note: `${cut.trapped} reach code no sample ran (a trap); the files between the first sample's` });
      }
      const tableless = wasmOpt(withoutTable(keepExports(official, build.keep)), dir, `${name}-tableless`);
      const figures = tableFigures(stripped);
      writeFileSync(join(dir, `${name}.stripped.wasm`), stripped);
      const reach = await typeReachable(join(dir, `${name}.stripped.wasm`));
      const [gzOfficial, gzNoCustom, gzStripped, gzTableless] = [official, noCustom, stripped, tableless].map(gzip) as [number, number, number, number];
      console.log(`${name}: official ${mb(official.length)} raw, ${mb(gzOfficial)} gzip; without custom sections ${mb(gzNoCustom)} gzip; format exports only + ${version} --remove-unused-module-elements ${mb(stripped.length)} raw, ${mb(gzStripped)} gzip (${stripMs.toFixed(0)} ms)`);
      console.log(`  table: ${figures.tableFunctions} of ${figures.functions} functions (${mb(figures.tableCodeBytes)} of ${mb(figures.codeBytes)} code); by signature ${reach.reachable} of ${reach.defined} functions stay reachable (${reach.signaturesCalled} of ${reach.tableSignatures} table signatures are called); table emptied (not runnable): ${mb(gzTableless)} gzip`);
      const note = `${version}; exports kept: the ones formatbox's adapter calls`;
      recordResult({ group: 'wasm-strip', name: `${name} official wasm without custom sections: gzip`, value: gzNoCustom / 1e6, unit: 'MB', anchor: 'the official file', anchorValue: gzOfficial / 1e6, ratio: gzNoCustom / gzOfficial });
      recordResult({ group: 'wasm-strip', name: `${name} format path only (unused exports dropped, --remove-unused-module-elements): gzip`, value: gzStripped / 1e6, unit: 'MB', anchor: 'without custom sections', anchorValue: gzNoCustom / 1e6, ratio: gzStripped / gzNoCustom, note });
      recordResult({ group: 'wasm-strip', name: `${name} stripped: functions reachable by signature from the kept exports`, value: reach.reachable, unit: 'functions', anchor: 'functions in the stripped build', anchorValue: reach.defined, ratio: reach.reachable / reach.defined, note: `${figures.tableFunctions} functions (${mb(figures.tableCodeBytes)} of ${mb(figures.codeBytes)} code) in the indirect-call table; ${reach.signaturesCalled} of ${reach.tableSignatures} table signatures called` });
      recordResult({ group: 'wasm-strip', name: `${name} with the indirect-call table emptied (a bound, not runnable): gzip`, value: gzTableless / 1e6, unit: 'MB', anchor: 'format path only', anchorValue: gzStripped / 1e6, ratio: gzTableless / gzStripped });
      if (!OZ) continue;
      const optimized = wasmOpt(keepExports(official, build.keep), dir, `${name}-Oz`, ['-Oz']);
      console.log(`  the same with -Oz: ${mb(optimized.length)} raw, ${mb(gzip(optimized))} gzip`);
      recordResult({ group: 'wasm-strip', name: `${name} format path only, wasm-opt -Oz: gzip`, value: gzip(optimized) / 1e6, unit: 'MB', anchor: 'without custom sections', anchorValue: gzip(noCustom) / 1e6, ratio: gzip(optimized) / gzip(noCustom) });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
