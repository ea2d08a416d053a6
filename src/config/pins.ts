/**
 * The formatter version each project pins, read from the project's own files as data (never run):
 * - Prettier and Biome: the installed `node_modules/<package>/package.json`, else a lockfile
 *   (package-lock.json / npm-shrinkwrap.json, pnpm-lock.yaml, yarn.lock, bun.lock), else an exact
 *   version in package.json, else Biome's `$schema` URL, else the package.json range. A Prettier
 *   config alone means "any Prettier 3".
 * - Ruff: uv.lock, poetry.lock, a `ruff==` requirements pin, the `rev:` of ruff-pre-commit in
 *   `.pre-commit-config.yaml`, else `required-version` ([tool.ruff] or ruff.toml).
 * - gofmt: go.mod's `toolchain` line, else its `go` line (a minimum language version, shown only).
 * Read at the project root: one version per formatter per root, as one `npm install` gives one.
 * Lockfiles are scanned line by line (bounded, linear), not parsed whole: only one entry is wanted.
 */
import semverSatisfies from 'semver/functions/satisfies.js';
import semverValid from 'semver/functions/valid.js';
import semverValidRange from 'semver/ranges/valid.js';
import semverCompare from 'semver/functions/compare.js';
import { isRecord, parseData } from './data.js';

type PinnedFormatter = 'prettier' | 'biome' | 'ruff' | 'gofmt';

export interface VersionPin {
  formatter: PinnedFormatter;
  /** An exact version (`3.3.3`), or a range: npm semver for Prettier and Biome, PEP 440 for Ruff. */
  spec: string;
  exact: boolean;
  /** Where it was read, as a reader would look for it (`package-lock.json`, `biome.json $schema`). */
  source: string;
  /** Only a config file's presence says which major version is meant (`.prettierrc`: any Prettier 3). */
  implied?: boolean;
  /** gofmt: the `go` line is a language version, not a formatter pin; shown by doctor, never in receipts. */
  informational?: boolean;
}

/** The npm package each pinnable JS formatter is installed as: what `node_modules` and lockfiles name. */
const PIN_PACKAGES: Readonly<Record<'prettier' | 'biome', string>> = { prettier: 'prettier', biome: '@biomejs/biome' };

/** Project-relative files the pins are read from, besides the config files discovery already reads. */
export const PIN_SOURCE_FILES: readonly string[] = [
  'node_modules/prettier/package.json',
  'node_modules/@biomejs/biome/package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lock',
  'uv.lock',
  'poetry.lock',
  'requirements.txt',
  'requirements-dev.txt',
  'dev-requirements.txt',
  'requirements/dev.txt',
  '.pre-commit-config.yaml',
];

/** Lockfiles may be large; each is read up to this many bytes (a bigger one is not read, and doctor says so). */
export const MAX_PIN_SOURCE_BYTES = 32 * 1024 * 1024;

const PRETTIER_CONFIG_FILES = ['.prettierrc', '.prettierrc.json', '.prettierrc.yml', '.prettierrc.yaml', '.prettierrc.json5', '.prettierrc.toml', '.prettierrc.js', 'prettier.config.js', '.prettierrc.mjs', 'prettier.config.mjs', '.prettierrc.cjs', 'prettier.config.cjs', '.prettierrc.ts', 'prettier.config.ts', '.prettierrc.mts', 'prettier.config.mts', '.prettierrc.cts', 'prettier.config.cts'];
const BIOME_CONFIG_FILES = ['biome.json', 'biome.jsonc', '.biome.json', '.biome.jsonc'];

type Files = Readonly<Record<string, string | null | undefined>>;

/** Every pin found at the project root, one per formatter. `files`: project-relative path → text (null: present, not read). */
export function detectPins(files: Files): VersionPin[] {
  const pins: VersionPin[] = [];
  const manifest = rootManifest(files);
  for (const formatter of ['prettier', 'biome'] as const) {
    const pin = npmPin(files, formatter, manifest);
    if (pin) pins.push(pin);
  }
  const ruff = ruffPin(files);
  if (ruff) pins.push(ruff);
  const go = goPin(files);
  if (go) pins.push(go);
  return pins;
}

/** The pin's spec as a user reads it in a receipt: `3.3.3`, or `^3.3.0 (package.json)`. */
export function describePin(pin: VersionPin): string {
  return pin.exact ? pin.spec : `${pin.spec} (${pin.source})`;
}

/**
 * Whether `version` is one the pin allows: equal to an exact pin, inside a range. A version
 * formatbox cannot read (`unknown`) satisfies nothing.
 */
export function pinAllows(pin: VersionPin, version: string): boolean {
  if (pin.formatter === 'ruff') return pep440Allows(pin.spec, version);
  if (pin.formatter === 'gofmt') return true;
  if (!semverValid(version)) return false;
  if (pin.exact) return semverValid(pin.spec) !== null && semverCompare(pin.spec, version) === 0;
  return semverSatisfies(version, pin.spec);
}

