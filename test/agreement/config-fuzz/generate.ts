/**
 * Random projects for the differential config fuzzer: Prettier projects (.prettierrc as JSON, YAML,
 * TOML, JSON5, package.json; overrides; nested configs; .editorconfig) and Biome projects (biome.json[c],
 * nested `root: false` configs, overrides, useEditorconfig), with valid and invalid values (wrong types,
 * out of range, unknown keys, broken syntax), and source files with LF, CRLF or mixed line endings.
 * Seeded (mulberry32): the same seed gives the same projects.
 */

export type Rng = () => number;

export { mulberry32 } from '../../eval/prng.js';

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;
const chance = (rng: Rng, p: number): boolean => rng() < p;

export interface GeneratedProject {
  kind: 'prettier' | 'biome';
  /** Project-relative path → content. A path ending in `/` is a directory (`.git/`). */
  files: Record<string, string>;
  /** The source files to compare. */
  sources: string[];
}

const SOURCES: Record<string, string> = {
  ts: 'const  a = {b:1, c: "x", d: \'y\'}\nfunction f(x:number,y:number){ return x+y }\nexport const long = [1111111, 2222222, 3333333, 4444444, 5555555, 6666666, 7777777, 8888888, 9999999]\nconst g = async (v) => { await v; }\n',
  js: "let s = 'q'; const o = {a: 1, 'b-c': (x) => x*2}\nif (s) { console.log(\"hello\", s, o, [1,2,3].map(x=>x+1)) }\n",
  css: 'a{color:red;margin:0 0 0 0}\n.b  >  .c{display:none;  background : url("x.png")}\n',
  json: '{"a":1,"b":[1,2,3],"c":{"d":true,   "e": "a very long string value that goes past a short line width"}}\n',
  md: '# Title\n\nSome *text* here that is long enough to wrap when proseWrap is always and the print width is short.\n\n* item\n* item two\n',
  yaml: 'a:   1\nb:\n    - x\n    - "y"\nc: {d: 1, e: 2}\n',
};

function withEndings(rng: Rng, text: string): string {
  const mode = pick(rng, ['lf', 'lf', 'crlf', 'crlf', 'mixed', 'cr-first'] as const);
  if (mode === 'lf') return text;
  if (mode === 'crlf') return text.replace(/\n/g, '\r\n');
  if (mode === 'cr-first') return text.replace('\n', '\r\n');
  let i = 0;
  return text.replace(/\n/g, () => (i++ % 2 === 0 ? '\n' : '\r\n'));
}

// ---------------------------------------------------------------------------
// Prettier

const PRETTIER_VALUES: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  printWidth: { valid: [20, 40, 80, 120], invalid: ['80', 1.5, -1, true] },
  tabWidth: { valid: [1, 2, 4, 8], invalid: ['4', 2.5, false] },
  useTabs: { valid: [true, false], invalid: ['true', 1] },
  semi: { valid: [true, false], invalid: ['false', 0] },
  singleQuote: { valid: [true, false], invalid: ['yes'] },
  trailingComma: { valid: ['all', 'es5', 'none'], invalid: ['always', true] },
  bracketSpacing: { valid: [true, false], invalid: ['no'] },
  arrowParens: { valid: ['always', 'avoid'], invalid: ['sometimes'] },
  endOfLine: { valid: ['lf', 'crlf', 'cr', 'auto'], invalid: ['windows', 1] },
  quoteProps: { valid: ['as-needed', 'consistent', 'preserve'], invalid: ['all'] },
  proseWrap: { valid: ['always', 'never', 'preserve'], invalid: ['sometimes'] },
  objectWrap: { valid: ['preserve', 'collapse'], invalid: ['expand'] },
  bracketSameLine: { valid: [true, false], invalid: ['true'] },
};
const UNKNOWN_KEYS = ['foo', 'tabwidth', 'indent'];

function prettierOptions(rng: Rng, invalidRate: number): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const keys = Object.keys(PRETTIER_VALUES);
  const n = 1 + Math.floor(rng() * 4);
  for (let i = 0; i < n; i++) {
    const key = pick(rng, keys);
    const values = PRETTIER_VALUES[key] as { valid: unknown[]; invalid: unknown[] };
    options[key] = chance(rng, invalidRate) ? pick(rng, values.invalid) : pick(rng, values.valid);
  }
  if (chance(rng, 0.08)) options[pick(rng, UNKNOWN_KEYS)] = 1;
  return options;
}

function tomlValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function yamlOf(options: Record<string, unknown>): string {
  return Object.entries(options).map(([k, v]) => `${k}: ${typeof v === 'object' || typeof v === 'string' ? JSON.stringify(v) : String(v)}\n`).join('');
}

/** One Prettier config file (name → text) for `options`, in a random format; sometimes broken. */
function prettierConfigFile(rng: Rng, options: Record<string, unknown>, broken: boolean): [string, string] {
  const format = pick(rng, ['.prettierrc-json', '.prettierrc-yaml', '.prettierrc.json', '.prettierrc.yaml', '.prettierrc.toml', '.prettierrc.json5', 'package.json'] as const);
  const json = JSON.stringify(options, null, 2);
  switch (format) {
    case '.prettierrc-json':
      return ['.prettierrc', broken ? json.replace(/\n}$/, ',\n}').replace('{', '{ // comment\n') : json];
    case '.prettierrc-yaml':
      return ['.prettierrc', broken ? `${yamlOf(options)}bad: [unclosed\n` : yamlOf(options)];
    case '.prettierrc.json':
      return ['.prettierrc.json', broken ? json.replace(/\n}$/, ',\n}') : json];
    case '.prettierrc.yaml':
      return ['.prettierrc.yaml', broken ? `${yamlOf(options)}  - nope: [\n` : yamlOf(options)];
    case '.prettierrc.toml': {
      const text = Object.entries(options).map(([k, v]) => `${k} = ${tomlValue(v)}\n`).join('');
      return ['.prettierrc.toml', broken ? `${text}bad = \n` : text];
    }
    case '.prettierrc.json5': {
      const text = `{\n${Object.entries(options).map(([k, v]) => `  ${k}: ${JSON.stringify(v)},\n`).join('')}}\n`;
      return ['.prettierrc.json5', broken ? text.replace('{', '{{') : text];
    }
    case 'package.json': {
      const text = JSON.stringify({ name: 'fuzz', private: true, prettier: options }, null, 2);
      // A broken package.json declares nothing (sub/package.json covers Prettier skipping one).
      return ['package.json', text];
    }
  }
}

function editorconfig(rng: Rng): string {
  const lines = [chance(rng, 0.7) ? 'root = true\n' : '', '[*]\n'];
  if (chance(rng, 0.5)) lines.push(`indent_style = ${pick(rng, ['space', 'tab'])}\n`);
  if (chance(rng, 0.5)) lines.push(`indent_size = ${pick(rng, ['2', '3', '4', '8', 'tab'])}\n`);
  if (chance(rng, 0.5)) lines.push(`end_of_line = ${pick(rng, ['lf', 'crlf', 'cr'])}\n`);
  if (chance(rng, 0.4)) lines.push(`max_line_length = ${pick(rng, ['40', '100', 'off'])}\n`);
  if (chance(rng, 0.2)) lines.push(`quote_type = ${pick(rng, ['single', 'double'])}\n`);
  if (chance(rng, 0.3)) lines.push(`\n[*.{md,yaml}]\nindent_size = ${pick(rng, ['2', '4'])}\nend_of_line = ${pick(rng, ['lf', 'crlf'])}\n`);
  return lines.join('');
}

function sourceFiles(rng: Rng, kinds: string[], dirs: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  const count = 2 + Math.floor(rng() * 3);
  for (let i = 0; i < count; i++) {
    const ext = pick(rng, kinds);
    const dir = pick(rng, dirs);
    files[`${dir}f${i}.${ext}`] = withEndings(rng, SOURCES[ext] as string);
  }
  return files;
}

