// Which Biome release does `@wasm-fmt/biome_fmt` format like? Compares its output with the native
// CLIs of several Biome releases on real code, and prints one row per release.
//
//   node --import tsx test/bench/biome-fmt-versions.ts [--versions 2.4.11,2.4.12] [--config '<biome.json>'] [--names as-is] [extra source dirs…]
//
// biome_fmt: `BIOME_FMT_DIR` (an unpacked `npm pack @wasm-fmt/biome_fmt@0.2.9`: it is not a
// dependency), else an installed copy. Native CLIs: `@biomejs/cli-linux-x64@<v>`, fetched with
// `npm pack` into `$XDG_CACHE_HOME/formatbox-bench/biome-cli/<v>` on first use. Corpus: rxjs's
// `src/internal` (whole), a spread sample of the `.js .mjs .cjs .ts .mts .cts .d.ts` files under
// node_modules, and every JS/TS file under the extra directories (no `.jsx`/`.tsx` is installed here:
// e.g. the `src/` of an unpacked `@tanstack/react-query`, or test inputs from Biome's repository that
// tell releases apart); the files of the extra directories that differ are listed per release. Each
// CLI formats a copy of the corpus (`format --write`, the given `biome.json`); a file the CLI reports
// a parse or format diagnostic for counts as "CLI refused".
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const DEFAULT_VERSIONS = ['2.0.0', '2.1.4', '2.2.7', '2.3.15', '2.4.0', '2.4.5', '2.4.9', '2.4.10', '2.4.11', '2.4.12', '2.4.13', '2.4.14', '2.4.15', '2.4.16'];
const MAX_BYTES = 1024 * 1024; // the CLI's files.maxSize
const SAMPLE_PER_KIND = 150;

const args = process.argv.slice(2);
const versionsAt = args.indexOf('--versions');
const versions = versionsAt >= 0 ? args[versionsAt + 1]!.split(',') : DEFAULT_VERSIONS;
const extraDirs = args.filter((arg, index) => !arg.startsWith('--') && !args[index - 1]?.startsWith('--'));
const configAt = args.indexOf('--config');
const biomeJson = configAt >= 0 ? args[configAt + 1]! : '{}';

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (stats?.isDirectory()) walk(full, keep, out);
    else if (stats?.isFile() && stats.size <= MAX_BYTES && keep(full)) out.push(full);
  }
  return out;
}

function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, index) => items[Math.floor(index * step)]!);
}

/** The kind a file is tallied under: `d.ts` apart, since biome_fmt gives it its own source type. */
function kindOf(path: string): string {
  if (/\.d\.[cm]?ts$/.test(path)) return 'd.ts';
  return path.slice(path.lastIndexOf('.') + 1);
}

interface CorpusFile { source: string; path: string }

function corpus(): CorpusFile[] {
  const files: CorpusFile[] = [];
  const rxjs = 'node_modules/rxjs/src/internal';
  if (existsSync(rxjs)) for (const source of walk(rxjs, (file) => file.endsWith('.ts'))) files.push({ source, path: `rxjs/${source.slice(rxjs.length + 1)}` });
  const modules = walk('node_modules', (file) => /\.(?:[cm]?js|[cm]?ts)$/.test(file) && !file.startsWith(rxjs));
  const byKind = new Map<string, string[]>();
  for (const file of modules) byKind.set(kindOf(file), [...(byKind.get(kindOf(file)) ?? []), file]);
  for (const [, list] of [...byKind].sort()) for (const source of spread(list, SAMPLE_PER_KIND)) files.push({ source, path: `nm/${source.slice('node_modules/'.length).replaceAll('/node_modules/', '/nm/')}` }); // the CLI skips node_modules
  for (const [index, dir] of extraDirs.entries()) {
    for (const source of walk(dir, (file) => /\.(?:[cm]?[jt]sx?)$/.test(file))) files.push({ source, path: `extra${index}/${source.slice(dir.length + 1)}` });
  }
  return files;
}

function nativeCli(version: string): string {
  const cache = join(process.env.XDG_CACHE_HOME ?? join(tmpdir(), 'cache'), 'formatbox-bench', 'biome-cli', version);
  const binary = join(cache, 'package', 'biome');
  if (!existsSync(binary)) {
    mkdirSync(cache, { recursive: true });
    const tarball = execFileSync('npm', ['pack', `@biomejs/cli-linux-x64@${version}`, '--silent'], { cwd: cache, encoding: 'utf8' }).trim();
    execFileSync('tar', ['xzf', tarball], { cwd: cache });
    rmSync(join(cache, tarball));
  }
  return binary;
}

