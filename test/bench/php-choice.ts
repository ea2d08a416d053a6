// Compares the two PHP candidates on real PHP and prints the table the choice rests on.
//
//   node --import tsx test/bench/php-choice.ts
//
// Candidates: @prettier/plugin-php 0.25.0 (on prettier/standalone) and @wasm-fmt/mago_fmt (Mago's
// formatter as wasm; devDependency, measured only). Corpus: Debian's php-psr-log and, when installed,
// the Cloud SDK's PHP. Per candidate: files formatted without an error, idempotent, time; and how
// many files the two format to the same bytes (PHP projects that list the Prettier plugin expect
// Prettier's output).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier/standalone';
import * as php from '@prettier/plugin-php/standalone';
import { format as mago } from '@wasm-fmt/mago_fmt/node';

function phpFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (stats?.isDirectory()) phpFiles(full, out);
    else if (stats?.isFile() && name.endsWith('.php') && stats.size < 200_000) out.push(full);
  }
  return out;
}

const files = [...phpFiles('/usr/share/php'), ...phpFiles('/usr/lib/google-cloud-sdk/platform/google_appengine/php')];
if (files.length === 0) {
  console.error('no PHP corpus (apt-get install php-psr-log)');
  process.exit(2);
}
const candidates: Record<string, (text: string, path: string) => Promise<string>> = {
  '@prettier/plugin-php 0.25.0': (text, path) => prettier.format(text, { filepath: path, plugins: [((php as { default?: unknown }).default ?? php) as never] }),
  '@wasm-fmt/mago_fmt 1.44.0': async (text, path) => mago(text, path),
};
const outputs: Record<string, Array<string | undefined>> = {};
console.log(`${files.length} PHP files`);
console.log('| candidate | formatted without error | idempotent | time |');
console.log('|---|---|---|---|');
for (const [name, format] of Object.entries(candidates)) {
  let ok = 0;
  let stable = 0;
  const started = performance.now();
  outputs[name] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    try {
      const out = await format(text, file);
      ok++;
      outputs[name]!.push(out);
      if ((await format(out, file)) === out) stable++;
    } catch {
      outputs[name]!.push(undefined);
    }
  }
  console.log(`| ${name} | ${ok}/${files.length} | ${stable}/${files.length} | ${Math.round(performance.now() - started)} ms |`);
}
const [a, b] = Object.values(outputs);
const same = a!.filter((out, i) => out !== undefined && out === b![i]).length;
console.log(`\nsame bytes from both: ${same}/${files.length}`);