export function prettierProject(rng: Rng): GeneratedProject {
  const files: Record<string, string> = { '.git/': '' };
  const invalidRate = 0.06;
  const options: Record<string, unknown> = prettierOptions(rng, invalidRate);
  if (chance(rng, 0.25)) {
    options.overrides = [{ files: pick(rng, ['*.ts', '*.md', 'sub/**', '*.{css,json}']), options: prettierOptions(rng, invalidRate) }];
    if (chance(rng, 0.05)) options.overrides = pick(rng, [['*.ts'], [{ options: { semi: false } }], [{ files: 1 }], {}]);
  }
  const [name, text] = prettierConfigFile(rng, options, chance(rng, 0.05));
  files[name] = text;
  const dirs = [''];
  if (chance(rng, 0.3)) {
    dirs.push('sub/');
    if (chance(rng, 0.5)) {
      const [subName, subText] = prettierConfigFile(rng, prettierOptions(rng, invalidRate), chance(rng, 0.04));
      files[`sub/${subName}`] = subText;
    }
  }
  if (chance(rng, 0.03)) files['sub/package.json'] = '{"name": "broken",}\n';
  if (chance(rng, 0.4)) files['.editorconfig'] = editorconfig(rng);
  if (chance(rng, 0.1)) files['sub/.editorconfig'] = editorconfig(rng);
  Object.assign(files, sourceFiles(rng, ['ts', 'js', 'css', 'json', 'md', 'yaml'], dirs));
  return { kind: 'prettier', files, sources: Object.keys(files).filter((f) => /\/?f\d+\.\w+$/.test(f)) };
}

// ---------------------------------------------------------------------------
// Biome

const BIOME_FORMATTER: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  indentStyle: { valid: ['tab', 'space'], invalid: ['spaces', 2] },
  indentWidth: { valid: [2, 3, 4, 8], invalid: [300, '4', -1] },
  lineWidth: { valid: [30, 80, 120], invalid: [0, 1000, '80'] },
  lineEnding: { valid: ['lf', 'crlf', 'cr', 'auto'], invalid: ['windows'] },
  bracketSpacing: { valid: [true, false], invalid: ['yes'] },
};
const BIOME_JS: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  quoteStyle: { valid: ['single', 'double'], invalid: ['backtick'] },
  semicolons: { valid: ['always', 'asNeeded'], invalid: [true] },
  trailingCommas: { valid: ['all', 'es5', 'none'], invalid: ['always'] },
  arrowParentheses: { valid: ['always', 'asNeeded'], invalid: ['never'] },
};

function section(rng: Rng, table: Record<string, { valid: unknown[]; invalid: unknown[] }>, invalidRate: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = 1 + Math.floor(rng() * 3);
  for (let i = 0; i < n; i++) {
    const key = pick(rng, Object.keys(table));
    const values = table[key] as { valid: unknown[]; invalid: unknown[] };
    out[key] = chance(rng, invalidRate) ? pick(rng, values.invalid) : pick(rng, values.valid);
  }
  if (chance(rng, 0.04)) out[pick(rng, ['foo', 'indentSize', 'quote_style'])] = 1;
  return out;
}

function biomeConfig(rng: Rng, invalidRate: number): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (chance(rng, 0.8)) config.formatter = section(rng, BIOME_FORMATTER, invalidRate);
  if (chance(rng, 0.3)) (config.formatter ??= {}) && ((config.formatter as Record<string, unknown>).useEditorconfig = true);
  if (chance(rng, 0.6)) config.javascript = { formatter: section(rng, BIOME_JS, invalidRate) };
  if (chance(rng, 0.2)) config.json = { formatter: section(rng, BIOME_FORMATTER, invalidRate) };
  if (chance(rng, 0.2)) config.css = { formatter: section(rng, BIOME_FORMATTER, invalidRate) };
  if (chance(rng, 0.2)) config.overrides = [{ includes: [pick(rng, ['**/*.ts', 'sub/**', '**/*.json'])], formatter: section(rng, BIOME_FORMATTER, invalidRate) }];
  if (chance(rng, 0.02)) config[pick(rng, ['bogus', 'format'])] = {};
  return config;
}

function biomeText(rng: Rng, config: Record<string, unknown>, name: string): string {
  const text = JSON.stringify(config, null, 2);
  const roll = rng();
  if (roll < 0.03) return text.replace(/\n}$/, ',\n}'); // a trailing comma
  if (roll < 0.05) return text.replace('{', '{\n  // a comment\n'); // comments (biome.json: Biome skips the file)
  if (roll < 0.06) return text.slice(0, Math.floor(text.length / 2)); // truncated
  if (name === 'biome.jsonc' && roll < 0.2) return text.replace('{', '{\n  // allowed in .jsonc\n').replace(/\n}$/, ',\n}');
  return text;
}

