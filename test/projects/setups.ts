/**
 * The real-project setups: each a Prettier setup whose formatting is code (a plugin, a JS/TS config,
 * a shared config that is a module), at pinned versions of real registry packages. The corpus
 * builder (corpus.ts) installs each one's `dependencies` once per machine and lays the `files` and
 * the sources beside them.
 */

/** Where a setup's files to format come from (all real code read at test time, see corpus.ts). */
export type SourceKind = 't3' | 'package-json';

export interface ProjectSetup {
  id: string;
  /** Exact versions: what `npm install` puts into node_modules (and what package-lock.json names). */
  dependencies: Record<string, string>;
  /** Local packages of our own (a shared config), `file:` dependencies: directory → its files. */
  localPackages?: Record<string, Record<string, string>>;
  /** The project's own files besides package.json: configs, stylesheets, tsconfig. */
  files: Record<string, string>;
  /** Fields merged into the project's package.json (`type`, a `prettier` key). */
  packageJson?: Record<string, unknown>;
  sources: readonly SourceKind[];
  /** Node flags the project's own `prettier --write` needs (a TS config on a Node without type stripping loads through the project's tsx). */
  nodeFlags?: readonly string[];
  /** What the setup exercises, for failure messages and the report. */
  about: string;
}

const PRETTIER = '3.10.1';
const TAILWIND_V4 = { tailwindcss: '4.3.5', 'prettier-plugin-tailwindcss': '0.8.1' };
const IANVS_ORDER = ['<BUILTIN_MODULES>', '<THIRD_PARTY_MODULES>', '', '^~/(.*)$', '', '^[./]'];

/** Tailwind v4's entry stylesheet as create-t3-app 7.40.0 ships it, with a theme colour the plugin must know to order its classes. */
const TAILWIND_V4_STYLESHEET = '@import "tailwindcss";\n\n@theme {\n  --font-sans: var(--font-geist-sans), ui-sans-serif, system-ui, sans-serif;\n  --color-brand: #0f766e;\n}\n';

