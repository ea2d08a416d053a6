// What formatbox shows never carries a config file's secret or a terminal escape:
// - a config file with more than one hard link is refused in untrusted mode, by its own name, for
//   every formatter's config (its other name may be `.npmrc`, a key, `.env`); the secret it holds
//   appears in no receipt field, no CLI output, no MCP text;
// - a config value quoted in a message is a short excerpt;
// - a formatter message quoting file content (ESC, U+202E) is escaped in the receipt's line and
//   reason, in `format --check` output, in the hook's context and in MCP text.
// Each CLI call under a time and a memory bound (bounded.ts).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const SECRET = 'S3CRET-npm_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8';
const BOUND = { timeout: 180_000 };
/** Raw controls a message must never carry: ESC, CR alone, BEL, bidi overrides and isolates. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function apply(root: string, request: unknown) {
  return runBounded(process.execPath, [built.cli, 'apply', '--json'], { env: iso.env, cwd: root, input: JSON.stringify(request) });
}

/** Each formatter's config file name, a file it formats, and a secret file's text that config would misread. */
const CONFIGS: Array<{ config: string; file: string; source: string; secretText: string }> = [
  { config: '.prettierrc', file: 'a.css', source: 'a{color:red}\n', secretText: `${SECRET}\n` },
  { config: '.prettierrc', file: 'b.md', source: '# x\n', secretText: `tabWidth: "${SECRET}"\n` },
  { config: 'biome.json', file: 'a.ts', source: 'const a=1\n', secretText: `{ "formatter": { "indentWidth": "${SECRET}" } }\n` },
  { config: 'ruff.toml', file: 'a.py', source: 'x=1\n', secretText: `line-length = "${SECRET}"\n` },
  { config: '.clang-format', file: 'a.c', source: 'int x=1;\n', secretText: `IndentWidth: ${SECRET}\n` },
  { config: 'dprint.json', file: 'a.toml', source: 'a=1\n', secretText: `{ "toml": { "indentWidth": "${SECRET}" }, "plugins": [] }\n` },
  { config: '.editorconfig', file: 'a.sh', source: 'echo  1\n', secretText: `root = true\n[*]\nindent_size = ${SECRET}\n` },
];

test('review case and variants: a hard-linked config file is refused by its own name; its secret is in no receipt field', BOUND, async () => {
  for (const { config, file, source, secretText } of CONFIGS) {
    const outside = mkdtempSync(join(tmpdir(), 'fb-secret-'));
    dirs.push(outside);
    writeFileSync(join(outside, '.npmrc'), secretText);
    const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', [file]: source });
    dirs.push(root);
    linkSync(join(outside, '.npmrc'), join(root, config));
    const run = await apply(root, { path: file, input: { content: source } });
    const everything = run.stdout + run.stderr;
    assert.ok(!everything.includes('S3CRET'), `${config}: the secret leaked: ${everything}`);
    const receipt = JSON.parse(run.stdout) as { status: string; line: string; reason?: string; ignored?: Array<{ file: string; reason: string }> };
    const said = JSON.stringify(receipt.ignored ?? []) + (receipt.reason ?? '') + receipt.line;
    // The receipt names the file by its own name, with the reason; so does doctor.
    assert.match(said, new RegExp(`${config.replace('.', '\\.')}(: |","item":"[^"]*","reason":")not read: it has 2 hard links`), `${config}: named, with the reason: ${run.stdout}`);
    // clang-format's policy for an unread .clang-format is LLVM style, said in `ignored`; the others refuse.
    if (config !== '.clang-format') assert.notEqual(receipt.status, 'formatted', `${config}: not formatted with the defaults instead`);
    const doctor = await runBounded(process.execPath, [built.cli, 'doctor'], { env: iso.env, cwd: root });
    assert.ok(!(doctor.stdout + doctor.stderr).includes('S3CRET'), `${config}: doctor leaked the secret`);
    assert.match(doctor.stdout, new RegExp(`${config.replace('.', '\\.')}.*2 hard links`), `${config}: doctor says why, by the file's own name: ${doctor.stdout}`);
  }
});