export function biomeProject(rng: Rng): GeneratedProject {
  const files: Record<string, string> = { '.git/': '' };
  const invalidRate = 0.05;
  const name = chance(rng, 0.8) ? 'biome.json' : 'biome.jsonc';
  const rootConfig = biomeConfig(rng, invalidRate);
  if (chance(rng, 0.3)) {
    // `extends` files inside the root (merged as Biome merges them), rarely a missing one.
    const shared = Array.from({ length: chance(rng, 0.5) ? 2 : 1 }, (_, index) => `shared/base${index}.json${chance(rng, 0.2) ? 'c' : ''}`);
    shared.forEach((file) => (files[file] = biomeText(rng, biomeConfig(rng, invalidRate), 'biome.jsonc')));
    if (chance(rng, 0.05)) shared.push('shared/missing.json');
    rootConfig.extends = shared.map((file) => (chance(rng, 0.5) ? `./${file}` : file));
  }
  files[name] = biomeText(rng, { ...(rootConfig.extends ? { extends: rootConfig.extends } : {}), ...rootConfig }, name);
  const dirs = [''];
  if (chance(rng, 0.3)) {
    dirs.push('sub/');
    if (chance(rng, 0.6)) {
      const nested = { root: false, ...(chance(rng, 0.6) ? { extends: '//' } : {}), ...biomeConfig(rng, invalidRate) };
      files['sub/biome.json'] = biomeText(rng, nested, 'biome.json');
    }
  }
  if (chance(rng, 0.35)) files['.editorconfig'] = editorconfig(rng);
  Object.assign(files, sourceFiles(rng, ['ts', 'js', 'css', 'json'], dirs));
  return { kind: 'biome', files, sources: Object.keys(files).filter((f) => /\/?f\d+\.\w+$/.test(f)) };
}

// ---------------------------------------------------------------------------
// Biome, widened: nested configs at several depths (root: false, extends "//", neither, both), the
// root's .editorconfig and .editorconfig files below it, every formatter option of Biome's own
// configuration schema (read from the installed @biomejs/biome), and LF/CRLF/mixed sources side by side.

/** One option of a formatter section: its valid values and some invalid ones (wrong type, out of range, unknown variant). */
export interface SchemaOption {
  valid: unknown[];
  invalid: unknown[];
}

/** The formatter sections of Biome's schema, by where they sit in biome.json. */
export type BiomeSchemaOptions = Record<'formatter' | 'javascript' | 'json' | 'css' | 'graphql' | 'override', Record<string, SchemaOption>>;

interface JsonSchema {
  $defs: Record<string, { type?: string | string[]; enum?: unknown[]; oneOf?: Array<{ const?: unknown }>; properties?: Record<string, { anyOf?: Array<{ $ref?: string; type?: string }>; $ref?: string; type?: string | string[] }>; minimum?: number; maximum?: number }>;
}