export const PROJECT_SETUPS: readonly ProjectSetup[] = [
  {
    id: 'tailwind-v3',
    about: 'prettier-plugin-tailwindcss 0.6 with Tailwind v3: tailwind.config.js executed (through jiti) to learn the class order',
    dependencies: { prettier: '3.6.2', tailwindcss: '3.4.17', 'prettier-plugin-tailwindcss': '0.6.14' },
    files: {
      '.prettierrc': '{ "plugins": ["prettier-plugin-tailwindcss"] }\n',
      'tailwind.config.js': "/** @type {import('tailwindcss').Config} */\nmodule.exports = {\n  content: ['./src/**/*.{js,ts,jsx,tsx}'],\n  theme: { extend: { colors: { brand: '#0f766e' } } },\n  plugins: [],\n};\n",
    },
    sources: ['t3'],
  },
  {
    id: 'tailwind-v4',
    about: "prettier-plugin-tailwindcss 0.8 with Tailwind v4: create-t3-app's prettier.config.js (ESM) naming the stylesheet (`tailwindStylesheet`)",
    dependencies: { prettier: PRETTIER, ...TAILWIND_V4 },
    packageJson: { type: 'module' },
    files: {
      'prettier.config.js': "/** @type {import('prettier').Config & import('prettier-plugin-tailwindcss').PluginOptions} */\nexport default {\n  plugins: ['prettier-plugin-tailwindcss'],\n  tailwindStylesheet: './src/styles/globals.css',\n};\n",
      'src/styles/globals.css': TAILWIND_V4_STYLESHEET,
    },
    sources: ['t3'],
  },
  {
    id: 'sort-imports-trivago',
    about: '@trivago/prettier-plugin-sort-imports from a .prettierrc.json, at an older Prettier',
    dependencies: { prettier: '3.6.2', '@trivago/prettier-plugin-sort-imports': '6.0.2' },
    files: {
      '.prettierrc.json': JSON.stringify({ plugins: ['@trivago/prettier-plugin-sort-imports'], importOrder: ['^~/(.*)$', '^[./]'], importOrderSeparation: true, importOrderSortSpecifiers: true }, null, 2) + '\n',
    },
    sources: ['t3'],
  },
  {
    id: 'sort-imports-ianvs',
    about: '@ianvs/prettier-plugin-sort-imports from prettier.config.mjs',
    dependencies: { prettier: PRETTIER, '@ianvs/prettier-plugin-sort-imports': '4.7.1' },
    files: {
      'prettier.config.mjs': `export default {\n  plugins: ['@ianvs/prettier-plugin-sort-imports'],\n  importOrder: ${JSON.stringify(IANVS_ORDER)},\n  importOrderTypeScriptVersion: '5.9.3',\n};\n`,
    },
    sources: ['t3'],
  },
  {
    id: 'organize-imports',
    about: "prettier-plugin-organize-imports: TypeScript's language service over tsconfig.json",
    dependencies: { prettier: PRETTIER, 'prettier-plugin-organize-imports': '4.3.0', typescript: '5.9.3' },
    files: {
      '.prettierrc.yaml': 'plugins:\n  - prettier-plugin-organize-imports\nsemi: false\n',
      'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'es2022', module: 'ESNext', moduleResolution: 'Bundler', jsx: 'preserve', strict: true, skipLibCheck: true, allowJs: true, checkJs: true, baseUrl: '.', paths: { '~/*': ['./src/*'] } }, include: ['**/*.ts', '**/*.tsx', '**/*.js'], exclude: ['node_modules'] }, null, 2) + '\n',
    },
    sources: ['t3'],
  },
  {
    id: 'packagejson',
    // 3.x's sort-package-json calls Object.groupBy, which Node 20 lacks: every file with a field it groups fails there.
    about: "prettier-plugin-packagejson 2.5 (sort-package-json) over real packages' package.json files",
    // @tailwindcss/postcss only brings more real package.json files to format (about 30 packages).
    dependencies: { prettier: PRETTIER, 'prettier-plugin-packagejson': '2.5.20', '@tailwindcss/postcss': '4.3.5' },
    files: { '.prettierrc': '{ "plugins": ["prettier-plugin-packagejson"] }\n' },
    sources: ['package-json'],
  },
  {
    id: 'ts-config',
    about: 'prettier.config.ts, loaded as the project loads it on this Node (through its own tsx where Node cannot strip types)',
    dependencies: { prettier: PRETTIER, tsx: '4.23.15' },
    packageJson: { type: 'module' },
    files: {
      'prettier.config.ts': "import type { Config } from 'prettier';\n\nconst config: Config = {\n  semi: false,\n  singleQuote: true,\n  trailingComma: 'all',\n  printWidth: 100,\n} satisfies Config;\n\nexport default config;\n",
    },
    nodeFlags: typeStrippingNode() ? [] : ['--import', 'tsx'],
    sources: ['t3'],
  },
  {
    id: 'cjs-shared-config',
    about: '.prettierrc.cjs requiring the published shared config @sanity/prettier-config (which loads prettier-plugin-packagejson), with a local override',
    dependencies: { prettier: PRETTIER, '@sanity/prettier-config': '3.0.0' },
    files: { '.prettierrc.cjs': "module.exports = {\n  ...require('@sanity/prettier-config'),\n  printWidth: 90,\n};\n" },
    sources: ['t3', 'package-json'],
  },
  {
    id: 'esm-shared-config',
    about: 'package.json `"prettier": "@acme/prettier-config"`, a shared config published as an ES module (a local package of our own) that loads a plugin',
    dependencies: { prettier: PRETTIER, '@ianvs/prettier-plugin-sort-imports': '4.7.1', '@acme/prettier-config': 'file:./packages/prettier-config' },
    localPackages: {
      'packages/prettier-config': {
        'package.json': JSON.stringify({ name: '@acme/prettier-config', version: '1.0.0', type: 'module', exports: './index.js' }, null, 2) + '\n',
        'index.js': `/** @type {import('prettier').Config} */\nexport default {\n  singleQuote: true,\n  printWidth: 100,\n  plugins: ['@ianvs/prettier-plugin-sort-imports'],\n  importOrder: ${JSON.stringify(IANVS_ORDER)},\n};\n`,
      },
    },
    packageJson: { prettier: '@acme/prettier-config' },
    files: {},
    sources: ['t3'],
  },
  {
    id: 'combined',
    about: 'sort-imports then Tailwind (the order the Tailwind plugin asks for: last)',
    dependencies: { prettier: PRETTIER, '@ianvs/prettier-plugin-sort-imports': '4.7.1', ...TAILWIND_V4 },
    files: {
      '.prettierrc.json': JSON.stringify({ plugins: ['@ianvs/prettier-plugin-sort-imports', 'prettier-plugin-tailwindcss'], importOrder: IANVS_ORDER, tailwindStylesheet: './src/styles/globals.css' }, null, 2) + '\n',
      'src/styles/globals.css': TAILWIND_V4_STYLESHEET,
    },
    sources: ['t3'],
  },
  {
    id: 'combined-reversed',
    about: 'the same plugins in the other order (Tailwind first): Prettier keeps the last plugin’s parser, so the output differs from `combined`',
    dependencies: { prettier: PRETTIER, '@ianvs/prettier-plugin-sort-imports': '4.7.1', ...TAILWIND_V4 },
    files: {
      '.prettierrc.json': JSON.stringify({ plugins: ['prettier-plugin-tailwindcss', '@ianvs/prettier-plugin-sort-imports'], importOrder: IANVS_ORDER, tailwindStylesheet: './src/styles/globals.css' }, null, 2) + '\n',
      'src/styles/globals.css': TAILWIND_V4_STYLESHEET,
    },
    sources: ['t3'],
  },
];

/** Whether this Node loads a `.ts` module by stripping its types without a flag (22.18 and 23.6 on). */
function typeStrippingNode(): boolean {
  return (process.features as { typescript?: unknown }).typescript === 'strip' || (process.features as { typescript?: unknown }).typescript === 'transform';
}