const biomeFmtDir = resolve(process.env.BIOME_FMT_DIR ?? 'node_modules/@wasm-fmt/biome_fmt');
if (!existsSync(join(biomeFmtDir, 'package.json'))) {
  console.error(`no @wasm-fmt/biome_fmt at ${biomeFmtDir} (it is not a dependency): npm pack @wasm-fmt/biome_fmt@0.2.9, unpack it, set BIOME_FMT_DIR=<its package/>`);
  process.exit(2);
}
const biomeFmtVersion = JSON.parse(readFileSync(join(biomeFmtDir, 'package.json'), 'utf8')).version as string;
const { format } = (await import(pathToFileURL(join(biomeFmtDir, 'biome_fmt_node.js')).href)) as {
  format(text: string, path: string, config?: object): string;
};
const fmtConfig = (JSON.parse(biomeJson) as { formatter?: object; javascript?: { formatter?: object } });
// biome_fmt reads option values in kebab case (`as-needed`), biome.json writes them in camel case (`asNeeded`).
const biomeFmtConfig = Object.fromEntries(
  Object.entries({ ...fmtConfig.formatter, ...fmtConfig.javascript?.formatter }).map(([key, value]) => [
    key,
    typeof value === 'string' ? value.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`) : value,
  ]),
);

/**
 * The name biome_fmt is given. It picks the source type from the name's last letters, and every name
 * ending in `js`/`jsx` comes out as TSX; `x.s` is the one spelling that reaches its JavaScript
 * (module, JSX) source type, which is what the CLI uses for `.js .jsx .mjs`. `--names as-is` passes
 * the file's own name instead.
 */
const namesAsIs = args.includes('--names') && args[args.indexOf('--names') + 1] === 'as-is';
function biomeFmtName(path: string): string {
  return !namesAsIs && /\.[cm]?jsx?$/.test(path) ? 'file.s' : path;
}

const files = corpus();
const normalise = (text: string) => text.replace(/\r\n?/g, '\n');
const ours = files.map((file) => {
  try {
    return format(normalise(readFileSync(file.source, 'utf8')), biomeFmtName(file.path), biomeFmtConfig);
  } catch {
    return undefined;
  }
});
const kinds = [...new Set(files.map((file) => kindOf(file.path)))].sort();
console.log(`@wasm-fmt/biome_fmt ${biomeFmtVersion}; ${files.length} files (${kinds.map((kind) => `${kind} ${files.filter((file) => kindOf(file.path) === kind).length}`).join(', ')}); biome.json ${biomeJson}; names ${namesAsIs ? 'as-is' : 'mapped'}`);
console.log(`| release | equal | different | CLI refused | ${kinds.map((kind) => `${kind} equal/diff`).join(' | ')} |`);
console.log(`|---|---|---|---|${kinds.map(() => '---|').join('')}`);
const differing = new Map<string, string[]>();
for (const version of versions) {
  const binary = nativeCli(version);
  const work = mkdtempSync(join(tmpdir(), 'biome-fmt-versions-'));
  for (const file of files) {
    mkdirSync(dirname(join(work, file.path)), { recursive: true });
    writeFileSync(join(work, file.path), normalise(readFileSync(file.source, 'utf8')));
  }
  writeFileSync(join(work, 'biome.json'), biomeJson);
  const run = spawnSync(binary, ['format', '--write', '--max-diagnostics=none', '--colors=off', '.'], { cwd: work, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const refusedPaths = new Set<string>();
  for (const match of (run.stderr + run.stdout).matchAll(/^(\S+?):\d+:\d+ (?:parse|format)/gm)) refusedPaths.add(match[1]!.replace(/^\.\//, ''));
  for (const match of (run.stderr + run.stdout).matchAll(/^(\S+?) (?:parse|format) /gm)) refusedPaths.add(match[1]!.replace(/^\.\//, ''));
  const tally = { equal: 0, different: 0, refused: 0 };
  const perKind = new Map<string, [number, number]>(kinds.map((kind) => [kind, [0, 0]]));
  const different: string[] = [];
  files.forEach((file, index) => {
    if (refusedPaths.has(file.path)) { tally.refused++; return; }
    const native = readFileSync(join(work, file.path), 'utf8');
    const counts = perKind.get(kindOf(file.path))!;
    if (native === ours[index]) { tally.equal++; counts[0]++; }
    else { tally.different++; counts[1]++; different.push(file.path); }
  });
  differing.set(version, different);
  console.log(`| ${version} | ${tally.equal} | ${tally.different} | ${tally.refused} | ${kinds.map((kind) => perKind.get(kind)!.join('/')).join(' | ')} |`);
  rmSync(work, { recursive: true, force: true });
}
for (const [version, paths] of differing) {
  const listed = process.env.BIOME_FMT_LIST ? paths : paths.filter((path) => path.startsWith('extra'));
  if (listed.length > 0) console.log(`${version} differs on: ${listed.join(' ')}`);
}