/** Reads every formatter option of a Biome configuration schema (configuration_schema.json). */
export function biomeSchemaOptions(schema: JsonSchema): BiomeSchemaOptions {
  const defs = schema.$defs;
  const optionOf = (name: string, property: NonNullable<JsonSchema['$defs'][string]['properties']>[string]): SchemaOption | undefined => {
    const ref = (property.anyOf?.find((a) => a.$ref)?.$ref ?? property.$ref)?.split('/').pop();
    const def = ref ? defs[ref] : undefined;
    if (!def) return undefined; // `includes` (an array) is generated separately.
    const values = def.enum ?? def.oneOf?.map((o) => o.const).filter((v) => v !== undefined);
    if (values && values.length > 0) return { valid: values, invalid: [`${String(values[0])}s`, 1, true] };
    if (def.type === 'boolean') return { valid: [true, false], invalid: ['true', 0] };
    if (def.type === 'integer') {
      // The schema states the storage range; Biome's own validation is narrower (indentWidth 0..=24? lineWidth 1..=320).
      const big = name === 'lineWidth' ? [1, 30, 80, 120, 320] : [0, 1, 2, 3, 4, 8, 24];
      return { valid: big, invalid: name === 'lineWidth' ? [0, 321, '80', -1] : [25, 255, '4', -1, 2.5] };
    }
    return undefined;
  };
  const section = (def: string, skip: string[] = []): Record<string, SchemaOption> => {
    const out: Record<string, SchemaOption> = {};
    for (const [name, property] of Object.entries(defs[def]?.properties ?? {})) {
      if (skip.includes(name)) continue;
      const option = optionOf(name, property);
      if (option) out[name] = option;
    }
    return out;
  };
  return {
    formatter: section('FormatterConfiguration', ['useEditorconfig', 'enabled', 'formatWithErrors']),
    javascript: section('JsFormatterConfiguration', ['enabled']),
    json: section('JsonFormatterConfiguration', ['enabled']),
    css: section('CssFormatterConfiguration', ['enabled']),
    graphql: section('GraphqlFormatterConfiguration', ['enabled']),
    override: section('OverrideFormatterConfiguration', ['enabled', 'formatWithErrors']),
  };
}

const NESTED_SOURCES: Record<string, string> = {
  ...SOURCES,
  jsx: 'const A = () => <div className="a" id=\'b\'>{[1,2].map(x => <span key={x}>{x}</span>)}</div>\nexport default A\n',
  jsonc: '{\n  // a comment\n  "a": [1, 2, 3], "b": {"c": null}\n}\n',
  graphql: 'query Q($a: Int, $b: String) { user(id: $a) { name, friends(first: 10) { edges { node { id } } } } }\n',
  mjs: "import a from 'a'\nexport const b = {x: [1, 2, 3].map((v) => v * 2), y: \"z\"}\n",
};

function schemaSection(rng: Rng, options: Record<string, SchemaOption>, invalidRate: number, most = 4): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = 1 + Math.floor(rng() * most);
  for (let i = 0; i < n; i++) {
    const key = pick(rng, Object.keys(options));
    const option = options[key] as SchemaOption;
    out[key] = chance(rng, invalidRate) ? pick(rng, option.invalid) : pick(rng, option.valid);
  }
  if (chance(rng, 0.005)) out[pick(rng, ['foo', 'indentSize', 'quote_style'])] = 1;
  return out;
}

function schemaBiomeConfig(rng: Rng, schema: BiomeSchemaOptions, invalidRate: number): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (chance(rng, 0.75)) config.formatter = schemaSection(rng, schema.formatter, invalidRate);
  for (const language of ['javascript', 'json', 'css', 'graphql'] as const) {
    if (chance(rng, language === 'javascript' ? 0.5 : 0.25)) config[language] = { formatter: schemaSection(rng, schema[language], invalidRate) };
  }
  if (chance(rng, 0.25)) {
    config.overrides = Array.from({ length: chance(rng, 0.7) ? 1 : 2 }, () => ({
      includes: [pick(rng, ['**/*.ts', '**/*.json', 'sub/**', '**/deep/**', '*.css', '**/*.{js,jsx}', '!**/*.graphql', '**'])],
      ...(chance(rng, 0.8) ? { formatter: schemaSection(rng, schema.override, invalidRate, 3) } : {}),
      ...(chance(rng, 0.4) ? { javascript: { formatter: schemaSection(rng, schema.javascript, invalidRate, 2) } } : {}),
      ...(chance(rng, 0.2) ? { json: { formatter: schemaSection(rng, schema.json, invalidRate, 2) } } : {}),
    }));
  }
  if (chance(rng, 0.01)) config[pick(rng, ['bogus', 'format'])] = {};
  return config;
}

