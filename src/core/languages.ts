/**
 * The language table: file extension → language id. Formatter adapters declare the
 * language ids they handle; user config may add languages by extension. Past this table, the file
 * names and extensions Prettier's own languages list (prettier-file-names.ts, generated from its
 * `getSupportInfo()`): `.wxs`, `.importmap`, `.js.flow`, `.xhtml` (HTML for Prettier), `README`, ….
 */
import { PRETTIER_FILE_NAMES } from './prettier-file-names.js';

export const LANGUAGE_BY_EXTENSION: Readonly<Record<string, string>> = {
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  json: 'json', jsonc: 'jsonc', json5: 'json5',
  css: 'css', scss: 'scss', less: 'less',
  md: 'markdown', markdown: 'markdown', mdx: 'mdx',
  yaml: 'yaml', yml: 'yaml',
  html: 'html', htm: 'html', vue: 'vue',
  graphql: 'graphql', gql: 'graphql',
  py: 'python', pyi: 'python',
  go: 'go',
  rs: 'rust',
  toml: 'toml',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp',
  java: 'java', proto: 'proto', cs: 'csharp',
  sh: 'shell', bash: 'shell', bats: 'shell', ksh: 'shell', mksh: 'shell', zsh: 'shell',
  lua: 'lua', sql: 'sql', php: 'php', phtml: 'php',
  xml: 'xml', svg: 'xml', xsd: 'xml', xsl: 'xml', xslt: 'xml', wsdl: 'xml', rss: 'xml', atom: 'xml',
  dockerfile: 'dockerfile',
  svelte: 'svelte', astro: 'astro', kt: 'kotlin', kts: 'kotlin',
  hbs: 'handlebars', handlebars: 'handlebars',
  m: 'objective-c', mm: 'objective-c',
  sv: 'verilog', svh: 'verilog',
  textproto: 'textproto', textpb: 'textproto', pbtxt: 'textproto',
};

/**
 * Files known by name rather than extension: `Dockerfile`, as dprint-plugin-dockerfile matches it
 * (`Dockerfile.dev` and `Containerfile` are not matched by the dprint CLI either).
 */
const LANGUAGE_BY_FILE_NAME: ReadonlyArray<readonly [RegExp, string]> = [[/^Dockerfile$/, 'dockerfile']];

/** Lower-cased extension without the dot, or '' when the name has none. */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** Language id for a path, honouring user-added languages (`{ sql: ['sql'] }`). */
export function languageOf(path: string, extra: Record<string, string[]> = {}): string | undefined {
  const extension = extensionOf(path);
  const base = path.slice(path.lastIndexOf('/') + 1);
  const named = LANGUAGE_BY_FILE_NAME.find(([pattern]) => pattern.test(base));
  if (named && !Object.values(extra).some((extensions) => extensions.some((e) => e.replace(/^\./, '').toLowerCase() === extension))) return named[1];
  for (const [language, extensions] of Object.entries(extra)) {
    if (extension && extensions.some((e) => e.replace(/^\./, '').toLowerCase() === extension)) return language;
  }
  if (Object.hasOwn(PRETTIER_FILE_NAMES.filenames, base)) return PRETTIER_FILE_NAMES.filenames[base];
  const own = extension ? LANGUAGE_BY_EXTENSION[extension] : undefined;
  if (own) return own;
  return prettierLanguageByExtension(base);
}

/** Prettier's inference by extension: the name ends with it, as written (`.js.flow`, `.JSON-tmLanguage`). */
function prettierLanguageByExtension(base: string): string | undefined {
  for (let dot = base.indexOf('.', 1); dot > 0; dot = base.indexOf('.', dot + 1)) {
    const ending = base.slice(dot);
    if (Object.hasOwn(PRETTIER_FILE_NAMES.extensions, ending)) return PRETTIER_FILE_NAMES.extensions[ending];
  }
  return undefined;
}
