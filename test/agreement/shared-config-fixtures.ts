/**
 * For the shared-config agreement tests: temp projects, real shared-config packages from the npm
 * registry (`npm pack` of an exact version, kept in a per-run cache, unpacked into the project's
 * node_modules), and real source files read from packages installed here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createRuntime } from '../../src/node/index.js';

const created: string[] = [];
export function cleanUp(): void {
  created.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
}

/** A project directory (`<base>/root`, a .git marker) with `files`; `base` holds what is outside the root. */
export function project(files: Record<string, string>, prefix: string): { root: string; base: string } {
  const base = mkdtempSync(join(tmpdir(), prefix));
  created.push(base);
  const root = join(base, 'root');
  writeFiles(root, files);
  mkdirSync(join(root, '.git'), { recursive: true });
  return { root, base };
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

const packDir = join(tmpdir(), 'formatbox-test-shared-config-packs');

/**
 * The tarball of `name@version` from the registry the user's npm uses. Undefined (the caller skips)
 * only outside CI when npm cannot fetch it; in CI a failure fails the test.
 */
export function packed(name: string, version: string): string | undefined {
  mkdirSync(packDir, { recursive: true });
  const file = join(packDir, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  if (existsSync(file)) return file;
  const run = spawnSync('npm', ['pack', `${name}@${version}`, '--pack-destination', packDir, '--silent'], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0 || !existsSync(file)) {
    if (process.env.CI) throw new Error(`npm pack ${name}@${version} failed: ${run.stderr}`);
    return undefined;
  }
  return file;
}

/** Unpacks a tarball from `packed` into `dir` (the package directory). */
export function unpack(tarball: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const run = spawnSync('tar', ['xzf', tarball, '-C', dir, '--strip-components=1'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`tar: ${run.stderr}`);
}

/** Real source files of packages installed here (never copied into the repository): project path → text. */
export function realSources(): Record<string, string> {
  const modules = resolve('node_modules');
  const pick = (dir: string, extension: string, count: number): string[] =>
    readdirSync(join(modules, dir))
      .filter((name) => name.endsWith(extension))
      .sort()
      .slice(0, count)
      .map((name) => join(dir, name));
  const out: Record<string, string> = {};
  for (const file of [...pick('yaml/dist/compose', '.js', 3), ...pick('smol-toml/dist', '.js', 2), ...pick('jsonc-parser/lib/esm/impl', '.js', 1)]) {
    out[`src/${file.replace(/\//g, '-')}`] = readFileSync(join(modules, file), 'utf8');
  }
  out['src/semver-package.json'] = readFileSync(join(modules, 'semver/package.json'), 'utf8');
  return out;
}

export interface Outcome {
  status: string;
  reason?: string;
  content: string;
}

/** formatbox's untrusted runtime on each path (each file put back afterwards). */
export async function formatbox(root: string, paths: readonly string[]): Promise<Record<string, Outcome>> {
  const runtime = createRuntime({ root });
  const out: Record<string, Outcome> = {};
  try {
    for (const path of paths) {
      const before = readFileSync(join(root, path), 'utf8');
      const receipt = await runtime.format({ path });
      out[path] = { status: receipt.status, ...(receipt.reason ? { reason: receipt.reason } : {}), content: readFileSync(join(root, path), 'utf8') };
      writeFileSync(join(root, path), before);
    }
  } finally {
    await runtime.close();
  }
  return out;
}

/** formatbox refuses `path` (status among `statuses`), its reason matches, and the file is left as written. */
export async function assertRefused(root: string, path: string, written: string, reason: RegExp, statuses: readonly string[] = ['failed']): Promise<void> {
  const got = (await formatbox(root, [path]))[path]!;
  assert.ok(statuses.includes(got.status), `${got.status}: ${got.reason ?? ''}`);
  assert.match(got.reason ?? '', reason);
  assert.equal(got.content, written);
}