/** An .editorconfig as editors and Biome read it: `[*]`, extension and path sections, `unset`, sometimes a value Biome rejects. */
function nestedEditorconfig(rng: Rng): string {
  const lines = [chance(rng, 0.6) ? 'root = true\n' : ''];
  const sections = chance(rng, 0.8) ? ['*'] : [];
  if (chance(rng, 0.5)) sections.push(pick(rng, ['*.ts', '*.json', '*.{json,jsonc}', '*.{js,jsx,mjs}', '*.css', 'sub/**', '**.graphql', '*.md']));
  if (chance(rng, 0.2)) sections.push(pick(rng, ['*.ts', '*.json', 'deep/*', '*.{css,graphql}']));
  for (const glob of sections) {
    lines.push(`\n[${glob}]\n`);
    if (chance(rng, 0.5)) lines.push(`indent_style = ${pick(rng, ['space', 'tab', 'unset'])}\n`);
    if (chance(rng, 0.6)) lines.push(`indent_size = ${pick(rng, ['2', '3', '4', '6', '8', 'tab', 'unset'])}\n`);
    if (chance(rng, 0.4)) lines.push(`end_of_line = ${pick(rng, ['lf', 'crlf', 'cr', 'unset'])}\n`);
    if (chance(rng, 0.3)) lines.push(`insert_final_newline = ${pick(rng, ['true', 'false'])}\n`);
    if (chance(rng, 0.2)) lines.push(`max_line_length = ${pick(rng, ['40', '100', 'off'])}\n`);
    if (chance(rng, 0.1)) lines.push(`tab_width = ${pick(rng, ['2', '8'])}\n`);
    if (chance(rng, 0.02)) lines.push(pick(rng, ['indent_size = 30\n', 'end_of_line = windows\n', 'indent_style = spaces\n']));
  }
  return lines.join('');
}

export function biomeNestedProject(rng: Rng, schema: BiomeSchemaOptions): GeneratedProject {
  const files: Record<string, string> = { '.git/': '' };
  const invalidRate = 0.006;
  const dirs = ['', 'sub/', 'sub/deep/', 'pkg/'].filter((dir, index) => index === 0 || chance(rng, 0.6));
  // Always a root config: run in the project directory, Biome takes a lone root config below it for a nested one
  // ("Found a nested root configuration"), where formatbox takes it as the root of its own project (a monorepo package).
  {
    const name = chance(rng, 0.8) ? 'biome.json' : 'biome.jsonc';
    const root = schemaBiomeConfig(rng, schema, invalidRate);
    if (chance(rng, 0.45)) ((root.formatter ??= {}) as Record<string, unknown>).useEditorconfig = true;
    files[name] = biomeText(rng, root, name);
  }
  for (const dir of dirs.slice(1)) {
    if (chance(rng, 0.55)) {
      const roll = rng();
      const head = roll < 0.45 ? { root: false } : roll < 0.8 ? { root: false, extends: '//' } : roll < 0.93 ? { extends: '//' } : roll < 0.97 ? {} : { root: true, extends: '//' };
      const nested: Record<string, unknown> = { ...head, ...schemaBiomeConfig(rng, schema, invalidRate) };
      if (chance(rng, 0.15)) ((nested.formatter ??= {}) as Record<string, unknown>).useEditorconfig = true;
      files[`${dir}biome.json`] = biomeText(rng, nested, 'biome.json');
    }
  }
  for (const dir of dirs) if (chance(rng, dir === '' ? 0.5 : 0.25)) files[`${dir}.editorconfig`] = nestedEditorconfig(rng);
  const kinds = ['ts', 'js', 'jsx', 'mjs', 'css', 'json', 'jsonc', 'graphql'];
  const count = 3 + Math.floor(rng() * 5);
  for (let i = 0; i < count; i++) {
    const ext = pick(rng, kinds);
    files[`${pick(rng, dirs)}f${i}.${ext}`] = withEndings(rng, NESTED_SOURCES[ext] as string);
  }
  return { kind: 'biome', files, sources: Object.keys(files).filter((f) => /\/?f\d+\.\w+$/.test(f)) };
}

// ---------------------------------------------------------------------------
// Wider still, opt-in (FORMATBOX_FUZZ_KINDS=biome-wide,prettier-wide): the options the other generators
// leave out. Biome: parser options, `files` (ignoreUnknown, includes with negations, maxSize),
// `enabled` per section, formatWithErrors with broken sources, `.json` files with comments or trailing
// commas, `overrides` with parser options, `vcs`. Prettier: the remaining core options, `.prettierignore`,
// overrides with `excludeFiles`, and sources of other languages (Vue, HTML, SCSS, GraphQL, JSX).

