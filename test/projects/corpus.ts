/**
 * The real-project corpus: each setup (setups.ts) installed from the npm registry once per machine
 * into `${FORMATBOX_TEST_PROJECTS:-~/.cache/formatbox-test-projects}/<id>-<hash>` (the hash covers
 * what is installed, so a changed pin installs anew), then laid out as a fresh project per test:
 * package.json, package-lock.json, the setup's configs, node_modules hard-linked from the cache, and
 * files to format. Those are real code nobody here wrote: create-t3-app 7.40.0's template sources
 * (TS, TSX, JS, CSS) and installed packages' package.json files, each put out of shape first (see
 * `unformat`) so the formatter and its plugins have work to do.
 *
 * The reference is the project's own `node_modules/.bin/prettier --write` run in a copy of the
 * same project: formatbox is compared with it file by file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { writeTree } from '../write-tree.js';
import type { ProjectSetup, SourceKind } from './setups.js';

const T3_VERSION = '7.40.0';

export function projectCache(): string {
  return process.env.FORMATBOX_TEST_PROJECTS || join(homedir(), '.cache', 'formatbox-test-projects');
}

function setupHash(setup: ProjectSetup): string {
  return createHash('sha256').update(JSON.stringify([setup.dependencies, setup.localPackages ?? {}, setup.packageJson ?? {}])).digest('hex').slice(0, 12);
}

function packageJsonOf(setup: ProjectSetup): string {
  return JSON.stringify({ name: `formatbox-corpus-${setup.id}`, version: '0.0.0', private: true, ...setup.packageJson, devDependencies: setup.dependencies }, null, 2) + '\n';
}

/**
 * The setup installed (once: a directory is complete only once renamed into place): its
 * package.json, package-lock.json and node_modules. Install scripts are not run, as formatbox
 * never runs them either; none of these packages needs one to format.
 */
export function installedSetup(setup: ProjectSetup): string {
  const dir = join(projectCache(), `${setup.id}-${setupHash(setup)}`);
  if (existsSync(join(dir, 'node_modules', '.package-lock.json'))) return dir;
  mkdirSync(projectCache(), { recursive: true });
  const temp = mkdtempSync(`${dir}.tmp-`);
  try {
    writeFileSync(join(temp, 'package.json'), packageJsonOf(setup));
    for (const [at, files] of Object.entries(setup.localPackages ?? {})) writeTree(join(temp, at), files);
    npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', '--install-links=false'], temp);
    rmSync(dir, { recursive: true, force: true });
    renameSync(temp, dir);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return dir;
}

/** Runs npm (the user's own, with the user's registry); throws with its output when it fails. */
export function npm(args: string[], cwd: string): string {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 600_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} in ${cwd} failed (${run.status ?? run.signal}): ${run.stderr.slice(-2000)}`);
  return run.stdout;
}

/** create-t3-app's published tarball, unpacked once (the package only: its dependencies are not needed to read the template). */
function t3Template(): string {
  const dir = join(projectCache(), `create-t3-app-${T3_VERSION}`);
  if (existsSync(join(dir, 'package', 'template'))) return join(dir, 'package', 'template');
  mkdirSync(projectCache(), { recursive: true });
  const temp = mkdtempSync(`${dir}.tmp-`);
  try {
    const tarball = npm(['pack', `create-t3-app@${T3_VERSION}`, '--silent'], temp).trim().split('\n').at(-1)!;
    execFileSync('tar', ['xzf', join(temp, tarball), '-C', temp]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(temp, dir);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return join(dir, 'package', 'template');
}

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stats = statSync(full);
    if (stats.isDirectory()) walk(full, keep, out);
    else if (keep(full) && stats.size < 32 * 1024) out.push(full);
  }
  return out;
}

/** Project path → original text of every source of the given kinds. */
export function sourcesOf(kinds: readonly SourceKind[], installed: string): Map<string, string> {
  const out = new Map<string, string>();
  if (kinds.includes('t3')) {
    const template = t3Template();
    // extras/src/app/page/with-tw.tsx → src/app/page/with-tw.tsx; base/src/env.js → src/env.js. A
    // third of them (every third path) unless FORMATBOX_LONG=1: each setup takes minutes on 2 cores.
    const every = process.env.FORMATBOX_LONG === '1' ? 1 : 3;
    for (const [index, file] of walk(template, (path) => /\.(ts|tsx|js|css)$/.test(path) && !path.endsWith('.d.ts')).entries()) {
      if (index % every !== 0) continue;
      const path = relative(template, file).replace(/^(base|extras)\//, '');
      if (path.startsWith('config/') || out.has(path)) continue; // config/ holds config files of its own (a prettier.config.js among them)
      out.set(path, readFileSync(file, 'utf8'));
    }
  }
  if (kinds.includes('package-json')) {
    const modules = join(installed, 'node_modules');
    const names = readdirSync(modules).flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : name.startsWith('.') ? [] : [name]));
    for (const name of names.sort().slice(0, 40)) {
      const file = join(modules, name, 'package.json');
      if (existsSync(file)) out.set(`packages/${name.replace('/', '__')}/package.json`, readFileSync(file, 'utf8'));
    }
  }
  return out;
}

/**
 * Puts real code out of shape, deterministically, without changing what it is: each class list in
 * a `class`/`className` string reversed (Tailwind's plugin orders them), each run of one-line
 * imports reversed (the import plugins sort them), and every line's indentation removed.
 */
export function unformat(text: string): string {
  let out = text.replace(/\b(class(?:Name)?=")([^"{}\n]+)"/g, (_, head: string, classes: string) => `${head}${classes.trim().split(/\s+/).reverse().join(' ')}"`);
  const lines = out.split('\n');
  for (let i = 0; i < lines.length; ) {
    let end = i;
    while (end < lines.length && /^import .* from ['"][^'"]+['"];?$/.test(lines[end]!)) end++;
    if (end - i > 1) lines.splice(i, end - i, ...lines.slice(i, end).reverse());
    i = end > i ? end : i + 1;
  }
  out = lines.join('\n');
  return out.replace(/^[ \t]+/gm, '');
}

