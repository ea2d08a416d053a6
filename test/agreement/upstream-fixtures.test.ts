/**
 * The formatters' own test fixtures as the reference, read from checkouts named by environment
 * variables (they cannot be copied into this repository); each part skips, saying so, when its
 * variable is unset:
 *   FORMATBOX_UPSTREAM_BIOME=<biomejs/biome at @biomejs/biome@2.4.15>     crates/biome_{js,css,json,graphql}_formatter/tests/specs/**.snap
 *   FORMATBOX_UPSTREAM_RUFF=<astral-sh/ruff checkout, ideally tag 0.16.9>  crates/ruff_python_formatter/resources/test/fixtures/black/**
 *   FORMATBOX_UPSTREAM_PRETTIER=<prettier/prettier checkout>               tests/format/**\/__snapshots__/format.test.js.snap
 * A fixture is checked where its expected output is reproducible through project config (a biome.json,
 * a ruff.toml, a .prettierrc); the others are counted by reason. Every checked fixture must agree,
 * except those listed with a reason (`FORMATBOX_UPSTREAM_REPORT=1` prints each difference).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

const adapters = createBuiltinAdapters();
const REPORT = process.env.FORMATBOX_UPSTREAM_REPORT === '1';

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, keep, out);
    else if (keep(full)) out.push(full);
  }
  return out;
}

interface Tally {
  checked: number;
  agree: number;
  differ: string[];
  notChecked: Map<string, number>;
}

function tally(): Tally {
  return { checked: 0, agree: 0, differ: [], notChecked: new Map() };
}

function skipFixture(t: Tally, reason: string): void {
  t.notChecked.set(reason, (t.notChecked.get(reason) ?? 0) + 1);
}

function summary(name: string, t: Tally): string {
  const skipped = [...t.notChecked.entries()].map(([reason, n]) => `${n} ${reason}`).join('; ');
  return `# ${name}: ${t.agree}/${t.checked} checked fixtures agree${t.differ.length ? ` (${t.differ.length} differ)` : ''}; not checked: ${skipped || 'none'}`;
}

// ---------------------------------------------------------------------------
// Biome: spec snapshots (input, the biome.json options, the formatted output) and Biome's runs of
// Prettier's fixtures (input and Biome's output, with spaces for indentation).

const BIOME = process.env.FORMATBOX_UPSTREAM_BIOME;
const SNAP_HEADINGS = ['# Input', '# Prettier differences', '# Output', '# Errors', '# Options', '# Formatted'];
const isSnapHeading = (line: string) => SNAP_HEADINGS.includes(line) || /^# Lines exceeding max width of \d+ characters$/.test(line);
/** Biome's snapshots show line endings other than LF as markers. */
const withLineEndings = (text: string) => text.replace(/<CRLF>\n/g, '\r\n').replace(/<CR>\n/g, '\r');

/** A Biome `.snap` file's sections, each the text of its first fenced block. */
function snapSections(text: string): Map<string, string> {
  const lines = text.split('\n');
  const sections = new Map<string, string>();
  let current: string | undefined;
  let body: string[] = [];
  const flush = () => {
    if (current === undefined) return;
    const joined = body.join('\n');
    const open = joined.indexOf('```');
    if (open >= 0) {
      const start = joined.indexOf('\n', open) + 1;
      const end = joined.lastIndexOf('\n```');
      sections.set(current, end >= start ? joined.slice(start, end) : '');
    } else sections.set(current, joined);
  };
  for (const line of lines) {
    if (isSnapHeading(line)) {
      flush();
      current = line;
      body = [];
    } else body.push(line);
  }
  flush();
  return sections;
}

const BIOME_BIN = new URL(`../../node_modules/@biomejs/cli-${process.platform}-${process.arch}/biome`, import.meta.url).pathname;

