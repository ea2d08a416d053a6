import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
const mode = process.argv[2];
const dir = '/tmp/fbp/prettier/src';
const files = readdirSync(dir, { recursive: true }).filter((f) => /\.(ts|js|mjs|cjs|tsx)$/.test(f));
const texts = files.map((f) => { try { return [f, readFileSync(join(dir, f), 'utf8')]; } catch { return null; } }).filter(Boolean);
let format, plugins;
if (mode === 'node') { const p = await import('prettier'); format = p.format; plugins = []; }
else {
  const p = await import('prettier/standalone'); format = p.format;
  plugins = await Promise.all(['babel','estree','typescript','postcss','markdown','yaml','html','graphql'].map((n) => import(`prettier/plugins/${n}`)));
}
// warm
for (const [f, t] of texts.slice(0, 50)) await format(t, { filepath: f, plugins: mode === 'fresh' ? [...plugins] : plugins });
const t0 = performance.now();
for (const [f, t] of texts) await format(t, { filepath: f, plugins: mode === 'fresh' ? [...plugins] : plugins });
console.log(mode, texts.length, 'files', (performance.now() - t0).toFixed(0), 'ms');
