// The project's own Prettier with its own config and plugins, run in the OS sandbox (untrusted mode's
// `projectCode: 'sandbox'`): real packages from the npm registry, real bubblewrap, and bytes compared
// file by file with the project's own `prettier --write`, through `runtime.edit` and `formatbox format`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { stopProjectToolchains, warmToolchainCount } from '../../src/node/project-toolchain/index.js';
import { missing } from './helpers.js';
import { packagesOrSkip, projectPrettier, projectWith } from './npm-projects.js';

after(() => stopProjectToolchains());

const REPO = resolve('.');

export const TAILWIND_V3 = { prettier: '3.6.2', 'prettier-plugin-tailwindcss': '0.6.14', tailwindcss: '3.4.17' };
export const SORT_IMPORTS = { prettier: '3.6.2', '@ianvs/prettier-plugin-sort-imports': '4.7.0' };

export const TAILWIND_FILES: Record<string, string> = {
  '.prettierrc': '{ "plugins": ["prettier-plugin-tailwindcss"] }\n',
  'tailwind.config.js': "module.exports = { content: ['./src/**/*.{html,jsx,tsx}'], theme: { extend: { colors: { brand: '#123456' } } }, plugins: [] };\n",
  'src/App.jsx': 'export default function App(){return <main className="text-white p-4 flex bg-brand items-center m-2 hover:bg-red-500">\n<p className="font-bold underline text-sm">hi</p></main>}\n',
  'src/Card.tsx': "type P={title:string}\nexport const Card=({title}:P)=><div className='shadow-lg rounded p-2 grid gap-4 md:grid-cols-2'>{title}</div>\n",
  'src/index.html': '<div class="text-center   px-4 container mx-auto block"><span class="italic text-xs font-mono">x</span></div>\n',
  'src/styles.css': '.btn{@apply text-white py-2 px-4 rounded bg-blue-500;}\n',
};

const SORT_FILES: Record<string, string> = {
  'prettier.config.mjs': "export default { semi: false, singleQuote: true, plugins: ['@ianvs/prettier-plugin-sort-imports'], importOrder: ['<THIRD_PARTY_MODULES>', '', '^[./]'] };\n",
  'src/a.ts': "import { z } from './z'\nimport fs from \"node:fs\";\nimport { b } from './b';\nimport React from \"react\";\nexport const a = [z, fs, b, React];\n",
  'src/b.js': 'import { y } from "./y";\nimport path from "node:path";\nexport const b = { y, path, s: "double" };\n',
};

/** formatbox's `format --write` (the CLI, untrusted) on `paths`: exit code and output. */
function formatboxWrite(root: string, paths: readonly string[]): { code: number; stdout: string; stderr: string } {
  const home = mkdtempSync(join(tmpdir(), 'fb-toolchain-home-'));
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), 'format', '--write', '--root', root, ...paths.map((path) => join(root, path))], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, FORMATBOX_CONFIG: '', XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), XDG_RUNTIME_DIR: home },
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** Every file identical to what the project's own `prettier --write` leaves in a second copy of the project. */
function assertSameAsPrettierWrite(packages: string, files: Record<string, string>): void {
  const sources = Object.keys(files).filter((path) => path.startsWith('src/'));
  const ours = projectWith(packages, files);
  const theirs = projectWith(packages, files);
  try {
    projectPrettier(theirs.root, ['--write', ...sources]);
    const run = formatboxWrite(ours.root, sources);
    assert.equal(run.code, 0, `formatbox format failed:\n${run.stdout}\n${run.stderr}`);
    let changed = 0;
    for (const path of sources) {
      const expected = readFileSync(join(theirs.root, path), 'utf8');
      if (expected !== files[path]) changed++;
      assert.equal(readFileSync(join(ours.root, path), 'utf8'), expected, `${path} differs from prettier --write`);
    }
    // The comparison means something only when Prettier changed files.
    assert.ok(changed >= sources.length - 1, `prettier --write changed only ${changed} of ${sources.length} files`);
  } finally {
    ours.cleanup();
    theirs.cleanup();
  }
}

