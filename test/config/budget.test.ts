// The project config budget (security review class 5) and the output cap and option clamps
// (class 7), on the pure functions and the engine with the real Prettier. The hostile, end-to-end
// cases (child processes bounded in time, stall and memory) are in test/hostile/config-budget.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileGlob, ConfigBudget, globCost, GLOB_LIMITS, loadProjectConfig, MAX_UNTRUSTED_INDENT, normaliseUserConfig, readIgnoreFile, selectFormatter } from '../../src/config/index.js';
import { expandBraces, type GlobCost } from '../../src/config/glob.js';
import { createEngine } from '../../src/engine/engine.js';
import { maxOutputBytes, outputOverCap } from '../../src/core/output-cap.js';
import type { AdapterRequest, FormatterAdapter } from '../../src/core/types.js';
import { prettierFormatter } from '../../src/formatters/prettier/adapter.js';
import { discoverProjectFiles } from '../../src/node/discover.js';

/** A small deterministic generator (xorshift), so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

test('globCost sizes a brace expansion exactly as expandBraces expands it, without expanding', () => {
  const next = random(20261130);
  const atoms = ['a', 'bc', '{', '}', ',', '\\', '*', '[', ']', '1..3', '{1..3}', '{-2..2}', '/', '**/', '{x}'];
  let compared = 0;
  for (let i = 0; i < 20_000; i++) {
    let pattern = '';
    const length = 1 + Math.floor(next() * 14);
    for (let k = 0; k < length; k++) pattern += atoms[Math.floor(next() * atoms.length)];
    let expanded: string[];
    try {
      expanded = expandBraces(pattern, 0);
    } catch {
      continue; // Refused (nesting or range); globCost must refuse too.
    }
    const cost = globCost(pattern);
    assert.deepEqual(cost, { alternatives: expanded.length, chars: expanded.reduce((sum, s) => sum + s.length, 0) }, pattern);
    compared++;
  }
  assert.ok(compared > 15_000, `${compared} patterns compared`);
});

test('a glob is sized before it is expanded: 2^200 alternatives in 1,000 characters are refused at once', () => {
  const doubling = '{a,b}'.repeat(200);
  assert.equal(globCost(doubling).alternatives, 2 ** 200);
  const started = performance.now();
  const compiled = compileGlob(doubling);
  assert.equal(compiled.ok, false);
  assert.match(compiled.ok ? '' : compiled.reason, /more than 256 globs/);
  // 256 alternatives of ~1,000 characters: within the alternatives cap, past the expanded-size cap.
  const wide = compileGlob(`${'{a,b}'.repeat(8)}${'y'.repeat(960)}`);
  assert.match(wide.ok ? '' : wide.reason, new RegExp(`more than ${GLOB_LIMITS.maxExpandedChars} characters`));
  // Nested ranges: 100 × 256 alternatives used to be built before the count was checked.
  const ranges = compileGlob(`{${Array.from({ length: 100 }, () => '{1..256}').join(',')}}`);
  assert.match(ranges.ok ? '' : ranges.reason, /more than 256 globs/);
  assert.ok(performance.now() - started < 1000);
});

