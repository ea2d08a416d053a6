// Agreement: the gofmt wasm adapter against Debian's native gofmt, on Go's standard library.
// Each file is compared twice: as shipped (already gofmt-formatted) and with its layout wrecked
// (indentation stripped, runs of blanks collapsed), so both formatters really have work to do.
// Both get the same bytes; wrecking string contents is fine because both see the same input.
//
// Normal mode: a deterministic sample of ~150 files. FORMATBOX_LONG=1: every file.
// Native gofmt is run once per batch on a temp dir (`gofmt -l -w DIR`), not once per file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gofmtFormatter } from '../../src/formatters/gofmt/adapter.js';

const LONG = process.env['FORMATBOX_LONG'] === '1';
const SAMPLE = 150;

const goSource = ['/usr/lib/go/src', '/usr/share/go/src', ...(existsSync('/usr/share') ? readdirSync('/usr/share').filter((d) => /^go-\d/.test(d)).map((d) => `/usr/share/${d}/src`) : [])]
  .filter((dir) => existsSync(`${dir}/fmt/print.go`))
  .map((dir) => realpathSync(dir))[0];
const nativeGofmt = spawnSync('gofmt', ['-h'], { encoding: 'utf8' });
const gofmtMissing = nativeGofmt.error !== undefined;
const skip = gofmtMissing || !goSource ? (process.env['CI'] ? false : 'needs Debian gofmt and the Go sources') : false;
if (skip) console.log(`# skipping the gofmt agreement test: ${skip}`);

function goFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (name === 'testdata') continue; // deliberately malformed inputs for Go's own tests
    if (statSync(full).isDirectory()) found.push(...goFiles(full));
    else if (name.endsWith('.go')) found.push(full);
  }
  return found;
}

function wreck(source: string): string {
  return source
    .split('\n')
    .map((line) => line.trimStart().replace(/[ \t]+/g, ' '))
    .join('\n');
}

/** Formats every input with native gofmt in one run; `null` where gofmt reported an error. */
function nativeFormatAll(inputs: string[]): (string | null)[] {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-gofmt-'));
  try {
    inputs.forEach((text, index) => writeFileSync(join(dir, `f${index}.go`), text));
    const run = spawnSync('gofmt', ['-l', '-w', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const failed = new Set([...run.stderr.matchAll(/f(\d+)\.go:\d+:\d+:/g)].map((m) => Number(m[1])));
    return inputs.map((_, index) => (failed.has(index) ? null : readFileSync(join(dir, `f${index}.go`), 'utf8')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test(`gofmt wasm agrees with native gofmt on the Go standard library (${LONG ? 'all files' : `${SAMPLE}-file sample`})`, { skip, timeout: LONG ? 1_800_000 : 300_000 }, async () => {
  const all = goFiles(goSource!);
  const step = LONG ? 1 : Math.max(1, Math.floor(all.length / SAMPLE));
  const files = all.filter((_, index) => index % step === 0).slice(0, LONG ? all.length : SAMPLE);
  const gofmt = gofmtFormatter({ wasm: async () => readFileSync('node_modules/@wasm-fmt/gofmt/gofmt.wasm') });

  const inputs = files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return [text, wreck(text)];
  });
  const expected = nativeFormatAll(inputs);

  let agreed = 0;
  let bothRejected = 0;
  // Known limitation of @wasm-fmt/gofmt (TinyGo): it traps on some large generated files, which
  // native gofmt formats. The adapter answers with an error value; the file is left as it was.
  const trapped: string[] = [];
  const mismatches: string[] = [];
  for (let index = 0; index < inputs.length; index++) {
    const file = `${files[index >> 1]!.slice(goSource!.length + 1)}${index % 2 ? ' (wrecked)' : ''}`;
    const ours = await gofmt.format({ path: 'x.go', language: 'go', text: inputs[index]!, settings: {} });
    const native = expected[index] as string | null;
    if (native === null) {
      if (ours.kind === 'error') bothRejected++;
      else mismatches.push(`${file}: native gofmt rejected it, wasm gave ${ours.kind}`);
    } else if (ours.kind === 'error' && /^gofmt wasm trapped/.test(ours.message) && inputs[index]!.length > 100_000) {
      trapped.push(file);
    } else if (ours.kind !== 'ok') {
      mismatches.push(`${file}: wasm gave ${ours.kind}: ${JSON.stringify(ours)}`);
    } else if (ours.text !== native) {
      const line = ours.text.split('\n').findIndex((text, i) => text !== native.split('\n')[i]);
      mismatches.push(`${file}: differs from line ${line + 1}`);
    } else {
      agreed++;
    }
  }
  const { instances } = gofmt.stats();
  console.log(`# gofmt agreement: ${agreed}/${inputs.length} inputs identical (${files.length} files × as shipped + wrecked), ${bothRejected} rejected by both, ${trapped.length} wasm traps on large generated files${trapped.length ? ` (${[...new Set(trapped.map((f) => f.replace(' (wrecked)', '')))].join(', ')})` : ''}, ${mismatches.length} unexplained mismatches; ${instances} wasm instances used`);
  assert.deepEqual(mismatches, []);
  assert.ok(trapped.length <= inputs.length * 0.02, `${trapped.length} traps`);
  assert.ok(agreed >= inputs.length * 0.98, `agreement ${agreed}/${inputs.length}`);
  assert.ok(files.length >= (LONG ? 1000 : SAMPLE - 10), `sample has ${files.length} files`);
  // The wrecked copies must really have needed formatting, or the comparison proves little.
  assert.ok(inputs.filter((text, index) => index % 2 === 1 && text !== expected[index]).length >= files.length * 0.9);
});
