/**
 * User config (trusted) normalised into one internal form. Accepts formatbox's own shape and the
 * prior-art shapes unchanged: code-assistant's `format_on_save` glob map and the agent gateway's
 * `format: {enabled, onEdit, timeoutMs, maxOutputChars}`. Commands become argv arrays (quotes group
 * arguments, no shell); well-known formatter commands map to formatbox's built-in formatters.
 */
import picomatch from 'picomatch';
import type { FormatterChoice, ProjectCodePolicy, UserConfig, VersionPolicy } from '../core/types.js';
import { FormatboxError } from '../core/errors.js';
import { userLimits } from './limits.js';
import { BUILTIN_ADAPTER_NAMES } from '../formatters/derived.js';

export interface UserRule {
  /** The key as written (`python`, `**\/*.rs`). */
  key: string;
  /** Where it came from: `formatters`, `format_on_save`, `format.onEdit`. */
  source: string;
  kind: 'language' | 'glob';
  /** For globs. */
  test?: (path: string) => boolean;
  /** `false` turns formatting off for matching files. */
  choice: FormatterChoice | false;
  /** Short human reason, used as `Selection.because`. */
  because: string;
}

export interface NormalisedUserConfig {
  enabled: boolean;
  mode: 'project' | 'always';
  /** Glob rules first (in the order written), then language rules. */
  rules: UserRule[];
  languages: Record<string, string[]>;
  timeoutMs?: number;
  maxInputBytes?: number;
  maxDiffChars?: number;
  report?: 'receipt' | 'line' | 'none';
  scope?: 'file' | 'edit';
  versions: VersionPolicy;
  projectCode: ProjectCodePolicy;
}