test('the budget is charged before expanding, and refuses everything once spent', () => {
  const spent: GlobCost[] = [];
  const budget = new ConfigBudget({ maxPatterns: 3, maxGlobChars: 100 });
  const spy = { spend: (cost: GlobCost) => (spent.push(cost), budget.spend(cost)) };
  assert.equal(compileGlob('*.{js,ts}', spy).ok, true);
  assert.deepEqual(spent[0], { alternatives: 2, chars: 8 });
  // Refused by a per-glob limit: counted as one pattern of no size.
  assert.equal(compileGlob('{a,b}'.repeat(20), spy).ok, false);
  assert.deepEqual(spent[1], { alternatives: 0, chars: 0 });
  assert.equal(compileGlob('src/**', spy).ok, true);
  const fourth = compileGlob('lib/**', spy);
  assert.equal(fourth.ok, false);
  assert.match(fourth.ok ? '' : fourth.reason, /over the project config budget \(more than 3 glob patterns/);
  assert.equal(compileGlob('x', spy).ok, false, 'nothing more once the budget is spent');
  const chars = new ConfigBudget({ maxGlobChars: 10 });
  assert.equal(compileGlob('{aaaa,bbbb}', chars).ok, true);
  assert.match(chars.spend({ alternatives: 1, chars: 3 }) ?? '', /more than 10 glob characters after brace expansion/);
  const text = new ConfigBudget({ maxConfigChars: 10 });
  assert.equal(text.spendText(10), undefined);
  assert.match(text.spendText(1) ?? '', /more than 10 characters of config text/);
});

test('the budget has a time limit, read from the clock port', () => {
  let now = 0;
  const budget = new ConfigBudget({ maxMs: 50 }, () => now);
  assert.equal(budget.spend({ alternatives: 1, chars: 1 }), undefined);
  now = 51;
  assert.match(budget.spend({ alternatives: 1, chars: 1 }) ?? '', /loading took more than 50 ms/);
  // A load whose clock runs past the budget stops and is refused.
  let tick = 0;
  const files = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}/.editorconfig`, '[*.ts]\nindent_size = 4\n']));
  const project = loadProjectConfig({ ...files, '.prettierrc': '{}' }, { budget: { maxMs: 20 }, clock: () => tick++ });
  assert.match(project.overBudget ?? '', /loading took more than 20 ms/);
  assert.ok(project.editorconfig.length < 50, `${project.editorconfig.length} files were still read`);
});

test('a project over budget: refused items listed once per file, one budget item, and the engine refuses with the reason', async () => {
  const files: Record<string, string> = { '.prettierrc': '{}' };
  for (let d = 0; d < 30; d++) files[`p${d}/.editorconfig`] = Array.from({ length: 100 }, (_, i) => `[dir${i}/*.{js,ts}]\nindent_size = 2\n`).join('');
  const project = loadProjectConfig(files, { budget: { maxPatterns: 1000 } });
  assert.match(project.overBudget ?? '', /more than 1000 glob patterns/);
  const budgetItems = project.ignored.filter((i) => i.file === '(project config)');
  assert.equal(budgetItems.length, 1);
  assert.match(budgetItems[0]?.item ?? '', /^config budget: \d+\/8388608 characters, 1000\/1000 globs/);
  assert.match(budgetItems[0]?.reason ?? '', /formatting is refused in this project/);
  const perFile = project.ignored.filter((i) => i.file !== '(project config)');
  assert.equal(perFile.length, 1, JSON.stringify(perFile.slice(0, 3)));
  assert.match(perFile[0]?.item ?? '', /and 99 more$/);

  // Within budget, the same files load normally.
  assert.equal(loadProjectConfig(files).overBudget, undefined);

  const engine = createEngine({ formatters: [prettierFormatter()], projectFiles: files });
  // The engine's budget is the default one; give it a project over that.
  for (let d = 30; d < 300; d++) files[`p${d}/.editorconfig`] = files['p0/.editorconfig'] as string;
  engine.setProjectFiles(files);
  const outcome = await engine.format({ path: 'src/a.ts', text: 'let  a=1\n' });
  assert.equal(outcome.status, 'refused');
  assert.match(outcome.reason ?? '', /over the project config budget \(more than \d+ glob (patterns|characters).*does not format with part of a project's config/);
  assert.equal(outcome.content, 'let  a=1\n');
  assert.match(outcome.ignored?.[0]?.item ?? '', /config budget/);
  const explained = engine.explain('src/a.ts');
  assert.equal(explained.kind, 'skip');
  assert.match(explained.kind === 'skip' ? explained.detail ?? '' : '', /over the project config budget/);
  await engine.dispose();
});

test('an ignore file is compiled once: both flavours share its globs, and the same text is not compiled again', () => {
  const text = 'dist/\n*.log\n!keep.log\nbuild-*/out\n{a,b}.tmp\n';
  const spent: GlobCost[] = [];
  const spy = { spend: (cost: GlobCost) => (spent.push(cost), undefined) };
  const first = readIgnoreFile(text, 'x/.gitignore', 'x', ['git', 'biome'], spy);
  // 5 patterns; only `{a,b}.tmp` reads differently (literal for git, an alternation for Biome).
  assert.equal(spent.length, 6);
  assert.equal(first.git.file.rules.length, 5);
  assert.equal(first.biome.file.rules.length, 5);
  assert.equal(first.git.file.rules[0]?.test, first.biome.file.rules[0]?.test, 'the same compiled matcher');
  // Another file with the same text (another directory, or after a config change): no compile, the cost is charged again.
  const second = readIgnoreFile(text, 'y/.gitignore', 'y', ['git', 'biome'], spy);
  assert.equal(second.git.file.rules[1]?.test, first.git.file.rules[1]?.test);
  assert.equal(second.git.file.file, 'y/.gitignore');
  assert.equal(spent.length, 12);
  // A budget that runs out while charging a cached text refuses that file.
  const small = new ConfigBudget({ maxPatterns: 2 });
  const refused = readIgnoreFile(text, 'z/.gitignore', 'z', ['git', 'biome'], small);
  assert.equal(refused.git.file.rules.length, 0);
  assert.match(refused.git.ignored[0]?.reason ?? '', /over the project config budget/);
});

test('untrusted mode clamps indentation widths, lists each clamp, and leaves trusted mode and sane values alone', () => {
  const files = {
    '.prettierrc': JSON.stringify({ tabWidth: 100000, printWidth: 100000, overrides: [{ files: '*.md', options: { tabWidth: 40 } }] }),
    '.editorconfig': '[*]\nindent_size = 100000\ntab_width = 8\nmax_line_length = 100000\n',
    'b/biome.json': JSON.stringify({ formatter: { indentWidth: 24 }, overrides: [{ includes: ['*.ts'], javascript: { formatter: { indentWidth: 20 } } }] }),
    'c/.clang-format': 'IndentWidth: 100\nSpacesBeforeTrailingComments: 100000\nColumnLimit: 100000\nSpacesInLineCommentPrefix: { Minimum: 500, Maximum: -1 }\n',
    'r/rustfmt.toml': 'tab_spaces = 64\nmax_width = 100\n',
    'r/Cargo.toml': '[package]\nname = "r"\n',
    'd/dprint.json': JSON.stringify({ indentWidth: 2, json: { indentWidth: 99 } }),
  };
  const project = loadProjectConfig(files);
  const prettier = project.prettier[0];
  assert.equal(prettier?.options.tabWidth, MAX_UNTRUSTED_INDENT);
  assert.equal(prettier?.options.printWidth, 100000, 'line widths are not clamped: they do not inflate output');
  assert.equal(prettier?.overrides[0]?.options.tabWidth, MAX_UNTRUSTED_INDENT);
  assert.match(prettier?.ignored[0]?.item ?? '', /^tabWidth: 100000$/);
  assert.match(prettier?.ignored[0]?.reason ?? '', /clamped from 100000 to 16 in untrusted mode.*differs from what Prettier's own CLI writes/);
  assert.equal(project.editorconfig[0]?.sections[0]?.properties.indent_size, '16');
  assert.equal(project.editorconfig[0]?.sections[0]?.properties.tab_width, '8');
  assert.equal(project.biome[0]?.configuration.formatter && (project.biome[0].configuration.formatter as Record<string, unknown>).indentWidth, 16);
  const items = project.ignored.map((i) => `${i.file}: ${i.item}`);
  for (const expected of [
    '.prettierrc: overrides[0].options.tabWidth: 40',
    '.editorconfig: [*] indent_size = 100000',
    'b/biome.json: formatter.indentWidth: 24',
    'b/biome.json: overrides[0].javascript.formatter.indentWidth: 20',
    'c/.clang-format: IndentWidth: 100',
    'c/.clang-format: SpacesBeforeTrailingComments: 100000',
    'c/.clang-format: SpacesInLineCommentPrefix.Minimum: 500',
    'r/rustfmt.toml: tab_spaces = 64',
    'd/dprint.json: json.indentWidth: 99',
  ]) {
    assert.ok(items.includes(expected), `${expected} not in\n${items.join('\n')}`);
  }
  assert.equal(items.filter((i) => i.includes('ColumnLimit') || i.includes('max_line_length') || i.includes('printWidth')).length, 0);
  assert.match(project.rustfmt[0]?.text ?? '', /^tab_spaces = 16\nmax_width = 100\n$/);
  // The receipt of each formatter carries its clamps.
  const user = normaliseUserConfig({ mode: 'always' });
  const forClang = selectFormatter(project, user, 'c/x.c');
  assert.ok(forClang.kind === 'format' && forClang.ignored.some((i) => i.item === 'IndentWidth: 100'));
  const forRust = selectFormatter(project, user, 'r/src/main.rs');
  assert.ok(forRust.kind === 'format' && forRust.ignored.some((i) => i.item === 'tab_spaces = 64'));
  const forPrettier = selectFormatter(project, user, 'src/a.ts');
  assert.ok(forPrettier.kind === 'format' && forPrettier.ignored.some((i) => i.item === '[*] indent_size = 100000'));

  const trusted = loadProjectConfig(files, { trust: 'trusted' });
  assert.equal(trusted.editorconfig[0]?.sections[0]?.properties.indent_size, '100000');
  assert.equal(trusted.ignored.filter((i) => /clamped/.test(i.reason)).length, 0);
});

test('the output cap is max(4 × input, input + 1 MiB) in UTF-8 bytes', () => {
  assert.equal(maxOutputBytes(100), 100 + 1024 * 1024);
  assert.equal(maxOutputBytes(1024 * 1024), 4 * 1024 * 1024);
  const input = 'x'.repeat(1000);
  assert.equal(outputOverCap(input, 'y'.repeat(maxOutputBytes(1000))), undefined);
  assert.match(outputOverCap(input, 'y'.repeat(maxOutputBytes(1000) + 1)) ?? '', /past the output cap of 1049576 bytes \(max\(4 × input, input \+ 1 MiB\), input 1000 bytes\)/);
  // Counted in UTF-8 bytes: 3 bytes per character here.
  assert.match(outputOverCap(input, '€'.repeat(Math.ceil(maxOutputBytes(1000) / 3) + 1)) ?? '', /output cap/);
  assert.equal(outputOverCap(input, '€'.repeat(Math.floor(maxOutputBytes(1000) / 3))), undefined);
});

test('the engine refuses an output past the cap from any adapter, in-process ones too (failed, the text as written)', async () => {
  // An adapter that inflates, standing in for any in-process formatter; the real one (Prettier in
  // trusted mode with tabWidth 5000) is a hostile case in test/hostile/config-budget.test.ts.
  const inflating: FormatterAdapter = {
    name: 'inflating',
    via: 'js',
    languages: ['typescript'],
    supportsRange: false,
    info: async () => ({ name: 'inflating', version: '1', via: 'js' }),
    format: async (request: AdapterRequest) => ({ kind: 'ok', text: request.text.replace(/\n/g, `\n${' '.repeat(2 * 1024 * 1024)}`) }),
  };
  const engine = createEngine({ formatters: [inflating], config: { formatters: { typescript: 'inflating' } } });
  const outcome = await engine.format({ path: 'a.ts', text: 'let a = 1;\nlet b = 2;\n' });
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.content, 'let a = 1;\nlet b = 2;\n');
  assert.match(outcome.reason ?? '', /past the output cap/);
  assert.match(outcome.line, /^formatter failed \(inflating 1, js\): a\.ts: formatter output of more than \d+ bytes is past the output cap/);
});

test('discovery reads at most maxTotalChars of config, and says which files it left unread', async () => {
  const root = mkdtempSync(join(tmpdir(), 'formatbox-discover-total-'));
  try {
    for (let d = 0; d < 6; d++) {
      mkdirSync(join(root, `p${d}`));
      writeFileSync(join(root, `p${d}`, '.prettierrc.json'), JSON.stringify({ semi: false, x: 'y'.repeat(1000) }));
    }
    const discovered = await discoverProjectFiles(root, { maxTotalChars: 3500 });
    const read = Object.values(discovered.files).filter((text) => typeof text === 'string');
    assert.equal(read.length, 3);
    assert.equal(discovered.truncated, true);
    assert.equal(discovered.ignored.filter((i) => /config files add up to more than 3500 characters/.test(i.reason)).length, 3);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