const WIDE_BIOME_SOURCES: Record<string, string> = {
  ...NESTED_SOURCES,
  json: '{\n  // a comment\n  "a": [1, 2, 3],\n  "b": {"c": null},\n}\n',
  css: '.a { composes: b from "./b.css"; color: red }\n@tailwind base;\n@apply p-4;\n',
  ts: '@decorator class A { m(@inject() p: string) { return p } }\nconst x = <T,>(v: T) => v\n',
  broken: 'const a = {b:1\nfunction f( {return 2}\n',
};

export function biomeWideProject(rng: Rng, schema: BiomeSchemaOptions): GeneratedProject {
  const files: Record<string, string> = { '.git/': '' };
  const config = schemaBiomeConfig(rng, schema, 0.004);
  const section = (key: string): Record<string, unknown> => ((config[key] ??= {}) as Record<string, unknown>);
  if (chance(rng, 0.4)) section('json').parser = { ...(chance(rng, 0.7) ? { allowComments: pick(rng, [true, false]) } : {}), ...(chance(rng, 0.7) ? { allowTrailingCommas: pick(rng, [true, false]) } : {}) };
  if (chance(rng, 0.3)) section('css').parser = { [pick(rng, ['cssModules', 'tailwindDirectives', 'allowWrongLineComments'])]: pick(rng, [true, false]) };
  if (chance(rng, 0.3)) section('javascript').parser = { [pick(rng, ['unsafeParameterDecoratorsEnabled', 'jsxEverywhere'])]: pick(rng, [true, false]) };
  if (chance(rng, 0.15)) section('javascript').jsxRuntime = pick(rng, ['transparent', 'reactClassic']);
  if (chance(rng, 0.4)) {
    const filesSection = section('files');
    if (chance(rng, 0.5)) filesSection.ignoreUnknown = pick(rng, [true, false]);
    if (chance(rng, 0.5)) filesSection.includes = pick(rng, [['**'], ['**', '!**/f1.*'], ['src/**'], ['**/*.ts', '**/*.json'], ['**', '!sub/**'], ['**', '!!**/f2.*']]);
    if (chance(rng, 0.2)) filesSection.maxSize = pick(rng, [10, 100, 100000]);
  }
  if (chance(rng, 0.3)) {
    const formatter = section('formatter');
    if (chance(rng, 0.3)) formatter.enabled = pick(rng, [true, false]);
    if (chance(rng, 0.5)) formatter.formatWithErrors = pick(rng, [true, false]);
    if (chance(rng, 0.3)) formatter.includes = pick(rng, [['**'], ['**', '!**/*.json'], ['**/*.ts']]);
  }
  for (const language of ['javascript', 'json', 'css', 'graphql']) {
    if (chance(rng, 0.1)) ((section(language).formatter ??= {}) as Record<string, unknown>).enabled = pick(rng, [true, false]);
  }
  if (chance(rng, 0.15)) config.vcs = { enabled: true, clientKind: 'git', useIgnoreFile: pick(rng, [true, false]) };
  if (chance(rng, 0.2)) {
    config.overrides = [...((config.overrides as unknown[]) ?? []), { includes: [pick(rng, ['**/*.json', '**/*.css', 'sub/**'])], ...pick(rng, [{ json: { parser: { allowComments: true, allowTrailingCommas: true } } }, { css: { parser: { cssModules: true } } }, { formatter: { enabled: false } }]) }];
  }
  files[chance(rng, 0.8) ? 'biome.json' : 'biome.jsonc'] = JSON.stringify(config, null, 2);
  if (config.vcs) files['.gitignore'] = pick(rng, ['f1.*\n', 'sub/\n', '*.json\n']);
  const dirs = ['', ...(chance(rng, 0.5) ? ['sub/'] : []), ...(chance(rng, 0.3) ? ['src/'] : [])];
  const kinds = ['ts', 'js', 'jsx', 'css', 'json', 'jsonc', 'graphql', 'broken'];
  const count = 3 + Math.floor(rng() * 4);
  for (let i = 0; i < count; i++) {
    const kind = pick(rng, kinds);
    const ext = kind === 'broken' ? pick(rng, ['ts', 'js']) : kind;
    files[`${pick(rng, dirs)}f${i}.${ext}`] = withEndings(rng, WIDE_BIOME_SOURCES[kind] as string);
  }
  return { kind: 'biome', files, sources: Object.keys(files).filter((f) => /\/?f\d+\.\w+$/.test(f)) };
}

