// Hostile cases for the config budget (security review class 5) and output amplification (class 7).
// Each case is a project directory generated here (the review's exact shapes and variants of our own);
// config-budget.test.ts runs each one in a child process and bounds its time, its event-loop stall
// and its peak RSS. Every file is under the per-file and per-pattern caps; only the totals are hostile.
import type { Status, UserConfig } from '../../src/core/types.js';

export interface BudgetCase {
  name: string;
  /** Security review class: 5 (config cost) or 7 (output amplification). */
  securityClass: 5 | 7;
  /** Project-relative path → text. */
  files: () => Record<string, string>;
  target: string;
  content: string;
  trust?: 'trusted' | 'untrusted';
  config?: UserConfig;
  expect: {
    status: Status[];
    /** Matched against `reason line`. */
    reason?: RegExp;
    /** Each must match a `file: item (reason)` line of doctor().ignored or the receipt's ignored. */
    ignored?: RegExp[];
    /** Each must match a line of the receipt's own `ignored` (what the agent sees). */
    receiptIgnored?: RegExp[];
    content?: string;
  };
}

const TS_IN = 'function f(){return {a:1,b:[1,2]}}\n';
const TS_PRETTIER = 'function f() {\n  return { a: 1, b: [1, 2] };\n}\n';
const OVER_BUDGET = /over the project config budget/;
const REFUSED = { status: ['refused'] as Status[], reason: OVER_BUDGET, ignored: [/\(project config\): config budget: .*formatting is refused/] };