test('a config value quoted in a message is a short excerpt (Prettier, Biome, Ruff, clang-format)', BOUND, async () => {
  for (const { config, file, source, secretText } of CONFIGS.slice(1, 5)) {
    const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', [config]: secretText, [file]: source });
    dirs.push(root);
    const run = await apply(root, { path: file, input: { content: source } });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok(!(run.stdout + run.stderr).includes(SECRET.slice(0, 16)), `${config}: more than a short excerpt of the value: ${run.stdout}`);
    const receipt = JSON.parse(run.stdout) as { status: string; reason?: string };
    assert.ok(receipt.status === 'failed' || receipt.status === 'refused', `${config}: the bad value is not formatted with: ${run.stdout}`);
    assert.match(receipt.reason ?? '', new RegExp(config.replace('.', '\\.')), `${config}: the reason names the file`);
  }
});

/** A source whose parse error quotes an ESC and a right-to-left override. */
const HOSTILE_SOURCES: Array<[string, string, Record<string, string>]> = [
  ['a.ts', 'const a = \u001b[2J\u202egnp.exe;\n', { 'biome.json': '{}\n' }],
  ['a.js', 'let x = "\u202e" + \u001b]0;pwned\u0007;\n', { '.prettierrc': '{}\n' }],
  ['a.json', '{"a": \u001b[31m}\n', { 'biome.json': '{}\n' }],
  ['a.py', 'x = \u001b[31m\u202e\n', { 'ruff.toml': '\n' }],
  ['a.css', 'a { color: \u001b[5m \u202e }\n}\n', { '.prettierrc': '{}\n' }],
];

test('review case and variants: parse errors quoting ESC and U+202E are escaped in line, reason, format --check and MCP text', BOUND, async () => {
  let escapedSomewhere = 0;
  for (const [file, source, configs] of HOSTILE_SOURCES) {
    const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', ...configs, [file]: source });
    dirs.push(root);
    const run = await apply(root, { path: file, input: { content: source } });
    const receipt = JSON.parse(run.stdout) as { status: string; line: string; reason?: string; note?: string };
    assert.equal(receipt.status, 'failed', `${file}: ${run.stdout}`);
    if (/\\u001b|\\u202e|\\u0007/.test(receipt.reason ?? '')) escapedSomewhere++;
    for (const [field, text] of [['line', receipt.line], ['reason', receipt.reason ?? ''], ['note', receipt.note ?? '']] as const) {
      assert.doesNotMatch(text, RAW_CONTROL, `${file}: raw control in ${field}: ${JSON.stringify(text)}`);
    }
    const check = await runBounded(process.execPath, [built.cli, 'format', '--check', file], { env: iso.env, cwd: root });
    assert.notEqual(check.code, 0);
    assert.doesNotMatch(check.stdout + check.stderr, RAW_CONTROL, `${file}: format --check printed a raw control: ${JSON.stringify(check.stdout + check.stderr)}`);
  }
  // Not vacuous: some formatters do quote the characters (Biome shows U+FFFD instead), and they are escaped.
  assert.ok(escapedSomewhere >= 2, `formatters quoted the characters, shown as escapes (${escapedSomewhere})`);
  // MCP: the text a model reads.
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{}\n', '.prettierrc': '{}\n', 'ruff.toml': '\n' });
  dirs.push(root);
  const client = new Client({ name: 'messages-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [built.cli, 'mcp'], env: iso.env as Record<string, string>, cwd: root, stderr: 'pipe' }));
  try {
    for (const [file, source] of HOSTILE_SOURCES) {
      const result = (await client.callTool({ name: 'write', arguments: { path: file, content: source } })) as CallToolResult;
      const text = (result.content[0] as { text: string }).text;
      assert.doesNotMatch(text, RAW_CONTROL, `MCP ${file}: ${JSON.stringify(text)}`);
    }
  } finally {
    await client.close();
  }
});

test('the hook\'s context escapes what it shows', BOUND, async () => {
  // Prettier quotes the offending characters in its message (Biome shows U+FFFD instead).
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', '.prettierrc': '{}\n' });
  dirs.push(root);
  mkdirSync(join(root, 'src'));
  const source = 'let x = "\u202e" + \u001b]0;pwned\u0007;\n';
  writeFileSync(join(root, 'src', 'a.js'), source);
  const event = JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, 'src', 'a.js'), content: source }, tool_response: { type: 'create' } });
  const run = await runBounded(process.execPath, [built.cli, 'hook', 'claude-code'], { env: iso.env, cwd: root, input: event });
  assert.equal(run.code, 0);
  const context = (JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
  assert.doesNotMatch(context, RAW_CONTROL, JSON.stringify(context));
  assert.match(context, /\\u001b|\\u202e|\\u0007/, `the characters are shown as escapes: ${JSON.stringify(context)}`);
  assert.equal(readFileSync(join(root, 'src', 'a.js'), 'utf8'), source, 'the file is left as written');
});