/** A key containing `/`, `*`, `{` or `.` is a glob; otherwise a language id. */
export function isGlobKey(key: string): boolean {
  return /[/*{.]/.test(key);
}

/**
 * `adapterNames`: names of the adapters the host registered besides the built-ins (e.g. a test or
 * company formatter); a string choice naming one selects it instead of being read as a command.
 */
export function normaliseUserConfig(config: UserConfig | undefined, options: { adapterNames?: Iterable<string> } = {}): NormalisedUserConfig {
  const c: UserConfig = config ?? {};
  const names = new Set([...BUILT_IN_NAMES, ...(options.adapterNames ?? [])]);
  if (typeof c !== 'object' || c === null || Array.isArray(c)) throw invalid('user config must be an object');
  const gateway = c.format;
  if (gateway !== undefined && (typeof gateway !== 'object' || gateway === null)) throw invalid('format must be an object');
  const mode = c.mode ?? (gateway && gateway.enabled !== false ? 'always' : 'project');
  if (mode !== 'project' && mode !== 'always') throw invalid(`mode must be 'project' or 'always', not ${JSON.stringify(mode)}`);
  const out: NormalisedUserConfig = {
    enabled: c.enabled ?? gateway?.enabled ?? true,
    mode,
    rules: [],
    languages: {},
    versions: 'prefer-pinned',
    projectCode: 'sandbox',
  };
  if (typeof out.enabled !== 'boolean') throw invalid('enabled must be a boolean');
  Object.assign(out, userLimits(c));
  if (c.report !== undefined) {
    if (!['receipt', 'line', 'none'].includes(c.report)) throw invalid(`report must be 'receipt', 'line' or 'none'`);
    out.report = c.report;
  }
  if (c.scope !== undefined) {
    if (!['file', 'edit'].includes(c.scope)) throw invalid(`scope must be 'file' or 'edit'`);
    out.scope = c.scope;
  }
  if (c.versions !== undefined) {
    if (!['prefer-pinned', 'pinned', 'shipped'].includes(c.versions)) throw invalid(`versions must be 'prefer-pinned', 'pinned' or 'shipped'`);
    out.versions = c.versions;
  }
  if (c.projectCode !== undefined) {
    if (c.projectCode !== 'sandbox' && c.projectCode !== 'refuse') throw invalid(`projectCode must be 'sandbox' or 'refuse'`);
    out.projectCode = c.projectCode;
  }
  if (c.languages !== undefined) {
    for (const [language, extensions] of Object.entries(c.languages)) {
      if (!Array.isArray(extensions) || !extensions.every((e) => typeof e === 'string')) throw invalid(`languages.${language} must be a list of extensions`);
      out.languages[language] = extensions.map((e) => e.replace(/^\./, '').toLowerCase());
    }
  }
  const globs: UserRule[] = [];
  const byLanguage: UserRule[] = [];
  const add = (key: string, value: unknown, source: string, appendFile: boolean): void => {
    const rule = toRule(key, value, source, appendFile, names);
    (rule.kind === 'glob' ? globs : byLanguage).push(rule);
  };
  for (const [key, value] of Object.entries(c.formatters ?? {})) add(key, value, 'formatters', false);
  for (const [key, value] of Object.entries(gateway?.onEdit ?? {})) add(key, value, 'format.onEdit', true);
  for (const [key, value] of Object.entries(c.format_on_save ?? {})) add(key, value, 'format_on_save', false);
  // A language without defaults (e.g. sql) matches files whose extension equals the id.
  for (const rule of byLanguage) {
    if (rule.choice !== false && !(rule.key in out.languages) && !KNOWN_LANGUAGE_IDS.has(rule.key)) out.languages[rule.key] = [rule.key.toLowerCase()];
  }
  out.rules = [...globs, ...byLanguage];
  return out;
}

/** Language ids that already have extensions in the language table (src/core/languages.ts). */
const KNOWN_LANGUAGE_IDS = new Set([
  'javascript', 'typescript', 'json', 'jsonc', 'json5', 'css', 'scss', 'less', 'markdown', 'mdx', 'yaml', 'html', 'vue',
  'graphql', 'python', 'go', 'rust', 'toml', 'c', 'cpp', 'java', 'proto', 'csharp',
  'shell', 'lua', 'sql', 'php', 'xml', 'dockerfile', 'svelte', 'astro', 'kotlin', 'handlebars', 'objective-c', 'verilog', 'textproto',
]);

function toRule(key: string, value: unknown, source: string, appendFile: boolean, names: ReadonlySet<string>): UserRule {
  const where = `${source}[${JSON.stringify(key)}]`;
  const kind = isGlobKey(key) ? 'glob' : 'language';
  const rule: UserRule = { key, source, kind, choice: false, because: '' };
  if (kind === 'glob') {
    const matcher = picomatch(key, { dot: true, basename: !key.includes('/') });
    rule.test = (path) => matcher(path);
  }
  if (value === false || value === null) {
    rule.because = `${where} is false in the user config`;
    return rule;
  }
  if (typeof value === 'string') {
    if (names.has(value)) {
      rule.choice = value;
      rule.because = `${where} chooses ${value} in the user config`;
      return rule;
    }
    return commandRule(rule, splitCommand(value, where), where, appendFile);
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    if ('command' in v) {
      const argv = typeof v.command === 'string' ? splitCommand(v.command, where) : v.command;
      if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) throw invalid(`${where}.command must be a string or a non-empty list of strings`);
      return commandRule(rule, argv, where, false);
    }
    if (typeof v.wasi === 'string') {
      if (v.args !== undefined && !(Array.isArray(v.args) && v.args.every((a) => typeof a === 'string'))) throw invalid(`${where}.args must be a list of strings`);
      if (v.sha256 !== undefined && !(typeof v.sha256 === 'string' && /^[0-9a-f]{64}$/i.test(v.sha256))) throw invalid(`${where}.sha256 must be 64 hex digits`);
      if (v.env !== undefined && !(typeof v.env === 'object' && v.env !== null && !Array.isArray(v.env) && Object.values(v.env).every((e) => typeof e === 'string'))) throw invalid(`${where}.env must be an object of strings`);
      rule.choice = { wasi: v.wasi, ...(v.args ? { args: v.args as string[] } : {}), ...(v.env ? { env: { ...(v.env as Record<string, string>) } } : {}), ...(v.sha256 ? { sha256: (v.sha256 as string).toLowerCase() } : {}) };
      rule.because = `${where} runs the WASI module ${v.wasi}`;
      return rule;
    }
    if (typeof v.dprint === 'string') {
      if (v.sha256 !== undefined && !(typeof v.sha256 === 'string' && /^[0-9a-f]{64}$/i.test(v.sha256))) throw invalid(`${where}.sha256 must be 64 hex digits`);
      rule.choice = {
        dprint: v.dprint,
        ...(typeof v.sha256 === 'string' ? { sha256: v.sha256.toLowerCase() } : {}),
        ...(v.settings && typeof v.settings === 'object' && !Array.isArray(v.settings) ? { settings: v.settings as Record<string, unknown> } : {}),
        ...(typeof v.declaredBy === 'string' ? { declaredBy: v.declaredBy } : {}),
      };
      rule.because = typeof v.declaredBy === 'string' ? `${v.declaredBy} lists the dprint plugin ${v.dprint}` : `${where} runs the dprint plugin ${v.dprint}`;
      return rule;
    }
  }
  throw invalid(`${where} must be a formatter name, a command, {command}, {wasi}, {dprint} or false`);
}

/** Every built-in formatter's adapter names (formatters/registry.ts). */
export const BUILT_IN_NAMES: ReadonlySet<string> = new Set(BUILTIN_ADAPTER_NAMES);

/** Well-known formatter commands → the built-in that does the same job in-process (or sandboxed). */
const WELL_KNOWN: Array<{ match: (argv: string[]) => number; builtin: string; via: string }> = [
  { match: (a) => (a[0] === 'prettier' ? 1 : 0), builtin: 'prettier', via: 'js' },
  { match: (a) => (a[0] === 'biome' && (a[1] === 'format' || a[1] === 'check') ? 2 : 0), builtin: 'biome', via: 'wasm' },
  { match: (a) => (a[0] === 'ruff' && a[1] === 'format' ? 2 : 0), builtin: 'ruff', via: 'wasm' },
  { match: (a) => (a[0] === 'gofmt' ? 1 : a[0] === 'go' && a[1] === 'fmt' ? 2 : 0), builtin: 'gofmt', via: 'wasm' },
  { match: (a) => (a[0] === 'cargo' && a[1] === 'fmt' ? 2 : a[0] === 'rustfmt' ? 1 : 0), builtin: 'rustfmt', via: 'sandbox' },
  { match: (a) => (a[0] === 'clang-format' ? 1 : 0), builtin: 'clang-format', via: 'wasm' },
  { match: (a) => (a[0] === 'taplo' && (a[1] === 'fmt' || a[1] === 'format') ? 2 : 0), builtin: 'toml', via: 'wasm' },
];

/** Flags that only say "format in place" or name the file: dropping them changes nothing. */
const HARMLESS = /^(--write|-w|-i|--quiet|-q|--log-level=\S+|--loglevel=\S+|--edition(=\S+)?|20\d\d|--|\{file\}|\{path\}|\$FILE|\.|--all)$/;

function commandRule(rule: UserRule, argv: string[], where: string, appendFile: boolean): UserRule {
  const stripped = stripRunner(argv);
  const base = stripped.map((a, i) => (i === 0 ? a.slice(a.lastIndexOf('/') + 1) : a));
  for (const known of WELL_KNOWN) {
    const consumed = known.match(base);
    if (consumed === 0) continue;
    const dropped = base.slice(consumed).filter((a) => !HARMLESS.test(a));
    rule.choice = known.builtin;
    rule.because = `${where} "${argv.join(' ')}" runs formatbox's built-in ${known.builtin} (${known.via}) instead of a binary${dropped.length ? `; arguments ${dropped.join(' ')} are not used` : ''}`;
    return rule;
  }
  const hasPlaceholder = argv.some((a) => a.includes('{file}') || a.includes('{path}') || a.includes('$FILE'));
  const command = appendFile && !hasPlaceholder ? [...argv, '{file}'] : argv;
  rule.choice = { command };
  rule.because = `${where} runs ${JSON.stringify(command.join(' '))} in the sandbox`;
  return rule;
}

/** `npx prettier`, `pnpm exec biome`, `uv run ruff` → the formatter's own argv. */
function stripRunner(argv: string[]): string[] {
  const runners: string[][] = [['npx'], ['bunx'], ['pnpx'], ['pnpm', 'exec'], ['pnpm', 'dlx'], ['yarn'], ['npm', 'exec'], ['uv', 'run'], ['uvx'], ['poetry', 'run'], ['pipx', 'run']];
  for (const runner of runners) {
    if (runner.every((word, i) => argv[i] === word)) {
      let rest = argv.slice(runner.length);
      while (rest[0]?.startsWith('-')) rest = rest.slice(1);
      return rest.map((a, i) => (i === 0 && a === '@biomejs/biome' ? 'biome' : a));
    }
  }
  return argv;
}

/** Splits a command line into argv: whitespace separates, quotes group, backslash escapes; no shell. */
export function splitCommand(line: string, where = 'command'): string[] {
  const argv: string[] = [];
  let current = '';
  let inWord = false;
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"' && (line[i + 1] === '"' || line[i + 1] === '\\')) current += line[++i];
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) argv.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote) throw invalid(`${where}: unclosed ${quote} in ${JSON.stringify(line)}`);
  if (inWord) argv.push(current);
  if (argv.length === 0) throw invalid(`${where}: empty command`);
  const operator = argv.find((a) => /^(\||\|\||&&|;|>|>>|<|&)$/.test(a));
  if (operator) throw invalid(`${where}: ${JSON.stringify(operator)} needs a shell, and commands run without one: ${JSON.stringify(line)}`);
  return argv;
}

function invalid(message: string): FormatboxError {
  return new FormatboxError('INVALID_CONFIG', `user config: ${message}`);
}
