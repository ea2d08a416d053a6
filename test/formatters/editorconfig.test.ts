// formatbox's EditorConfig normaliser (wasm/editorconfig/editorconfig.c run by the WASI runner):
// exact cases of its own, a reproducible build, and real projects with their real .editorconfig
// (Debian's librust-tiny-keccak-dev, pyenv when installed), checked against an independent
// TypeScript reading of the same rules (below) file by file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { editorconfigArgs, editorconfigFormatter, EDITORCONFIG_NORMALISER_VERSION } from '../../src/formatters/editorconfig/adapter.js';
import { loadCapped, runWasiCommand } from '../../src/formatters/wasi.js';
import { editorconfigFor, parseEditorconfig } from '../../src/config/editorconfig.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

const WASM = new URL('../../wasm/editorconfig/editorconfig.wasm', import.meta.url);
const adapter = editorconfigFormatter({ wasm: async () => readFileSync(WASM) });

async function normalise(text: string, properties: Record<string, string | number>, path = 'a.txt'): Promise<string> {
  const result = await adapter.format({ path, language: 'text', text, settings: properties });
  assert.equal(result.kind, 'ok', JSON.stringify(result));
  return (result as { text: string }).text;
}

/** The same rules, written independently: the oracle for real files. */
function oracle(text: string, p: Record<string, string | number>, path: string): string {
  let bom = text.startsWith('\uFEFF');
  let body = bom ? text.slice(1) : text;
  if (p.charset === 'utf-8') bom = false;
  if (p.charset === 'utf-8-bom') bom = true;
  const tabWidth = typeof p.tab_width === 'number' && p.tab_width >= 1 && p.tab_width <= 64 ? p.tab_width : 8;
  const makefile = /(^|\/)(GNUmakefile|makefile|Makefile|[^/]*\.mk|[^/]*\.make)$/.test(path);
  const eol = p.end_of_line === 'lf' ? '\n' : p.end_of_line === 'crlf' ? '\r\n' : p.end_of_line === 'cr' ? '\r' : undefined;
  const lines = body.match(/[^\r\n]*(\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
  body = lines
    .map((line) => {
      const ending = /(\r\n|\r|\n)$/.exec(line)?.[0] ?? '';
      let content = line.slice(0, line.length - ending.length);
      const lead = /^[ \t]*/.exec(content)![0];
      let rest = content.slice(lead.length);
      if (p.trim_trailing_whitespace === 'true') rest = rest.replace(/[ \t]+$/, '');
      let indent = lead;
      if (p.trim_trailing_whitespace === 'true' && rest === '') indent = '';
      else if ((p.indent_style === 'space' && !(makefile && lead.includes('\t'))) || p.indent_style === 'tab') {
        let column = 0;
        for (const c of lead) column = c === '\t' ? (Math.floor(column / tabWidth) + 1) * tabWidth : column + 1;
        indent = p.indent_style === 'space' ? ' '.repeat(column) : '\t'.repeat(Math.floor(column / tabWidth)) + ' '.repeat(column % tabWidth);
      }
      content = indent + rest;
      return content + (ending ? (eol ?? ending) : '');
    })
    .join('');
  if (p.insert_final_newline === 'true' && body !== '' && !/[\r\n]$/.test(body)) body += eol ?? (/\r\n|\r|\n/.exec(body)?.[0] ?? '\n');
  if (p.insert_final_newline === 'false') body = body.replace(/[\r\n]+$/, '');
  return (bom ? '\uFEFF' : '') + body;
}

test('exact cases: whitespace, final newline, line endings, indentation, BOM, Makefiles', async () => {
  assert.equal(await normalise('a  \nb\t\n  \n', { trim_trailing_whitespace: 'true' }), 'a\nb\n\n');
  assert.equal(await normalise('a\nb', { insert_final_newline: 'true' }), 'a\nb\n');
  assert.equal(await normalise('a\r\nb', { insert_final_newline: 'true' }), 'a\r\nb\r\n');
  assert.equal(await normalise('a\n\n\n', { insert_final_newline: 'false' }), 'a');
  assert.equal(await normalise('a\r\nb\rc\nd', { end_of_line: 'crlf' }), 'a\r\nb\r\nc\r\nd');
  assert.equal(await normalise('a\r\nb\r\n', { end_of_line: 'lf' }), 'a\nb\n');
  assert.equal(await normalise('\tx\n  \ty\n', { indent_style: 'space', tab_width: 4 }), '    x\n    y\n');
  assert.equal(await normalise('      x\n    y\n', { indent_style: 'tab', tab_width: 4 }), '\t  x\n\ty\n');
  assert.equal(await normalise('\uFEFFa\n', { charset: 'utf-8' }), 'a\n');
  assert.equal(await normalise('a\n', { charset: 'utf-8-bom' }), '\uFEFFa\n');
  assert.equal(await normalise('all:\n\techo hi\n', { indent_style: 'space', tab_width: 2 }, 'Makefile'), 'all:\n\techo hi\n');
  assert.equal(await normalise('', { insert_final_newline: 'true' }), '');
  assert.equal(await normalise('ünïcödé ✓  \n', { trim_trailing_whitespace: 'true' }), 'ünïcödé ✓\n');
  assert.deepEqual(editorconfigArgs({ indent_style: 'space', tab_width: 2, charset: 'latin1', max_line_length: 80 }, 'x/GNUmakefile'), ['--indent-style=space', '--tab-width=2', '--keep-leading-tabs']);
});

test('--version names the build the receipts name', async () => {
  const loaded = await loadCapped(new Uint8Array(readFileSync(WASM)), 64 * 1024 * 1024, 'editorconfig.wasm');
  assert.ok('module' in loaded);
  const run = runWasiCommand(loaded.module, { args: ['editorconfig', '--version'], env: {}, stdin: new Uint8Array(), maxStdoutBytes: 1024 });
  assert.equal(run.kind, 'exit');
  assert.equal(new TextDecoder().decode((run as { stdout: Uint8Array }).stdout), `formatbox-editorconfig ${EDITORCONFIG_NORMALISER_VERSION}\n`);
  assert.equal((await adapter.info()).version, EDITORCONFIG_NORMALISER_VERSION);
});

const clang = spawnSync('clang', ['--version']).status === 0 && existsSync('/usr/lib/wasm32-wasi/libc.a');
test('the committed module is what build.mjs builds from source (reproducible)', { skip: !clang && !process.env.CI ? 'clang or wasi-libc missing (outside CI)' : false }, () => {
  const check = spawnSync(process.execPath, ['wasm/editorconfig/build.mjs', '--check'], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^reproducible: [0-9a-f]{64}$/m);
});

function textFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (name === '.git' || name === 'versions' || name === 'node_modules') continue;
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (!stats) continue;
    if (stats.isDirectory()) textFiles(full, out);
    else if (stats.isFile() && stats.size < 512 * 1024) out.push(full);
  }
  return out;
}

