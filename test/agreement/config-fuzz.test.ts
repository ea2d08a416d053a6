/**
 * Differential config fuzzer: random projects (see config-fuzz/generate.ts) are formatted by
 * formatbox (`runtime.format({check: true})`, the project dir as root) and by the native tools on
 * the same directory: the Biome CLI binary (`biome format --write .`, once per project, since Biome
 * allows one root config per run) and the Prettier CLI's own entry (`prettier --write .` per project,
 * many projects in one process: see config-fuzz/prettier-cli-driver.mjs). For every source file,
 * formatbox's bytes must equal the native bytes, or formatbox refuses (`failed`, invalid project
 * config) where the native tool refused too (left the file as written) — or, in the two cases the
 * issue asks formatbox to refuse where the native tool silently skips a broken config (Biome 2.4.15 and
 * a biome.json with comments; Prettier and an unparsable package.json), formatbox refuses.
 *
 * 2,000 projects by default; FORMATBOX_FUZZ_PROJECTS=<n> sets the count, FORMATBOX_LONG=1 → 20,000.
 * FORMATBOX_SEED=<n> picks another seed; FORMATBOX_FUZZ_MISMATCHES=<file> writes every mismatch there (JSON lines); FORMATBOX_FUZZ_KINDS=biome-nested (comma-separated) runs some
 * generators only: `prettier`, `biome` (one nested config), `biome-nested` (nested configs at several
 * depths, .editorconfig files among them, every formatter option of Biome's schema), and two opt-in ones:
 * `biome-wide` (parser options, `files`, `enabled` per section, formatWithErrors, vcs) and `prettier-wide`
 * (the remaining core options, .prettierignore, `excludeFiles`, Vue/HTML/SCSS/GraphQL/MDX/JSX sources).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createWorkerPool } from '../../src/node/worker-pool.js';
import { writeTree } from '../write-tree.js';
import { biomeNestedProject, biomeProject, biomeSchemaOptions, biomeWideProject, mulberry32, prettierProject, prettierWideProject, type GeneratedProject } from './config-fuzz/generate.js';

const LONG = process.env.FORMATBOX_LONG === '1';
const PROJECTS = Number(process.env.FORMATBOX_FUZZ_PROJECTS ?? (LONG ? 20_000 : 2_000));
/** Which generators run, in turn (default the first three): `prettier`, `biome`, `biome-nested`, `biome-wide`, `prettier-wide`. */
const GENERATORS = (process.env.FORMATBOX_FUZZ_KINDS ?? 'prettier,biome,biome-nested').split(',');
const BIOME_SCHEMA = biomeSchemaOptions(JSON.parse(readFileSync(new URL('../../node_modules/@biomejs/biome/configuration_schema.json', import.meta.url), 'utf8')));
const SEED = Number(process.env.FORMATBOX_SEED ?? 20261130);
const BIOME_BIN = new URL(`../../node_modules/@biomejs/cli-${process.platform}-${process.arch}/biome`, import.meta.url).pathname;
const PRETTIER_DRIVER = new URL('./config-fuzz/prettier-cli-driver.mjs', import.meta.url).pathname;
const base = mkdtempSync(join(tmpdir(), 'formatbox-config-fuzz-'));
after(() => process.env.FORMATBOX_FUZZ_KEEP ? console.log(`# kept ${base}`) : rmSync(base, { recursive: true, force: true }));

interface Outcome {
  project: string;
  kind: GeneratedProject['kind'];
  path: string;
  original: string;
  formatbox: string;
  status: string;
  reason?: string;
  /** formatbox clamped a value (an indent width over 16, untrusted mode) and said so in the receipt. */
  clamped: boolean;
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout }));
  });
}

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++] as T);
  }));
}