/** A ~2.3 KB TypeScript file nested 8 deep, as in the review (tabWidth 100000 made it 155 MB). */
export function nestedSource(): string {
  let body = 'return [1, 2, 3].map((x) => x * 2);';
  for (let depth = 0; depth < 8; depth++) {
    body = `if (flag${depth}) { const v${depth} = { key: "value ${depth}", list: [${depth}, ${depth + 1}] }; for (const item of items${depth}) { ${body} } }`;
  }
  const fn = (n: number) => `export function handler${n}(items0: number[], flag0: boolean) { ${body} }\n`;
  let out = '';
  for (let n = 0; out.length < 2300; n++) out += fn(n);
  return out;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** `count` sections of one .editorconfig, each a small glob with a few alternatives. */
function editorconfigSections(count: number, salt: string): string {
  return `root = true\n${range(count)
    .map((i) => `[{src,lib}/${salt}${i}/**/*.{js,ts,tsx}]\nindent_size = 2\n`)
    .join('')}`;
}

/** `{a,b}` eight times then a long literal: 256 alternatives of ~1,000 characters, under the 1,024 cap. */
function braceBomb(i: number): string {
  return `${'{a,b}'.repeat(8)}${`x${i}`.padEnd(960, 'y')}`;
}

/** A glob within every per-glob limit that still expands to ~15,000 characters (256 × 60). */
function wideGlob(i: number): string {
  const side = (tag: string) => `{${range(16).map((k) => `${tag}${i}_${k}`.padEnd(29, 'z')).join(',')}}`;
  return `${side('p')}${side('q')}`;
}

export const BUDGET_CASES: BudgetCase[] = [
  {
    name: 'many .editorconfig sections (60 files × 1,000 sections)',
    securityClass: 5,
    files: () => ({
      '.prettierrc': '{}',
      ...Object.fromEntries(range(60).map((d) => [`pkg${d}/.editorconfig`, editorconfigSections(1000, `d${d}_`)])),
    }),
    target: 'pkg0/src/a.ts',
    content: TS_IN,
    expect: REFUSED,
  },
  {
    name: 'many .prettierrc overrides (40 packages × 1,000 overrides)',
    securityClass: 5,
    files: () =>
      Object.fromEntries(
        range(40).map((d) => [
          `packages/p${d}/.prettierrc.json`,
          JSON.stringify({ overrides: range(1000).map((i) => ({ files: [`*.${i}.ts`, `src/m${i}/**/*.{ts,tsx}`], options: { semi: i % 2 === 0 } })) }),
        ]),
      ),
    target: 'packages/p0/src/a.ts',
    content: TS_IN,
    expect: REFUSED,
  },
  {
    name: 'many Biome includes (25,000 patterns in files.includes)',
    securityClass: 5,
    files: () => ({ 'biome.json': JSON.stringify({ files: { includes: ['**', ...range(25_000).map((i) => `!gen/m${i}/**/*.ts`)] } }) }),
    target: 'src/a.ts',
    content: TS_IN,
    expect: REFUSED,
  },
  {
    name: 'many .gitignore files (1,200 directories × 40 patterns)',
    securityClass: 5,
    files: () => ({
      '.prettierrc': '{}',
      'biome.json': '{}',
      ...Object.fromEntries(range(1200).map((d) => [`d${d}/.gitignore`, range(40).map((i) => `build-${d}-${i}/*.{o,a}\n`).join('')])),
    }),
    target: 'src/a.ts',
    content: TS_IN,
    expect: REFUSED,
  },
  {
    name: '400 KB .editorconfig of brace bombs (each refused before expansion)',
    securityClass: 5,
    files: () => ({ '.prettierrc': '{}', '.editorconfig': `root = true\n${range(400).map((i) => `[${braceBomb(i)}]\nindent_size = 8\n`).join('')}` }),
    target: 'src/a.ts',
    content: TS_IN,
    expect: { status: ['formatted'], content: TS_PRETTIER, ignored: [/\.editorconfig: \[.*braces expand to more than 16384 characters/] },
  },
  {
    name: '400 KB .editorconfig of globs each within every per-glob limit (over the project budget)',
    securityClass: 5,
    files: () => ({ '.prettierrc': '{}', '.editorconfig': `root = true\n${range(400).map((i) => `[${wideGlob(i)}]\nindent_size = 8\n`).join('')}` }),
    target: 'src/a.ts',
    content: TS_IN,
    expect: REFUSED,
  },
  {
    name: 'brace patterns that expand hugely under the 1,024-character cap, in every config that has globs',
    securityClass: 5,
    files: () => {
      const doubling = '{a,b}'.repeat(200); // 2^200 alternatives in 1,000 characters
      const ranges = `{${range(100).map(() => '{1..256}').join(',')}}`; // 25,600 alternatives
      return {
        '.prettierrc.json': JSON.stringify({ overrides: [{ files: [doubling], options: { semi: false } }, { files: [ranges], options: { semi: false } }] }),
        '.editorconfig': `root = true\n[${doubling}]\nindent_size = 8\n[${ranges}]\nindent_size = 8\n`,
        // Git reads braces literally (escaped, so shorter patterns stay under the length cap); Biome expands them.
        '.gitignore': `${'{a,b}'.repeat(100)}\n{${range(60).map(() => '{1..256}').join(',')}}\n`,
        '.prettierignore': `${doubling}\n`,
      };
    },
    target: 'src/a.ts',
    content: TS_IN,
    expect: {
      status: ['formatted'],
      content: TS_PRETTIER,
      ignored: [/\.prettierrc\.json: overrides\[0\]\.files: .*more than 256 globs/, /\.editorconfig: \[\{a,b\}.*more than 256 globs/, /\.gitignore: \{a,b\}.*more than 256 globs.*as Biome reads it/, /\.gitignore: \{\{1\.\.256\}.*more than 256 globs.*as Biome reads it/],
    },
  },
  {
    name: 'the costliest matching within the budget: 12 nested .gitignore files of many-star patterns, read by Biome',
    securityClass: 5,
    files: () => {
      const files: Record<string, string> = { 'biome.json': JSON.stringify({ vcs: { enabled: true, clientKind: 'git', useIgnoreFile: true } }) };
      let dir = '';
      for (let d = 0; d < 12; d++) {
        files[`${dir}.gitignore`] = range(1500).map((i) => `*q${i}*w*e*r*t*y*u*i*o*p`).join('\n');
        dir += `d${d}/`;
      }
      return files;
    },
    target: 'd0/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/some/long/path/file-with-a-long-name.ts',
    content: TS_IN,
    expect: { status: ['formatted'], ignored: [/\.gitignore: .* \(this and later patterns are not read: more than 20000 glob tokens in the file\)/] },
  },
  {
    name: 'config text over the budget (12 package.json files of 900 KB)',
    securityClass: 5,
    files: () => ({
      '.prettierrc': '{}',
      ...Object.fromEntries(range(12).map((d) => [`p${d}/package.json`, JSON.stringify({ name: `p${d}`, description: 'x'.repeat(900 * 1024) })])),
    }),
    target: 'src/a.ts',
    content: TS_IN,
    expect: REFUSED,
  },
  {
    name: 'the slowest single files under the caps: a 60 KB .prettierrc.yaml, a 60 KB .prettierrc.json5 and a 1 MB .prettierrc.json',
    securityClass: 5,
    files: () => {
      let yaml = 'overrides:\n';
      for (let i = 0; yaml.length < 60 * 1024; i++) yaml += `  - files: ["*.${i}.ts"]\n    options: { semi: false }\n`;
      let json5 = '{overrides: [';
      for (let i = 0; json5.length < 60 * 1024; i++) json5 += `{files: ['src/g${i}/*.ts'], options: {semi: false}},\n`;
      let json = '{"overrides": [';
      for (let i = 0; json.length < 1000 * 1024; i++) json += `${i ? ',' : ''}{"files": ["src/h${i}/*.ts"], "options": {"semi": false}}`;
      return { '.prettierrc.yaml': yaml, 'pkg/.prettierrc.json5': `${json5}]}`, 'pkg2/.prettierrc.json': `${json}]}` };
    },
    target: 'src/a.ts',
    content: TS_IN,
    // Within the budget when the machine is quiet, past its time when it is loaded: both are fine, the bounds are the point.
    expect: { status: ['formatted', 'refused'] },
  },
  {
    name: '.prettierrc tabWidth: 100000 (untrusted: clamped to 16, and said so)',
    securityClass: 7,
    files: () => ({ '.prettierrc': '{ "tabWidth": 100000 }' }),
    target: 'src/a.ts',
    content: nestedSource(),
    expect: { status: ['formatted'], ignored: [/\.prettierrc: tabWidth: 100000 \(clamped from 100000 to 16/], receiptIgnored: [/tabWidth: 100000 \(clamped .*differs from what Prettier's own CLI writes/] },
  },
  {
    name: '.editorconfig indent_size = 100000 under a Prettier project (clamped)',
    securityClass: 7,
    files: () => ({ '.prettierrc': '{}', '.editorconfig': 'root = true\n[*]\nindent_style = space\nindent_size = 100000\ntab_width = 100000\n' }),
    target: 'src/a.ts',
    content: nestedSource(),
    expect: { status: ['formatted'], ignored: [/\.editorconfig: \[\*\] indent_size = 100000 \(clamped/], receiptIgnored: [/indent_size = 100000 \(clamped/] },
  },
  {
    name: 'Biome indentWidth 24 (accepted by Biome, clamped) in overrides and per language',
    securityClass: 7,
    files: () => ({ 'biome.json': JSON.stringify({ formatter: { indentStyle: 'space', indentWidth: 24 }, javascript: { formatter: { indentWidth: 24 } }, overrides: [{ includes: ['**/*.ts'], formatter: { indentWidth: 24 } }] }) }),
    target: 'src/a.ts',
    content: nestedSource(),
    expect: { status: ['formatted'], ignored: [/biome\.json: formatter\.indentWidth: 24 \(clamped/, /biome\.json: overrides\[0\]\.formatter\.indentWidth: 24 \(clamped/] },
  },
  {
    name: 'dprint json plugin indentWidth 200 (wasm plugin, clamped)',
    securityClass: 7,
    files: () => ({ 'dprint.json': JSON.stringify({ indentWidth: 200, json: {}, plugins: ['https://plugins.dprint.dev/json-0.19.0.wasm'] }) }),
    target: 'data/a.json',
    content: `${JSON.stringify({ a: { b: { c: { d: { e: { f: [1, 2, { g: 'h' }] } } } } } }, null, 2)}\n`,
    expect: { status: ['formatted'], ignored: [/dprint\.json: indentWidth: 200 \(clamped/] },
  },
  {
    name: 'trusted mode: tabWidth 5000 reaches Prettier itself, and the output cap refuses its ~20 MB',
    securityClass: 7,
    trust: 'trusted',
    files: () => ({ '.prettierrc': '{ "tabWidth": 5000 }' }),
    target: 'src/a.ts',
    content: nestedSource(),
    expect: { status: ['failed'], reason: /past the output cap of \d+ bytes \(max\(4 × input, input \+ 1 MiB\)/ },
  },
];