const CORPORA = ['/usr/share/cargo/registry/tiny-keccak-2.0.2', '/root/.pyenv'].filter((dir) => existsSync(join(dir, '.editorconfig')));

test('real projects with their own .editorconfig: every uncovered text file agrees with the independent reading', { skip: CORPORA.length === 0 && !process.env.CI ? 'no project with an .editorconfig on this machine (apt-get install librust-tiny-keccak-dev)' : false }, async () => {
  assert.ok(CORPORA.length > 0, 'CI installs librust-tiny-keccak-dev');
  const formatters = createBuiltinAdapters();
  for (const root of CORPORA) {
    const editorconfigText = readFileSync(join(root, '.editorconfig'), 'utf8');
    const engine = createEngine({ formatters, projectFiles: { '.editorconfig': editorconfigText } });
    const parsed = [parseEditorconfig(editorconfigText, '.editorconfig', '', [])];
    let checked = 0;
    let changed = 0;
    let restored = 0;
    // Every file with FORMATBOX_LONG=1; the first 300 of each project otherwise.
    for (const file of textFiles(root).slice(0, process.env.FORMATBOX_LONG === '1' ? undefined : 300)) {
      const bytes = new Uint8Array(readFileSync(file));
      const path = relative(root, file);
      const outcome = await engine.format({ path, bytes });
      if (outcome.status === 'skipped' && /binary|not UTF-8/.test(outcome.reason ?? '')) continue;
      if (outcome.formatter?.name !== 'formatbox-editorconfig') continue;
      assert.ok(outcome.status === 'formatted' || outcome.status === 'unchanged', `${path}: ${outcome.line}`);
      const text = new TextDecoder().decode(bytes);
      assert.equal(outcome.content, oracle(text, editorconfigFor(parsed, path), path), path);
      checked++;
      if (outcome.status === 'formatted') changed++;
      // The same file wrecked: trailing blanks, CRLF, tab indentation, a BOM.
      const wrecked = `\uFEFF${text.replace(/^( {4})+/gm, (lead) => '\t'.repeat(lead.length / 4)).replace(/\n/g, '  \r\n')}`;
      const repaired = await engine.format({ path, text: wrecked });
      assert.equal(repaired.content, oracle(wrecked, editorconfigFor(parsed, path), path), `${path} (wrecked)`);
      if (repaired.content === text) restored++;
    }
    console.log(`# ${root}: ${checked} files through the normaliser, ${changed} changed as found; wrecked copies restored byte for byte: ${restored}/${checked}`);
    assert.ok(checked > 5, `${root}: only ${checked} files checked`);
    await engine.dispose();
  }
});