test(`config fuzzer: ${PROJECTS} projects, formatbox against the native Biome and Prettier CLIs`, { timeout: LONG ? 3 * 60 * 60 * 1000 : 60 * 60 * 1000 }, async () => {
  assert.ok(existsSync(BIOME_BIN), `the native Biome binary is missing: ${BIOME_BIN}`);
  const rng = mulberry32(SEED);
  const projects: Array<{ dir: string; project: GeneratedProject }> = [];
  for (let i = 0; i < PROJECTS; i++) {
    const generator = GENERATORS[i % GENERATORS.length];
    const project =
      generator === 'prettier' ? prettierProject(rng)
      : generator === 'prettier-wide' ? prettierWideProject(rng)
      : generator === 'biome' ? biomeProject(rng)
      : generator === 'biome-wide' ? biomeWideProject(rng, BIOME_SCHEMA)
      : biomeNestedProject(rng, BIOME_SCHEMA);
    const dir = join(base, `p${String(i).padStart(5, '0')}`);
    writeTree(dir, project.files);
    projects.push({ dir, project });
  }

  // formatbox first (check mode writes nothing), one warm worker pool for every project.
  const pool = createWorkerPool({ timeoutMs: 30_000 });
  const outcomes: Outcome[] = [];
  try {
    for (const { dir, project } of projects) {
      const runtime = createRuntime({ root: dir, pool });
      try {
        for (const path of project.sources) {
          const receipt = await runtime.format({ path, check: true });
          outcomes.push({ project: dir, kind: project.kind, path, original: project.files[path] as string, formatbox: receipt.content, status: receipt.status, clamped: receipt.ignored?.some((item) => /^clamped/.test(item.reason)) ?? false, ...(receipt.reason ? { reason: receipt.reason } : {}) });
        }
      } finally {
        await runtime.close();
      }
    }
  } finally {
    await pool.close();
  }

  // The native tools, on the same directories.
  const biomeDirs = projects.filter((p) => p.project.kind === 'biome').map((p) => p.dir);
  const prettierDirs = projects.filter((p) => p.project.kind === 'prettier').map((p) => p.dir);
  const biomeExit = new Map<string, number>();
  await inParallel(biomeDirs, 2, async (dir) => {
    biomeExit.set(dir, (await run(BIOME_BIN, ['format', '--write', '--colors=off', '.'], dir)).code);
  });
  const prettierExit = new Map<string, number>();
  const pairs = projects.filter((p) => p.project.kind === 'prettier').flatMap((p) => p.project.sources.map((file) => `${p.dir}\t${file}`));
  const chunks: string[][] = [];
  for (let i = 0; i < pairs.length; i += 500) chunks.push(pairs.slice(i, i + 500));
  await inParallel(chunks, 2, async (chunk) => {
    const { stdout } = await run(process.execPath, [PRETTIER_DRIVER, ...chunk], base);
    for (const line of stdout.split('\n').filter(Boolean)) {
      const { dir, file, exitCode } = JSON.parse(line) as { dir: string; file: string; exitCode: number };
      prettierExit.set(join(dir, file), exitCode);
    }
  });

  const counts = { files: 0, identicalFormatted: 0, identicalUnchanged: 0, bothRefuse: 0, bothRejectNativeStillWrites: 0, refusedNativeSkipsBrokenConfig: 0, clampedSaidSo: 0, mismatch: 0 };
  const perTool = { prettier: { files: 0, agree: 0 }, biome: { files: 0, agree: 0 } };
  const mismatches: string[] = [];
  const allMismatches: unknown[] = [];
  for (const outcome of outcomes) {
    counts.files++;
    perTool[outcome.kind].files++;
    const native = readFileSync(join(outcome.project, outcome.path), 'utf8');
    const exit = outcome.kind === 'biome' ? biomeExit.get(outcome.project) : prettierExit.get(join(outcome.project, outcome.path));
    const refused = outcome.status === 'failed' && /invalid project config/.test(outcome.reason ?? '');
    if (refused && native === outcome.original && exit !== 0) counts.bothRefuse++;
    else if (refused && isSilentSkip(outcome)) counts.refusedNativeSkipsBrokenConfig++;
    // Biome 2.4.15 with an unparsable root biome.json and a nested config: it reports the error and
    // exits 1, and still writes the files with its defaults. Both reject the config.
    else if (refused && outcome.kind === 'biome' && exit !== 0 && exit !== undefined) counts.bothRejectNativeStillWrites++;
    // A value past formatbox's untrusted-mode bound, clamped, and the receipt says the bytes differ from Biome's.
    else if (!refused && outcome.clamped && native !== outcome.formatbox) counts.clampedSaidSo++;
    else if (!refused && native === outcome.formatbox) {
      if (outcome.formatbox === outcome.original) counts.identicalUnchanged++;
      else counts.identicalFormatted++;
    } else {
      counts.mismatch++;
      allMismatches.push({ project: outcome.project, path: outcome.path, kind: outcome.kind, exit, status: outcome.status, reason: outcome.reason, formatbox: outcome.formatbox, native });
      if (mismatches.length < 12) {
        mismatches.push(`${outcome.project}/${outcome.path} [${outcome.kind}, native exit ${exit}] formatbox ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ''}\n  formatbox: ${JSON.stringify(outcome.formatbox.slice(0, 160))}\n  native:    ${JSON.stringify(native.slice(0, 160))}`);
      }
      continue;
    }
    perTool[outcome.kind].agree++;
  }
  console.log(`# config fuzzer, seed ${SEED}: ${PROJECTS} projects (${prettierDirs.length} Prettier, ${biomeDirs.length} Biome), ${counts.files} files`);
  console.log(`#   identical bytes: ${counts.identicalFormatted} formatted + ${counts.identicalUnchanged} unchanged; both refuse: ${counts.bothRefuse}; both reject the config but the Biome CLI still writes its defaults: ${counts.bothRejectNativeStillWrites}; formatbox refuses where the native tool silently skips a broken config: ${counts.refusedNativeSkipsBrokenConfig}; clamped and said so (indent width over 16): ${counts.clampedSaidSo}; mismatches: ${counts.mismatch}`);
  console.log(`#   Prettier ${perTool.prettier.agree}/${perTool.prettier.files}, Biome ${perTool.biome.agree}/${perTool.biome.files}`);
  for (const m of mismatches) console.log(`# MISMATCH ${m}`);
  // Every mismatch, for triage of a long run (the log shows the first 12).
  if (process.env.FORMATBOX_FUZZ_MISMATCHES) writeFileSync(process.env.FORMATBOX_FUZZ_MISMATCHES, `${allMismatches.map((m) => JSON.stringify(m)).join('\n')}\n`);
  assert.equal(counts.mismatch, 0, `${counts.mismatch} files differ from the native CLI; first ones:\n${mismatches.join('\n')}`);
});

/** The cases where the issue asks formatbox to refuse although the native tool skips the broken file and formats. */
function isSilentSkip(outcome: Outcome): boolean {
  const reason = outcome.reason ?? '';
  if (outcome.kind === 'prettier') return /skips an unparsable package\.json silently/.test(reason);
  // Biome 2.4.15 skips a biome.json (not .jsonc) holding comments and searches further up.
  return /biome\.json:\d+:\d+: Expected a property but instead found '\/\//.test(reason) || /biome\.json:\d+:\d+: .*comment/i.test(reason);
}