/** What the native Biome CLI (the devDependency, 2.4.15) writes for `input` as `path` under `options`. */
function nativeBiome(options: Record<string, unknown>, path: string, input: string): string | undefined {
  if (!existsSync(BIOME_BIN)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'fb-upstream-biome-'));
  try {
    writeFileSync(join(dir, 'biome.json'), JSON.stringify(options));
    const run = spawnSync(BIOME_BIN, ['format', `--stdin-file-path=${path}`, '--colors=off'], { cwd: dir, input, encoding: 'utf8' });
    return run.status === 0 ? run.stdout : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fixtures whose expected output formatbox does not reproduce, and why. */
const BIOME_KNOWN: Readonly<Record<string, string>> = {};

test('upstream: Biome 2.4.15 spec snapshots', { skip: BIOME ? false : 'FORMATBOX_UPSTREAM_BIOME is not set (a biomejs/biome checkout at @biomejs/biome@2.4.15)', timeout: 600_000 }, async () => {
  const t = tally();
  const roots = ['biome_js_formatter', 'biome_css_formatter', 'biome_json_formatter', 'biome_graphql_formatter'].map((crate) => join(BIOME!, 'crates', crate, 'tests/specs'));
  for (const root of roots) {
    if (!existsSync(root)) continue;
    for (const snap of walk(root, (path) => path.endsWith('.snap'))) {
      const rel = relative(root, snap);
      const sections = snapSections(readFileSync(snap, 'utf8'));
      const input = sections.get('# Input');
      // Biome's runs of Prettier's fixtures print the output without its final newline.
      const formatted = sections.get('# Formatted');
      const expected = formatted !== undefined ? withLineEndings(formatted) : sections.has('# Output') ? `${sections.get('# Output')}\n` : undefined;
      const file = rel.replace(/\.snap$/, '').replace(/\.options\.json$/, '');
      if (input === undefined || expected === undefined) {
        skipFixture(t, 'without an input and one expected output');
        continue;
      }
      if (sections.has('# Errors')) {
        skipFixture(t, 'with parse errors (the CLI formats none)');
        continue;
      }
      if (/\.(scss|sass)$/.test(file)) {
        skipFixture(t, 'SCSS (off in the published 2.4.15 build)');
        continue;
      }
      if (/\.(astro|svelte|vue|html)$/.test(file) || !/\.(m?[jt]sx?|cjs|cts|mts|css|json|jsonc|graphql|gql)$/.test(file)) {
        skipFixture(t, 'of a file type formatbox sends elsewhere');
        continue;
      }
      const prettierRun = rel.startsWith('prettier/');
      let options: Record<string, unknown> = {};
      if (prettierRun) options = { formatter: { indentStyle: 'space' } };
      else if (sections.has('# Options')) {
        try {
          options = JSON.parse(sections.get('# Options') as string) as Record<string, unknown>;
        } catch {
          skipFixture(t, 'whose options are not a biome.json');
          continue;
        }
        delete options.$schema;
      }
      // Prettier's fixtures in Biome are parsed as JSX even in .js, and a few as sloppy-mode scripts.
      if (prettierRun && /(^|\/)js\/(with|sloppy-mode|identifier)\//.test(rel.slice('prettier/'.length))) {
        skipFixture(t, 'parsed as sloppy-mode scripts by the test harness (not expressible in biome.json)');
        continue;
      }
      if (/(^|\/)range\/|_range|range_/.test(rel) || input.includes('PRETTIER_RANGE') || input.includes('<|>')) {
        skipFixture(t, 'formatting a range or at a cursor (the test harness passes it; a project config cannot)');
        continue;
      }
      const path = `fixture/${file.split('/').pop()}`;
      const engine = createEngine({ formatters: adapters, projectFiles: { 'biome.json': JSON.stringify(options) } });
      const outcome = await engine.format({ path, text: input });
      t.checked++;
      if (outcome.content === expected) t.agree++;
      else if (outcome.status === 'failed') {
        // Biome's parser reports an error the CLI stops on (a duplicate declaration, a `with` in a module,
        // invalid syntax kept on purpose); its test harness formats such inputs regardless.
        t.checked--;
        skipFixture(t, 'whose input Biome reports an error in (the CLI refuses to format it; the harness formats it anyway)');
      }
      else if (nativeBiome(options, path, input) === outcome.content) {
        // The snapshot is not what the CLI writes (Biome's harness rewrites prettier-ignore comments, and
        // parses some inputs its own way); formatbox equals the CLI, its promise.
        t.checked--;
        skipFixture(t, "whose snapshot differs from what Biome's own 2.4.15 CLI writes (formatbox equals the CLI)");
      } else if (BIOME_KNOWN[rel]) skipFixture(t, BIOME_KNOWN[rel]!);
      else t.differ.push(`${rel}: ${outcome.status} ${outcome.reason ?? ''}`);
    }
  }
  console.log(summary('Biome 2.4.15 spec snapshots', t));
  if (REPORT) for (const d of t.differ) console.log(`#   ${d}`);
  assert.ok(t.checked > 300, `${t.checked} checked`);
  assert.deepEqual(t.differ, []);
});

// ---------------------------------------------------------------------------
// Ruff: the Black compatibility fixtures (input, the `.options.json` Ruff's harness applies, Black's
// `.expect` output). Where Ruff deviates from Black on purpose, its black_compatibility snapshot holds
// Ruff's own output: that is the reference then.

const RUFF = process.env.FORMATBOX_UPSTREAM_RUFF;

/** A Ruff fixture's `.options.json` (the harness's PyFormatOptions) as ruff.toml, or undefined when an option has no ruff.toml form. */
function ruffToml(options: Record<string, unknown>): string | undefined {
  const top: string[] = [];
  const format: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (key === 'line_width' && typeof value === 'number') top.push(`line-length = ${value}`);
    else if (key === 'preview' && (value === 'enabled' || value === 'disabled')) top.push(`preview = ${value === 'enabled'}`);
    else if (key === 'target_version' && typeof value === 'string' && /^3\.\d+$/.test(value)) top.push(`target-version = "py3${value.slice(2)}"`);
    else if (key === 'magic_trailing_comma' && (value === 'ignore' || value === 'respect')) format.push(`skip-magic-trailing-comma = ${value === 'ignore'}`);
    else return undefined;
  }
  return `${top.join('\n')}\n${format.length ? `[format]\n${format.join('\n')}\n` : ''}`;
}

