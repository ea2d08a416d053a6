// Agreement: formatbox's own reading of Biome's `files.includes` / `formatter.includes` /
// `<language>.formatter.enabled` (formatters/biome/config.ts, used to skip a file before formatting) against
// Biome itself (the wasm workspace's fileFeatures, through the Biome adapter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../src/config/index.js';
import { biomeFormatter } from '../../src/formatters/biome/adapter.js';
import { resolvePackageFile } from '../../src/node/builtins.js';

const CONFIGS: Record<string, string>[] = [
  { 'biome.json': JSON.stringify({ files: { includes: ['**', '!**/generated', '!**/*.min.js'] } }) },
  { 'biome.json': JSON.stringify({ files: { includes: ['src/**', 'test/**/*.ts'] } }) },
  { 'biome.json': JSON.stringify({ files: { includes: ['**', '!dist/**', '!**/fixtures/**', 'test/fixtures/keep.ts'] } }) },
  { 'biome.json': JSON.stringify({ formatter: { includes: ['**/*.ts', '!**/legacy/**'] } }) },
  { 'biome.json': JSON.stringify({ css: { formatter: { enabled: false } }, json: { formatter: { enabled: false } } }) },
  { 'packages/a/biome.json': JSON.stringify({ files: { includes: ['src/**'] } }) },
];

const PATHS = [
  'src/a.ts', 'src/generated/x.ts', 'src/x.min.js', 'lib/b.js', 'test/a.ts', 'test/a.js', 'dist/out.js',
  'test/fixtures/x.ts', 'test/fixtures/keep.ts', 'legacy/old.ts', 'src/legacy/old.ts', 'a.css', 'data.json',
  'packages/a/src/m.ts', 'packages/a/lib/m.ts', 'packages/a/generated/m.ts', 'x.graphql',
];

test('formatbox skips exactly the files Biome itself ignores', async () => {
  const biome = biomeFormatter({ wasm: async () => new Uint8Array(await readFile(resolvePackageFile('@biomejs/wasm-web/biome_wasm_bg.wasm'))) });
  const user = normaliseUserConfig({});
  let compared = 0;
  try {
    for (const files of CONFIGS) {
      const project = loadProjectConfig(files, { trust: 'untrusted' });
      for (const path of PATHS) {
        const selection = selectFormatter(project, user, path);
        if (selection.kind === 'skip' && selection.reason !== 'ignored by project config') continue; // Outside the nested config.
        const result = await biome.format({
          path,
          language: selection.language ?? 'typescript',
          text: path.endsWith('.css') ? 'a{color:red}\n' : path.endsWith('.json') ? '{"a":1}\n' : path.endsWith('.graphql') ? 'query{a}\n' : 'let a=1\n',
          settings: selection.kind === 'format' ? selection.settings : (loadProjectConfig(files, {}).biome[0]?.configuration ?? {}),
          ...(selection.kind === 'format' && selection.settingsDir ? { settingsDir: selection.settingsDir } : {}),
          ...(selection.kind === 'skip' ? { settingsDir: project.biome[0]?.dir ?? '' } : {}),
        });
        const biomeSkips = result.kind === 'unsupported';
        assert.equal(selection.kind === 'skip', biomeSkips, `${JSON.stringify(files)} ${path}: formatbox ${JSON.stringify(selection.kind === 'skip' ? selection.detail : 'format')}, Biome ${JSON.stringify(result)}`);
        compared++;
      }
    }
  } finally {
    await biome.dispose?.();
  }
  assert.ok(compared >= 80, String(compared));
});
