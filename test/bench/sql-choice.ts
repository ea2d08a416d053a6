// Measures the two SQL formatter candidates on real SQL and prints the table the choice rests on.
//
//   node --import tsx test/bench/sql-choice.ts
//
// Candidates: @wasm-fmt/sql_fmt (sqlformat-rs as wasm) and sql-formatter (devDependency, measured
// only; plain JS). Corpus: PostgreSQL's extension scripts (/usr/share/postgresql/*/extension, from
// the postgresql package) or any *.sql under /usr/share. Per candidate: how many files it formats
// without an error, keeps every non-blank character (case-insensitively, in order), formats
// idempotently (formatting its output changes nothing), and how long the corpus takes.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { format as sqlFormatter } from 'sql-formatter';
import { format as sqlFmt } from '@wasm-fmt/sql_fmt/node';

function sqlFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (stats?.isDirectory()) sqlFiles(full, out);
    else if (stats?.isFile() && name.endsWith('.sql') && stats.size < 200_000) out.push(full);
  }
  return out;
}

const candidates: Record<string, (text: string) => string> = {
  '@wasm-fmt/sql_fmt 0.2.2': (text) => sqlFmt(text, {}),
  'sql-formatter 15.9.0 (postgresql)': (text) => sqlFormatter(text, { language: 'postgresql' }),
  'sql-formatter 15.9.0 (sql)': (text) => sqlFormatter(text, { language: 'sql' }),
};

const files = sqlFiles('/usr/share/postgresql').concat(sqlFiles('/usr/share/postgresql-common'));
if (files.length === 0) {
  console.error('no SQL corpus (install postgresql)');
  process.exit(2);
}
const squash = (text: string) => text.replace(/\s+/g, '').toLowerCase();
console.log(`${files.length} files, ${files.reduce((n, f) => n + statSync(f).size, 0)} bytes`);
console.log('| candidate | formatted without error | every non-blank character kept | idempotent | time |');
console.log('|---|---|---|---|---|');
for (const [name, format] of Object.entries(candidates)) {
  let ok = 0;
  let kept = 0;
  let stable = 0;
  const started = performance.now();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    let out: string;
    try {
      out = format(text);
    } catch {
      continue;
    }
    ok++;
    if (squash(out) === squash(text)) kept++;
    try {
      if (format(out) === out) stable++;
    } catch {
      /* not idempotent: its own output does not parse */
    }
  }
  console.log(`| ${name} | ${ok}/${files.length} | ${kept}/${files.length} | ${stable}/${files.length} | ${Math.round(performance.now() - started)} ms |`);
}