test('upstream: Ruff formatter fixtures (Black compatibility cases)', { skip: RUFF ? false : 'FORMATBOX_UPSTREAM_RUFF is not set (an astral-sh/ruff checkout)', timeout: 600_000 }, async () => {
  const t = tally();
  const fixtures = join(RUFF!, 'crates/ruff_python_formatter/resources/test/fixtures/black');
  const snapshots = join(RUFF!, 'crates/ruff_python_formatter/tests/snapshots');
  let viaSnapshot = 0;
  for (const input of walk(fixtures, (path) => /\.pyi?$/.test(path))) {
    const expectFile = `${input}.expect`;
    if (!existsSync(expectFile)) continue;
    const rel = relative(fixtures, input);
    const text = readFileSync(input, 'utf8');
    if (/^# flags:.*--line-ranges/m.test(text.split('\n', 1)[0] ?? '')) {
      skipFixture(t, 'formatting line ranges (--line-ranges; no project config for it)');
      continue;
    }
    const optionsFile = input.replace(/\.pyi?$/, '.options.json');
    const toml = ruffToml(existsSync(optionsFile) ? (JSON.parse(readFileSync(optionsFile, 'utf8')) as Record<string, unknown>) : {});
    if (toml === undefined) {
      skipFixture(t, 'with a harness option ruff.toml cannot express');
      continue;
    }
    // Ruff's own output where it deviates from Black (its snapshot), else Black's.
    const snapshot = join(snapshots, `black_compatibility@${rel.replace(/\//g, '__')}.snap`);
    let expected = readFileSync(expectFile, 'utf8');
    if (existsSync(snapshot)) {
      const ruffOutput = /^## Ruff Output\n\n```python\n([\s\S]*?)```\n/m.exec(readFileSync(snapshot, 'utf8'))?.[1];
      if (ruffOutput !== undefined) {
        expected = ruffOutput;
        viaSnapshot++;
      }
    }
    const engine = createEngine({ formatters: adapters, projectFiles: { 'ruff.toml': toml } });
    const outcome = await engine.format({ path: input.split('/').pop()!, text });
    t.checked++;
    if (outcome.content === expected) t.agree++;
    else t.differ.push(`${rel}: ${outcome.status} ${outcome.reason ?? ''}${outcome.formatter ? ` (${outcome.formatter.name} ${outcome.formatter.version})` : ''}`);
  }
  console.log(`${summary('Ruff Black-compatibility fixtures', t)}; ${viaSnapshot} compared with Ruff's own output in its black_compatibility snapshot (where Ruff deviates from Black)`);
  if (REPORT) for (const d of t.differ) console.log(`#   ${d}`);
  assert.ok(t.checked > 50, `${t.checked} checked`);
  assert.deepEqual(t.differ, []);
});