// ---------------------------------------------------------------------------
// npm: Prettier and Biome

interface Manifest {
  ranges: Record<string, string>;
}

function rootManifest(files: Files): Manifest | undefined {
  const json = parseJson(files['package.json']);
  if (!isRecord(json)) return undefined;
  const ranges: Record<string, string> = {};
  // npm's order of precedence when a name appears twice: dependencies win over devDependencies.
  for (const field of ['optionalDependencies', 'peerDependencies', 'devDependencies', 'dependencies']) {
    const deps = json[field];
    if (!isRecord(deps)) continue;
    for (const [name, range] of Object.entries(deps)) if (typeof range === 'string') ranges[name] = range.trim();
  }
  return { ranges };
}

function npmPin(files: Files, formatter: 'prettier' | 'biome', manifest: Manifest | undefined): VersionPin | undefined {
  const name = PIN_PACKAGES[formatter];
  const exact = (spec: string, source: string): VersionPin => ({ formatter, spec, exact: true, source });
  const installedPath = `node_modules/${name}/package.json`;
  const installed = parseJson(files[installedPath]);
  if (isRecord(installed) && installed.name === name && typeof installed.version === 'string' && semverValid(installed.version)) {
    return exact(semverValid(installed.version)!, installedPath);
  }
  const range = manifest?.ranges[name];
  const locked = lockedVersion(files, name, range);
  if (locked) return exact(locked.version, locked.source);
  if (range !== undefined && semverValid(range)) return exact(semverValid(range)!, 'package.json');
  if (formatter === 'biome') {
    const schema = biomeSchemaVersion(files);
    if (schema) return exact(schema.version, `${schema.file} $schema`);
  }
  if (range !== undefined && isShowable(range) && semverValidRange(range)) return { formatter, spec: range, exact: false, source: 'package.json' };
  if (formatter === 'prettier') {
    const config = PRETTIER_CONFIG_FILES.find((file) => files[file] !== undefined) ?? (isRecord(parseJson(files['package.json'])) && 'prettier' in (parseJson(files['package.json']) as object) ? 'package.json "prettier"' : undefined);
    if (config) return { formatter, spec: '3', exact: false, source: config, implied: true };
  }
  return undefined;
}

/** The version a lockfile records for `name` (the root's own dependency where the lockfile says which). */
function lockedVersion(files: Files, name: string, range?: string): { version: string; source: string } | undefined {
  for (const file of ['package-lock.json', 'npm-shrinkwrap.json']) {
    const version = npmLockVersion(files[file], name);
    if (version) return { version, source: file };
  }
  const scanners: Array<[string, (text: string, name: string, range?: string) => string | undefined]> = [
    ['pnpm-lock.yaml', pnpmLockVersion],
    ['yarn.lock', yarnLockVersion],
    ['bun.lock', bunLockVersion],
  ];
  for (const [file, scan] of scanners) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const version = semverValid(scan(text, name, range) ?? '');
    if (version) return { version, source: file };
  }
  return undefined;
}

function npmLockVersion(text: string | null | undefined, name: string): string | undefined {
  const lock = parseJson(text);
  if (!isRecord(lock)) return undefined;
  const fromPackages = isRecord(lock.packages) ? lock.packages[`node_modules/${name}`] : undefined;
  const fromDependencies = isRecord(lock.dependencies) ? lock.dependencies[name] : undefined;
  for (const entry of [fromPackages, fromDependencies]) {
    if (isRecord(entry) && typeof entry.version === 'string' && semverValid(entry.version)) return semverValid(entry.version)!;
  }
  return undefined;
}

/**
 * pnpm-lock.yaml (v5–v9): the root importer's entry `name:` with `version: 3.3.3` (or `3.3.3(peer@x)`)
 * in the lines indented below it, or the v5 shorthand `name: 3.3.3`.
 */
function pnpmLockVersion(text: string, name: string): string | undefined {
  const lines = text.split('\n');
  const key = new RegExp(`^(\\s+)['"]?${escapeRegExp(name)}['"]?:\\s*(.*)$`);
  for (let i = 0; i < lines.length; i++) {
    const match = key.exec(lines[i]!);
    if (!match) continue;
    const indent = match[1]!.length;
    const inline = match[2]!.trim();
    if (inline !== '') {
      const version = leadingVersion(inline);
      if (version) return version;
      continue;
    }
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trim() === '') continue;
      if (line.length - line.trimStart().length <= indent) break;
      const field = /^\s+version:\s*['"]?([^'"\s(]+)/.exec(line);
      if (field) return field[1];
    }
  }
  return undefined;
}

/**
 * yarn.lock, classic (`prettier@^3.3.3:` then `  version "3.3.3"`) and berry (`"prettier@npm:^3.3.3":`
 * then `  version: 3.3.3`). With several entries for the name, the one whose header names the
 * package.json range wins.
 */
