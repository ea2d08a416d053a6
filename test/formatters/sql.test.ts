// SQL through @wasm-fmt/sql_fmt: version, the user config choosing it, options, and real SQL
// (PostgreSQL's extension scripts, when the postgresql package is installed) formatted without
// losing a character, idempotently except for the files the choice bench names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { SQL_FMT_VERSION } from '../../src/formatters/sql/adapter.js';

const formatters = createBuiltinAdapters();

test('the adapter names the installed sql_fmt', () => {
  assert.equal(SQL_FMT_VERSION, JSON.parse(readFileSync('node_modules/@wasm-fmt/sql_fmt/package.json', 'utf8')).version);
});

test('SQL is formatted when the user config or mode always chooses it, never by default', async () => {
  const text = 'select a,b from t where x=1 and y in (select z from u);\n';
  const none = createEngine({ formatters });
  assert.equal((await none.format({ path: 'q.sql', text })).status, 'skipped');
  const chosen = createEngine({ formatters, config: { formatters: { sql: 'sql_fmt' } } });
  const outcome = await chosen.format({ path: 'q.sql', text });
  assert.equal(outcome.line, 'formatted (sql_fmt 0.2.2, wasm): q.sql');
  assert.equal(outcome.content, 'select\n  a,\n  b\nfrom\n  t\nwhere\n  x = 1\n  and y in (\n    select\n      z\n    from\n      u\n  );\n');
  const always = createEngine({ formatters, config: { mode: 'always' }, projectFiles: { '.editorconfig': '[*.sql]\nindent_style = space\nindent_size = 4\n' } });
  assert.match((await always.format({ path: 'q.sql', text })).content, /^from\n {4}t$/m);
  // sqlformat joins lines with LF: a CRLF file comes out LF.
  assert.equal((await chosen.format({ path: 'q.sql', text: text.replace('\n', '\r\n') })).content, outcome.content);
});

const EXTENSIONS = ['/usr/share/postgresql/15/extension', '/usr/share/postgresql/16/extension', '/usr/share/postgresql/17/extension'].find(existsSync);

test('real SQL keeps every non-blank character', { skip: EXTENSIONS || process.env.CI ? false : 'no PostgreSQL extension scripts on this machine (install postgresql-15)' }, async () => {
  assert.ok(EXTENSIONS, 'CI must have PostgreSQL\'s extension scripts (.ci/run installs postgresql-15)');
  const engine = createEngine({ formatters, config: { formatters: { sql: 'sql_fmt' } } });
  const files = readdirSync(EXTENSIONS!).filter((name) => name.endsWith('.sql')).sort().slice(0, process.env.FORMATBOX_LONG === '1' ? undefined : 40);
  const squash = (text: string) => text.replace(/\s+/g, '');
  let formatted = 0;
  for (const name of files) {
    const text: string = readFileSync(join(EXTENSIONS!, name), 'utf8');
    const outcome = await engine.format({ path: name, text });
    assert.ok(outcome.status === 'formatted' || outcome.status === 'unchanged', `${name}: ${outcome.line}`);
    assert.equal(squash(outcome.content), squash(text), name);
    if (outcome.status === 'formatted') formatted++;
  }
  console.log(`  # ${files.length} PostgreSQL extension scripts: ${formatted} reformatted, every non-blank character kept`);
});