const WIDE_PRETTIER_VALUES: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  ...PRETTIER_VALUES,
  jsxSingleQuote: { valid: [true, false], invalid: ['yes'] },
  singleAttributePerLine: { valid: [true, false], invalid: [1] },
  htmlWhitespaceSensitivity: { valid: ['css', 'strict', 'ignore'], invalid: ['none'] },
  vueIndentScriptAndStyle: { valid: [true, false], invalid: ['no'] },
  embeddedLanguageFormatting: { valid: ['auto', 'off'], invalid: ['on'] },
  experimentalTernaries: { valid: [true, false], invalid: ['true'] },
  experimentalOperatorPosition: { valid: ['start', 'end'], invalid: ['middle'] },
  requirePragma: { valid: [true, false], invalid: [1] },
  insertPragma: { valid: [true, false], invalid: [1] },
  parser: { valid: ['babel', 'typescript', 'json5', 'yaml'], invalid: ['nope'] },
};

const WIDE_PRETTIER_SOURCES: Record<string, string> = {
  ...SOURCES,
  jsx: 'const A = () => <div className="a" id=\'b\' data-x="y">{ok ? <span>{x}</span> : null}</div>\n',
  vue: '<template>\n  <div   class="a">{{ msg }}</div>\n</template>\n<script>\nexport default {data(){return {msg:"hi"}}}\n</script>\n<style>\n.a{color:red}\n</style>\n',
  html: '<!doctype html>\n<html><head><title>x</title></head><body><p>Some <b>bold</b>   text</p><script>let a={b:1}</script></body></html>\n',
  scss: '$c: red;\n.a{ .b{color:$c} &:hover{color:blue}}\n',
  graphql: 'query Q($a: Int) { user(id: $a) { name, friends { id } } }\n',
  mdx: '# Hi\n\nexport const a = {b:1}\n\n<Comp   x="1" />\n',
  ts: SOURCES.ts + 'const t = a ? b : c ? d : e\nconst longer = someCondition && anotherCondition || yetAnotherCondition && theLastCondition\n',
};

export function prettierWideProject(rng: Rng): GeneratedProject {
  const files: Record<string, string> = { '.git/': '' };
  const options = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const n = 1 + Math.floor(rng() * 5);
    for (let i = 0; i < n; i++) {
      const key = pick(rng, Object.keys(WIDE_PRETTIER_VALUES));
      const values = WIDE_PRETTIER_VALUES[key] as { valid: unknown[]; invalid: unknown[] };
      out[key] = chance(rng, 0.04) ? pick(rng, values.invalid) : pick(rng, values.valid);
    }
    return out;
  };
  const root = options();
  if (chance(rng, 0.3)) root.overrides = [{ files: pick(rng, ['*.vue', '*.{html,scss}', '*.jsx', 'sub/**']), ...(chance(rng, 0.4) ? { excludeFiles: pick(rng, ['sub/**', '*.md']) } : {}), options: options() }];
  const [name, text] = prettierConfigFile(rng, root, chance(rng, 0.02));
  files[name] = text;
  if (chance(rng, 0.2)) files['.prettierignore'] = pick(rng, ['f1.*\n', 'sub/\n', '*.vue\n', '# comment\n!f2.*\n']);
  if (chance(rng, 0.3)) files['.editorconfig'] = editorconfig(rng);
  const dirs = ['', ...(chance(rng, 0.4) ? ['sub/'] : [])];
  const count = 2 + Math.floor(rng() * 4);
  for (let i = 0; i < count; i++) {
    const ext = pick(rng, Object.keys(WIDE_PRETTIER_SOURCES));
    files[`${pick(rng, dirs)}f${i}.${ext}`] = withEndings(rng, WIDE_PRETTIER_SOURCES[ext] as string);
  }
  return { kind: 'prettier', files, sources: Object.keys(files).filter((f) => /\/?f\d+\.\w+$/.test(f)) };
}
