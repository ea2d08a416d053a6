/**
 * Real code nobody here wrote, cut into small units a formatter can parse on its own:
 * windows of top-level declarations from TypeScript (rxjs sources, typescript lib .d.ts),
 * the Python standard library, the Go standard library, and TOML files on this machine.
 * Deterministic: files are sorted and sampled by index.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type Language = 'typescript' | 'python' | 'go' | 'toml';

export interface Unit {
  language: Language;
  /** Where it came from, e.g. `/usr/lib/python3.11/json/decoder.py#L40`. */
  source: string;
  /** The path used for the formatter (extension decides the language; one path per language keeps Biome warm). */
  path: string;
  text: string;
}

const MAX_LINES = 60;
const MAX_CHARS = 3500;

function walk(dir: string, keep: (path: string) => boolean, depth: number, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    const full = join(dir, name);
    let stat;
    try {
      stat = statSync(full);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      if (depth > 0 && !/^(test|tests|testdata|invalid|node_modules|vendor)$/.test(name)) walk(full, keep, depth - 1, out);
    } else if (stat.size < 400_000 && keep(full)) out.push(full);
  }
  return out;
}

/** Cuts a file at top-level starts and returns windows of 1–3 consecutive chunks within the size bounds. */
function windows(text: string, isStart: (line: string) => boolean, every: number): Array<{ line: number; text: string }> {
  const lines = text.split('\n');
  const starts: number[] = [];
  lines.forEach((line, i) => {
    if (isStart(line)) starts.push(i);
  });
  starts.push(lines.length);
  const out: Array<{ line: number; text: string }> = [];
  for (let s = 0; s + 1 < starts.length; s += every) {
    const span = 1 + (s % 3);
    const from = starts[s] as number;
    const to = starts[Math.min(s + span, starts.length - 1)] as number;
    if (to - from > MAX_LINES || to - from < 2) continue;
    const chunk = lines.slice(from, to).join('\n').replace(/\n*$/, '\n');
    if (chunk.length <= MAX_CHARS) out.push({ line: from + 1, text: chunk });
  }
  return out;
}

function sample<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)] as T);
}

const TS_START = /^(export |declare |interface |type |function |class |const |let |var |import |abstract |enum |namespace |\/\*\*)/;
const PY_START = /^(def |class |async def |@|[A-Za-z_][\w.]* *=|import |from |if |try:|for |while |with )/;
const GO_START = /^(func |type |var |const |\/\/ [A-Z])/;

function unitsOf(language: Language, files: string[], isStart: (line: string) => boolean, ext: string, prefix = '', perFile = 4): Unit[] {
  const units: Unit[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (text.includes('\r') || text.includes('\uFEFF')) continue;
    const all = windows(text, isStart, 3);
    for (const w of sample(all, perFile)) {
      units.push({ language, source: `${file}#L${w.line}`, path: `src/unit.${ext}`, text: prefix + w.text });
    }
  }
  return units;
}

export function loadCorpus(perLanguage: number): Record<Language, Unit[]> {
  const ts = sample([
    ...walk('node_modules/rxjs/src/internal', (p) => p.endsWith('.ts') && !p.endsWith('.d.ts'), 2),
    ...walk('node_modules/typescript/lib', (p) => /lib\.[\w.]+\.d\.ts$/.test(p), 0),
  ], 150);
  const py = sample(walk('/usr/lib/python3.11', (p) => p.endsWith('.py'), 1), 80);
  const goRoot = ['/usr/lib/go/src', '/usr/share/go-1.19/src'].find((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  });
  const go = goRoot ? sample(walk(goRoot, (p) => p.endsWith('.go') && !p.endsWith('_test.go'), 2), 80) : [];
  const tomlFiles = [
    ...walk('/usr/lib/google-cloud-sdk/platform/gsutil/third_party', (p) => p.endsWith('.toml'), 1),
    ...walk('/usr/lib/node_modules/npm/node_modules', (p) => p.endsWith('.toml'), 3),
    ...walk('/root/.pyenv/versions/3.11.7/lib/python3.11/test/test_tomllib/data/valid', (p) => p.endsWith('.toml'), 2),
    ...walk('/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib', (p) => p.endsWith('.toml'), 0),
    '/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/multirust-channel-manifest.toml',
    ...walk('/root/.cargo/registry/src', (p) => p.endsWith('Cargo.toml'), 2),
  ];
  const toml: Unit[] = [];
  for (const file of [...new Set(tomlFiles)].sort()) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (text.includes('\r')) continue;
    if (text.length <= MAX_CHARS && text.split('\n').length <= MAX_LINES) {
      toml.push({ language: 'toml', source: file, path: 'unit.toml', text });
    } else {
      for (const w of sample(windows(text, (line) => line.startsWith('['), 1), 150)) {
        toml.push({ language: 'toml', source: `${file}#L${w.line}`, path: 'unit.toml', text: w.text });
      }
    }
  }
  return {
    typescript: sample(unitsOf('typescript', ts, (l) => TS_START.test(l), 'ts', '', 8), perLanguage),
    python: sample(unitsOf('python', py, (l) => PY_START.test(l), 'py'), perLanguage),
    go: sample(unitsOf('go', go, (l) => GO_START.test(l), 'go', 'package p\n\n'), perLanguage),
    toml: sample(toml, perLanguage),
  };
}
