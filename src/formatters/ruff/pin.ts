/**
 * Where a project pins Ruff: uv.lock, poetry.lock, a `ruff==` requirements pin, the `rev:` of
 * ruff-pre-commit in `.pre-commit-config.yaml`, else `required-version` ([tool.ruff] or ruff.toml);
 * below the root, the `required-version` of the Ruff config nearest a file. Versions are PEP 440.
 */
import { isRecord, parseData } from '../../config/data.js';
import { isShowableSpec } from '../../config/npm-pins.js';
import type { PinFiles, PinReader, VersionPin } from '../../config/pins.js';

const REQUIREMENTS_FILES = ['requirements.txt', 'requirements-dev.txt', 'dev-requirements.txt', 'requirements/dev.txt'];

/** Ruff's config files in one directory, in the order Ruff prefers them, and the table its settings are in. */
const RUFF_CONFIGS = [['ruff.toml', []], ['.ruff.toml', []], ['pyproject.toml', ['tool', 'ruff']]] as const;

export const ruffPin: PinReader = {
  sourceFiles: ['uv.lock', 'poetry.lock', ...REQUIREMENTS_FILES, '.pre-commit-config.yaml'],
  read: readRuffPin,
  allows: (pin, version) => pep440Allows(pin.spec, version),
  nestedMarkers: RUFF_CONFIGS.map(([name]) => name),
  readNested: requiredVersionPin,
  // A lock, a requirements pin or a pre-commit rev decides which Ruff runs; a root required-version does not reach a nested config's files.
  nestedRequires: { locks: (pin) => !pin.source.endsWith('required-version') },
  buildNeeded: (version) => `@astral-sh/ruff-wasm-web or -nodejs ${version} (ruffFormatter({bindings}))`,
};

const RUFF_PRE_COMMIT = /^\s*-?\s*repo:\s*['"]?https?:\/\/github\.com\/(astral-sh|charliermarsh)\/ruff-pre-commit(\.git)?['"]?\s*$/;

function readRuffPin(files: PinFiles): VersionPin | undefined {
  const exact = (spec: string, source: string): VersionPin => ({ formatter: 'ruff', spec, exact: true, source });
  for (const file of ['uv.lock', 'poetry.lock']) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const match = /^\[\[package\]\]\r?\nname = "ruff"\r?\nversion = "([^"]+)"/m.exec(text);
    if (match && isPep440Release(match[1]!)) return exact(match[1]!, file);
  }
  for (const file of REQUIREMENTS_FILES) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const match = /^\s*ruff(?:\[[^\]]*\])?\s*===?\s*([0-9][0-9A-Za-z.]*)\s*(?:[;#].*)?$/im.exec(text);
    if (match && isPep440Release(match[1]!)) return exact(match[1]!, file);
  }
  const preCommit = files['.pre-commit-config.yaml'];
  if (typeof preCommit === 'string') {
    const rev = preCommitRev(preCommit);
    if (rev) return exact(rev, '.pre-commit-config.yaml ruff-pre-commit rev');
  }
  return requiredVersionPin(files, '');
}

/**
 * The `required-version` of the Ruff config in `dir` (`''`: the root) that Ruff would use for the
 * files there: the first of ruff.toml, .ruff.toml, a pyproject.toml with [tool.ruff]. Ruff checks the
 * nearest config's `required-version` for each file, so a nested config's pin is for the files under it.
 */
function requiredVersionPin(files: PinFiles, dir: string): VersionPin | undefined {
  for (const [name, table] of RUFF_CONFIGS) {
    const file = dir === '' ? name : `${dir}/${name}`;
    const text = files[file];
    if (typeof text !== 'string') continue;
    const parsed = parseData(text, 'toml');
    if (!parsed.ok) continue;
    let value: unknown = parsed.value;
    for (const key of table) value = isRecord(value) ? value[key] : undefined;
    if (!isRecord(value)) continue; // a pyproject.toml without [tool.ruff] is not Ruff's config
    const required = value['required-version'];
    if (typeof required !== 'string' || required.trim() === '') return undefined;
    const spec = required.trim();
    const bare = spec.replace(/^==\s*/, '');
    if (isPep440Release(bare)) return { formatter: 'ruff', spec: bare, exact: true, source: `${file} required-version` };
    if (isShowableSpec(spec) && parsePep440(spec)) return { formatter: 'ruff', spec, exact: false, source: `${file} required-version` };
    return undefined;
  }
  return undefined;
}

/** The `rev:` of the ruff-pre-commit repo entry (`v0.6.9` → `0.6.9`). */
function preCommitRev(text: string): string | undefined {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!RUFF_PRE_COMMIT.test(lines[i]!)) continue;
    for (let j = i + 1; j < lines.length; j++) {
      if (/^\s*-\s*repo:/.test(lines[j]!)) break;
      const rev = /^\s*rev:\s*['"]?v?([0-9][0-9A-Za-z.]*)['"]?\s*(#.*)?$/.exec(lines[j]!);
      if (rev && isPep440Release(rev[1]!)) return rev[1];
    }
  }
  return undefined;
}

type Pep440Clause = { op: '==' | '!=' | '>=' | '<=' | '>' | '<' | '~='; version: number[] };

/** `>=0.5, <0.7` as clauses; undefined for what formatbox does not read (wildcards, local versions). */
function parsePep440(spec: string): Pep440Clause[] | undefined {
  const clauses: Pep440Clause[] = [];
  for (const part of spec.split(',')) {
    const match = /^\s*(==|!=|>=|<=|~=|>|<)?\s*([0-9]+(?:\.[0-9]+)*)\s*$/.exec(part);
    if (!match) return undefined;
    clauses.push({ op: (match[1] ?? '==') as Pep440Clause['op'], version: match[2]!.split('.').map(Number) });
  }
  return clauses.length > 0 ? clauses : undefined;
}

function isPep440Release(version: string): boolean {
  return /^[0-9]+(\.[0-9]+)*$/.test(version);
}

function pep440Allows(spec: string, version: string): boolean {
  const clauses = parsePep440(spec);
  if (!clauses || !isPep440Release(version)) return false;
  const v = version.split('.').map(Number);
  return clauses.every(({ op, version: w }) => {
    const order = compareNumbers(v, w);
    switch (op) {
      case '==': return order === 0;
      case '!=': return order !== 0;
      case '>=': return order >= 0;
      case '<=': return order <= 0;
      case '>': return order > 0;
      case '<': return order < 0;
      case '~=': return order >= 0 && compareNumbers(v.slice(0, w.length - 1), w.slice(0, w.length - 1)) === 0;
    }
  });
}

function compareNumbers(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}