test('Tailwind v3 (.prettierrc + prettier-plugin-tailwindcss + tailwind.config.js): formatbox format --write equals prettier --write', { timeout: 900_000 }, (t) => {
  if (missing()) return t.skip('no OS sandbox');
  const packages = packagesOrSkip(t, 'tailwind-v3', TAILWIND_V3);
  if (packages) assertSameAsPrettierWrite(packages, TAILWIND_FILES);
});

test('prettier.config.mjs with @ianvs/prettier-plugin-sort-imports: formatbox format --write equals prettier --write', { timeout: 900_000 }, (t) => {
  if (missing()) return t.skip('no OS sandbox');
  const packages = packagesOrSkip(t, 'sort-imports', SORT_IMPORTS);
  if (packages) assertSameAsPrettierWrite(packages, SORT_FILES);
});

test('runtime.edit in a Tailwind v3 project: the project Prettier runs sandboxed and warm, the receipt names config and plugin', { timeout: 600_000 }, async (t) => {
  if (missing()) return t.skip('no OS sandbox');
  const packages = packagesOrSkip(t, 'tailwind-v3', TAILWIND_V3);
  if (!packages) return;
  const project = projectWith(packages, TAILWIND_FILES);
  const runtime = createRuntime({ root: project.root });
  try {
    const prior = TAILWIND_FILES['src/App.jsx']!;
    const first = await runtime.edit({ path: 'src/App.jsx', oldText: 'font-bold underline', newText: 'underline font-bold mt-1' });
    const written = prior.replace('font-bold underline', 'underline font-bold mt-1');
    const expected = projectPrettier(project.root, ['--stdin-filepath', 'src/App.jsx'], written);
    assert.equal(first.status, 'formatted', first.line);
    assert.equal(readFileSync(join(project.root, 'src/App.jsx'), 'utf8'), expected);
    assert.equal(first.content, expected);
    assert.deepEqual(first.formatter, { name: 'prettier', version: '3.6.2', via: 'sandbox', projectCode: { config: '.prettierrc', plugins: ['prettier-plugin-tailwindcss'] } });
    assert.match(first.line, /^formatted \(prettier 3\.6\.2, sandbox\): src\/App\.jsx$/);
    // Warm: the next edit reuses the same worker.
    const warmBefore = warmToolchainCount();
    const second = await runtime.edit({ path: 'src/Card.tsx', oldText: 'gap-4 md:grid-cols-2', newText: 'md:grid-cols-2 gap-4 p-1' });
    assert.equal(second.status, 'formatted', second.line);
    assert.equal(second.content, projectPrettier(project.root, ['--stdin-filepath', 'src/Card.tsx'], TAILWIND_FILES['src/Card.tsx']!.replace('gap-4 md:grid-cols-2', 'md:grid-cols-2 gap-4 p-1')));
    assert.equal(warmToolchainCount(), warmBefore);
    // A second runtime on the same root shares the warm worker.
    const other = createRuntime({ root: project.root });
    const third = await other.format({ path: 'src/index.html' });
    assert.equal(third.content, projectPrettier(project.root, ['--stdin-filepath', 'src/index.html'], TAILWIND_FILES['src/index.html']!));
    assert.equal(warmToolchainCount(), warmBefore);
    // doctor says, per language, that the project's code runs sandboxed and why.
    const rows = (await other.doctor()).languages;
    for (const language of ['javascript', 'typescript', 'html', 'css']) {
      const row = rows.find((l) => l.language === language);
      assert.equal(row?.projectCode, 'sandbox', `${language}: ${JSON.stringify(row)}`);
      assert.match(row?.because ?? '', /its setup is code \(\.prettierrc\), so the project's own prettier runs it in the OS sandbox/);
    }
    await other.close();
  } finally {
    await runtime.close();
    project.cleanup();
  }
});

test('projectCode: "refuse" (user config) and a runtime option: files whose config is code are refused, and the reason says so', { timeout: 300_000 }, async (t) => {
  if (missing()) return t.skip('no OS sandbox');
  const packages = packagesOrSkip(t, 'sort-imports', SORT_IMPORTS);
  if (!packages) return;
  const project = projectWith(packages, SORT_FILES);
  try {
    for (const options of [{ config: { projectCode: 'refuse' as const } }, { projectCode: 'refuse' as const }]) {
      const runtime = createRuntime({ root: project.root, ...options });
      const receipt = await runtime.format({ path: 'src/b.js' });
      const row = (await runtime.doctor()).languages.find((l) => l.language === 'javascript');
      await runtime.close();
      assert.equal(row?.projectCode, undefined);
      assert.match(row?.skipped ?? '', /^refused: prettier\.config\.mjs: this config is code.*\(not run in the OS sandbox: the (user config|runtime option) says "projectCode": "refuse"\)$/);
      assert.equal(receipt.status, 'refused');
      assert.match(receipt.reason ?? '', /this config is code.*not run in the OS sandbox: the (user config|runtime option) says "projectCode": "refuse"/);
      assert.equal(readFileSync(join(project.root, 'src/b.js'), 'utf8'), SORT_FILES['src/b.js']);
    }
  } finally {
    project.cleanup();
  }
});

test('a project without node_modules: its toolchain from a host directory (projectModulesDir), bound where Node resolves it', { timeout: 300_000 }, async (t) => {
  if (missing()) return t.skip('no OS sandbox');
  const packages = packagesOrSkip(t, 'sort-imports', SORT_IMPORTS);
  if (!packages) return;
  const bare = projectWith(packages, SORT_FILES, false);
  const reference = projectWith(packages, SORT_FILES);
  try {
    // Without a lockfile either (with one, the toolchain it names would be fetched: test/projects).
    rmSync(join(bare.root, 'package-lock.json'));
    const without = createRuntime({ root: bare.root });
    const refused = await without.format({ path: 'src/a.ts' });
    await without.close();
    assert.equal(refused.status, 'refused', refused.line);
    assert.match(refused.reason ?? '', /this config is code.*not run in the OS sandbox: the project has no Prettier installed/);
    const runtime = createRuntime({ root: bare.root, projectModulesDir: join(packages, 'node_modules') });
    const receipt = await runtime.format({ path: 'src/a.ts' });
    await runtime.close();
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.equal(receipt.content, projectPrettier(reference.root, ['--stdin-filepath', 'src/a.ts'], SORT_FILES['src/a.ts']!));
  } finally {
    bare.cleanup();
    reference.cleanup();
  }
});

test('trusted mode finds the project\'s plugins from its root, not from the working directory', { timeout: 300_000 }, async (t) => {
  const packages = packagesOrSkip(t, 'tailwind-v3', TAILWIND_V3);
  if (!packages) return;
  const project = projectWith(packages, TAILWIND_FILES);
  const runtime = createRuntime({ root: project.root, trust: 'trusted', limits: { timeoutMs: 60_000 } });
  try {
    assert.notEqual(process.cwd(), project.root);
    const receipt = await runtime.format({ path: 'src/index.html' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.equal(receipt.content, projectPrettier(project.root, ['--stdin-filepath', 'src/index.html'], TAILWIND_FILES['src/index.html']!));
  } finally {
    await runtime.close();
    project.cleanup();
  }
});

test('prettier.config.mts loads as this Node loads it: through the project\'s own tsx on a Node without type stripping', { timeout: 300_000 }, async (t) => {
  if (missing()) return t.skip('no OS sandbox');
  const packages = packagesOrSkip(t, 'ts-config', { prettier: '3.6.2', tsx: '4.20.3' });
  if (!packages) return;
  const files = {
    'prettier.config.mts': "import type { Config } from 'prettier';\nconst config: Config = { semi: false, singleQuote: true, printWidth: 40 };\nexport default config;\n",
    'src/a.ts': 'export const greeting: string = "hello" + " " + "world, this is long";\n',
  };
  const project = projectWith(packages, files);
  const runtime = createRuntime({ root: project.root });
  try {
    const receipt = await runtime.format({ path: 'src/a.ts' });
    assert.equal(receipt.status, 'formatted', receipt.line);
    assert.equal(receipt.formatter?.projectCode?.config, 'prettier.config.mts');
    // The reference: the project's Prettier CLI with the project's tsx loaded, as such a project runs it.
    const expected = execFileSync(process.execPath, ['--import', 'tsx', join(project.root, 'node_modules/prettier/bin/prettier.cjs'), '--stdin-filepath', 'src/a.ts'], { cwd: project.root, input: files['src/a.ts'], encoding: 'utf8' });
    assert.equal(receipt.content, expected);
    assert.doesNotMatch(receipt.content, /;|"/);
  } finally {
    await runtime.close();
    project.cleanup();
  }
});
