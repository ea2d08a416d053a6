/**
 * Real code nobody here wrote, picked deterministically: TypeScript sources of rxjs, the Python
 * stdlib, the Go stdlib, and TOML files found on this machine (pyproject.toml files and slices
 * of rustup's channel manifest). Each file starts formatted, as it would in a project that
 * declares the formatter.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Language } from './edits.js';
import type { EvalEngine, FileCase } from './simulate.js';
import { Rng } from './prng.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface Candidate {
  language: Language;
  source: string;
  /** Lines [from, to) of the source when it is a slice. */
  slice?: [number, number];
}

function walk(dir: string, keep: (path: string) => boolean, depth: number, out: string[] = []): string[] {
  if (!existsSync(dir) || depth < 0) return out;
  for (const name of readdirSync(dir).sort()) {
    if (name === 'testdata' || name === 'vendor' || name === 'test' || name === 'tests' || name.startsWith('.')) continue;
    const full = join(dir, name);
    const stat = statSync(full);
    if (stat.isDirectory()) walk(full, keep, depth - 1, out);
    else if (stat.isFile() && keep(full)) out.push(full);
  }
  return out;
}

function lineCount(path: string): number {
  return readFileSync(path, 'utf8').split('\n').length;
}

const sized = (min: number, max: number) => (path: string) => {
  const lines = lineCount(path);
  return lines >= min && lines <= max;
};

export function candidates(language: Language): Candidate[] {
  switch (language) {
    case 'typescript':
      return walk(join(repoRoot, 'node_modules/rxjs/src/internal'), (p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && sized(60, 500)(p), 3)
        .map((source) => ({ language, source }));
    case 'python':
      return walk('/usr/lib/python3.11', (p) => p.endsWith('.py') && sized(80, 600)(p), 0).map((source) => ({ language, source }));
    case 'go':
      return walk('/usr/lib/go/src', (p) => p.endsWith('.go') && !p.endsWith('_test.go') && sized(80, 600)(p), 2)
        .map((source) => ({ language, source }));
    case 'toml': {
      const found: Candidate[] = [];
      for (const root of ['/usr/lib/google-cloud-sdk/platform/gsutil/third_party', '/usr/lib/node_modules/npm/node_modules/node-gyp']) {
        for (const source of walk(root, (p) => p.endsWith('.toml') && sized(25, 600)(p), 3)) found.push({ language, source });
      }
      const manifest = '/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/multirust-channel-manifest.toml';
      if (existsSync(manifest)) {
        const lines = readFileSync(manifest, 'utf8').split('\n');
        const headers = lines.flatMap((line, i) => (/^\[/.test(line) ? [i] : []));
        // Slices of about 150 lines, cut at table headers, spread through the file.
        for (let k = 0; k < 6; k++) {
          const from = headers[Math.floor((k * headers.length) / 6)] ?? 0;
          const to = headers.find((h) => h >= from + 150) ?? lines.length;
          found.push({ language, source: manifest, slice: [from, to] });
        }
      }
      return found;
    }
  }
}

function virtualPath(candidate: Candidate): string {
  const { source, language } = candidate;
  const extension = { typescript: 'ts', python: 'py', go: 'go', toml: 'toml' }[language];
  let name: string;
  if (source.includes('/node_modules/rxjs/')) name = `rxjs/${relative(join(repoRoot, 'node_modules/rxjs/src'), source)}`;
  else if (source.startsWith('/usr/lib/python3.11/')) name = `python3.11/${relative('/usr/lib/python3.11', source)}`;
  else if (source.startsWith('/usr/lib/go/src/')) name = `go/${relative('/usr/lib/go/src', source)}`;
  else if (candidate.slice) name = `rustup/channel-manifest-L${candidate.slice[0] + 1}.toml`;
  else name = `${basename(dirname(source))}/${basename(source)}`;
  return name.endsWith(`.${extension}`) ? name : `${name}.${extension}`;
}

function readCandidate(candidate: Candidate): string {
  const text = readFileSync(candidate.source, 'utf8');
  if (!candidate.slice) return text;
  const lines = text.split('\n').slice(...candidate.slice);
  return `${lines.join('\n').replace(/\n*$/, '')}\n`;
}

/**
 * `count` files of a language, shuffled by the seed. By default each starts formatted by the
 * engine (the steady state of a project that declares the formatter); `as-found` keeps the
 * file as it is on this machine, so the first edit may reformat all of it. Files the formatter
 * rejects are passed over.
 */
export async function pickFiles(
  engine: EvalEngine,
  language: Language,
  count: number,
  seed: string | number,
  start: 'formatted' | 'as-found' = 'formatted',
): Promise<FileCase[]> {
  const all = candidates(language);
  const order = new Rng(`${seed}`).fork('corpus', language).shuffle(all);
  const picked: FileCase[] = [];
  for (const candidate of order) {
    if (picked.length >= count) break;
    const path = virtualPath(candidate);
    if (picked.some((f) => f.path === path)) continue;
    const original = readCandidate(candidate);
    const outcome = await engine.format({ path, text: original });
    if (outcome.status !== 'formatted' && outcome.status !== 'unchanged') continue;
    const source = candidate.slice ? `${candidate.source} lines ${candidate.slice[0] + 1}-${candidate.slice[1]}` : candidate.source;
    picked.push({ path, language, source, text: start === 'formatted' ? outcome.content : original });
  }
  return picked;
}