function yarnLockVersion(text: string, name: string, range?: string): string | undefined {
  const lines = text.split('\n');
  let first: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const header = lines[i]!;
    if (header.startsWith(' ') || header.startsWith('#') || !header.trimEnd().endsWith(':')) continue;
    const specs = header.trimEnd().slice(0, -1).split(',').map((s) => s.trim().replace(/^"|"$/g, ''));
    const mine = specs.filter((spec) => spec.startsWith(`${name}@`));
    if (mine.length === 0) continue;
    let version: string | undefined;
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith(' '); j++) {
      const field = /^\s+version:?\s+"?([^"\s]+)"?/.exec(lines[j]!);
      if (field) {
        version = field[1];
        break;
      }
    }
    if (!version) continue;
    const ranges = mine.map((spec) => spec.slice(name.length + 1).replace(/^npm:/, ''));
    if (range !== undefined && ranges.includes(range)) return version;
    first ??= version;
  }
  return first;
}

/** bun.lock (JSONC): `"packages": { "prettier": ["prettier@3.3.3", …] }`. */
function bunLockVersion(text: string, name: string): string | undefined {
  const match = new RegExp(`"${escapeRegExp(name)}"\\s*:\\s*\\[\\s*"${escapeRegExp(name)}@([^"]+)"`).exec(text);
  return match?.[1];
}

/** `https://biomejs.dev/schemas/2.6.8/schema.json` in the root Biome config. */
function biomeSchemaVersion(files: Files): { version: string; file: string } | undefined {
  for (const file of BIOME_CONFIG_FILES) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const match = /"\$schema"\s*:\s*"https:\/\/(?:next\.)?biomejs\.dev\/schemas\/([^/"]+)\/schema\.json"/.exec(text.slice(0, 64 * 1024));
    const version = match ? semverValid(match[1]!) : null;
    if (version) return { version, file };
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Ruff

const RUFF_PRE_COMMIT = /^\s*-?\s*repo:\s*['"]?https?:\/\/github\.com\/(astral-sh|charliermarsh)\/ruff-pre-commit(\.git)?['"]?\s*$/;

function ruffPin(files: Files): VersionPin | undefined {
  const exact = (spec: string, source: string): VersionPin => ({ formatter: 'ruff', spec, exact: true, source });
  for (const file of ['uv.lock', 'poetry.lock']) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const match = /^\[\[package\]\]\r?\nname = "ruff"\r?\nversion = "([^"]+)"/m.exec(text);
    if (match && isPep440Release(match[1]!)) return exact(match[1]!, file);
  }
  for (const file of ['requirements.txt', 'requirements-dev.txt', 'dev-requirements.txt', 'requirements/dev.txt']) {
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
  for (const [file, table] of [['ruff.toml', []], ['.ruff.toml', []], ['pyproject.toml', ['tool', 'ruff']]] as const) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const parsed = parseData(text, 'toml');
    if (!parsed.ok) continue;
    let value: unknown = parsed.value;
    for (const key of table) value = isRecord(value) ? value[key] : undefined;
    const required = isRecord(value) ? value['required-version'] : undefined;
    if (typeof required !== 'string' || required.trim() === '') continue;
    const spec = required.trim();
    const bare = spec.replace(/^==\s*/, '');
    if (isPep440Release(bare)) return exact(bare, `${file} required-version`);
    if (isShowable(spec) && parsePep440(spec)) return { formatter: 'ruff', spec, exact: false, source: `${file} required-version` };
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

// ---------------------------------------------------------------------------
// Go

function goPin(files: Files): VersionPin | undefined {
  const text = files['go.mod'];
  if (typeof text !== 'string') return undefined;
  const toolchain = /^toolchain\s+go([0-9][0-9A-Za-z.]*)\s*$/m.exec(text);
  if (toolchain) return { formatter: 'gofmt', spec: toolchain[1]!, exact: true, source: 'go.mod toolchain', informational: true };
  const go = /^go\s+([0-9][0-9A-Za-z.]*)\s*$/m.exec(text);
  if (go) return { formatter: 'gofmt', spec: go[1]!, exact: false, source: 'go.mod go line', informational: true };
  return undefined;
}

// ---------------------------------------------------------------------------

function parseJson(text: string | null | undefined): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}

/** `3.3.3` from `3.3.3(typescript@5.0.0)` or `'3.3.3'`. */
function leadingVersion(text: string): string | undefined {
  const match = /^['"]?([0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*)/.exec(text);
  return match?.[1];
}

/**
 * A range from the repository is shown in receipts as written: printable ASCII on one line, short.
 * (semver accepts line breaks between `||` alternatives; a receipt line must not carry them.)
 */
function isShowable(spec: string): boolean {
  return spec.length <= 64 && /^[\x20-\x7e]*$/.test(spec);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
