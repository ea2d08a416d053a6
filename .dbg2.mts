import { mkdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { biomeProject, mulberry32, prettierProject } from './test/agreement/config-fuzz/generate.js';
import { createRuntime } from './src/node/index.js';
const rng = mulberry32(20261130);
const want = Number(process.argv[2]);
let project;
for (let i = 0; i <= want; i++) project = i % 2 === 0 ? prettierProject(rng) : biomeProject(rng);
const dir = mkdtempSync('/tmp/fz-');
for (const [p, c] of Object.entries(project!.files)) { const f = join(dir, p); if (p.endsWith('/')) mkdirSync(f, {recursive: true}); else { mkdirSync(dirname(f), {recursive: true}); writeFileSync(f, c); } }
console.log(dir, Object.keys(project!.files));
const rt = createRuntime({ root: dir });
for (const s of project!.sources) { const r = await rt.format({ path: s, check: true }); console.log(s, r.status, r.reason ?? ''); }
await rt.close();