export interface Project {
  root: string;
  /** The files to format (project-relative, POSIX), sorted. */
  files: string[];
  /** What each of `files` holds before formatting. */
  before: Map<string, string>;
}

/**
 * A fresh project of the setup under `parent`: package.json, package-lock.json, the configs, the
 * local packages, node_modules (hard links into the installed cache: nothing here writes to it) and
 * the unformatted sources. `withModules: false` leaves node_modules out (a fresh clone).
 */
export function makeProject(setup: ProjectSetup, parent: string, name: string, options: { withModules?: boolean } = {}): Project {
  const installed = installedSetup(setup);
  const root = join(parent, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), packageJsonOf(setup));
  writeFileSync(join(root, 'package-lock.json'), readFileSync(join(installed, 'package-lock.json')));
  for (const [at, files] of Object.entries(setup.localPackages ?? {})) writeTree(join(root, at), files);
  writeTree(root, setup.files);
  if (options.withModules !== false) execFileSync('cp', ['-al', join(installed, 'node_modules'), join(root, 'node_modules')]);
  const before = new Map<string, string>();
  for (const [path, text] of sourcesOf(setup.sources, installed)) {
    if (Object.hasOwn(setup.files, path)) continue; // the setup's own stylesheet stays as the setup wrote it
    const shaped = unformat(text);
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), shaped);
    before.set(path, shaped);
  }
  return { root, files: [...before.keys()].sort(), before };
}

export interface Reference {
  /** Project path → the bytes the project's own `prettier --write` left. */
  outputs: Map<string, string>;
  /** Files Prettier itself rejected (a syntax error), with its message. */
  rejected: Map<string, string>;
  ms: number;
}

/** The project's own `node_modules/.bin/prettier --write` over `files`, run in `project`'s root as a developer runs it. */
export function prettierWrite(setup: ProjectSetup, project: Project): Reference {
  const bin = join(project.root, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
  const started = Date.now();
  const run = spawnSync(process.execPath, [...(setup.nodeFlags ?? []), bin, '--write', '--log-level', 'warn', ...project.files], {
    cwd: project.root,
    encoding: 'utf8',
    timeout: 300_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  const ms = Date.now() - started;
  const rejected = new Map<string, string>();
  for (const match of run.stderr.matchAll(/^\[error\] ([^:\n]+): (.*)$/gm)) rejected.set(match[1]!, match[2]!);
  if (run.status !== 0 && rejected.size === 0) throw new Error(`${setup.id}: prettier --write exited ${run.status ?? run.signal}: ${run.stderr.slice(0, 2000)}`);
  const outputs = new Map<string, string>();
  for (const path of project.files) if (!rejected.has(path)) outputs.set(path, readFileSync(join(project.root, path), 'utf8'));
  return { outputs, rejected, ms };
}

/** A private directory for one test's projects. */
export function projectsBase(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