/** The installed Prettier's own output for `input` as `path` with `options`, or undefined when it throws. */
async function prettierItself(prettier: typeof import('prettier'), input: string, path: string, options: Record<string, unknown>): Promise<string | undefined> {
  try {
    return await prettier.format(input, { ...options, filepath: path });
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// Prettier: `tests/format/**/format.test.js.snap`, the cases whose options are expressible in a
// .prettierrc (parsers are inferred from the file name, as the CLI does).

const PRETTIER = process.env.FORMATBOX_UPSTREAM_PRETTIER;

test('upstream: Prettier tests/format snapshots', { skip: PRETTIER ? false : 'FORMATBOX_UPSTREAM_PRETTIER is not set (a prettier/prettier checkout)', timeout: 1_800_000 }, async () => {
  const t = tally();
  const root = join(PRETTIER!, 'tests/format');
  const prettier = await import('prettier');
  for (const snap of walk(root, (path) => path.endsWith('format.test.js.snap'))) {
    const text = readFileSync(snap, 'utf8');
    for (const match of text.matchAll(/^exports\[`(.+?) format 1`\] = `\n([\s\S]*?)\n`;$/gm)) {
      const [, name, body] = match as unknown as [string, string, string];
      const parts = /={20,}options={20,}\n([\s\S]*?)\n(?:\s*\|[^\n]*\n)?={20,}input={20,}\n([\s\S]*?)\n={20,}output={20,}\n([\s\S]*?)\n={60,}$/.exec(body.replace(/\\([\\`$])/g, '$1'));
      if (!parts) {
        skipFixture(t, 'not in the one-output snapshot shape');
        continue;
      }
      const [, optionsText, input, output] = parts as unknown as [string, string, string, string];
      const options: Record<string, unknown> = {};
      let parser: string | undefined;
      let expressible = true;
      for (const line of optionsText.split('\n')) {
        // The ruler line: `printWidth: 80 (default) |`.
        const ruler = /^\s*printWidth: (\d+).*\|$/.exec(line) ?? /^\s*\|\s*printWidth/.exec(line);
        if (ruler) {
          if (ruler[1] !== undefined && ruler[1] !== '80') options.printWidth = Number(ruler[1]);
          continue;
        }
        const option = /^(\w+): (.*)$/.exec(line.trim());
        if (!option) continue;
        const [, key, raw] = option as unknown as [string, string, string];
        if (key === 'parsers') parser = (JSON.parse(raw) as string[])[0];
        else if (key === 'printWidth' && raw === '80') continue;
        else {
          try {
            options[key] = JSON.parse(raw);
          } catch {
            options[key] = raw.replace(/^"|"$/g, '');
          }
          if (['cursorOffset', 'rangeStart', 'rangeEnd', 'requirePragma', 'insertPragma', 'filepath'].includes(key)) expressible = false;
        }
      }
      const file = name.replace(/ - \{.*\}$/, '');
      // No .prettierignore of the caller's working directory applies to a fixture.
      const inferred = (await prettier.getFileInfo(`x/${file}`, { ignorePath: [] as unknown as string })).inferredParser;
      if (Object.values(options).some((value) => typeof value === 'string' && /^-?Infinity$/.test(value))) expressible = false;
      if (!expressible || (parser !== undefined && inferred !== parser)) {
        skipFixture(t, 'whose parser is not the one the file name gives, or with per-call options (cursor, range, pragma)');
        continue;
      }
      if (file.startsWith('snippet: ')) {
        skipFixture(t, 'given as a snippet without a file name');
        continue;
      }
      if (/<CR>|<CRLF>/.test(input)) {
        skipFixture(t, 'with line endings shown as markers');
        continue;
      }
      if (input.includes('<|>') || input.includes('<<<PRETTIER_RANGE_START>>>')) {
        skipFixture(t, 'with a cursor or range marker');
        continue;
      }
      const engine = createEngine({ formatters: adapters, projectFiles: { '.prettierrc': JSON.stringify(options) } });
      const outcome = await engine.format({ path: `x/${file}`, text: input });
      t.checked++;
      if (outcome.content === output || outcome.content === `${output}\n`) t.agree++;
      else if (outcome.status === 'failed' && (await prettierItself(prettier, input, `x/${file}`, options)) === undefined) {
        t.checked--;
        skipFixture(t, 'that the installed Prettier rejects too, with the parser the file name gives (the snapshot used another)');
      } else if (outcome.content === (await prettierItself(prettier, input, `x/${file}`, options))) {
        // The checkout is another Prettier than the one formatbox ships; formatbox equals the shipped one's API.
        t.checked--;
        skipFixture(t, `whose snapshot differs from what the installed Prettier ${(prettier as unknown as { version: string }).version} writes (formatbox equals it)`);
      } else t.differ.push(`${relative(root, snap)}: ${file}: ${outcome.status} ${outcome.reason ?? ''}`);
    }
  }
  console.log(summary('Prettier tests/format snapshots', t));
  if (REPORT) for (const d of t.differ.slice(0, 200)) console.log(`#   ${d}`);
  assert.ok(t.checked > 1000, `${t.checked} checked`);
  // A checkout of another Prettier than the shipped one: its snapshots that differ from the installed Prettier's own output are counted apart above.
  assert.deepEqual(t.differ, []);
});
