// `doctor [PATH]` answers for PATH's project, as `format` decides: in a monorepo package with its own
// biome.json (the git root has none), doctor from the package, or naming it, says Biome formats
// TypeScript there, and `format` agrees. The real built CLI.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanUp, installCopy, isolatedEnv, project, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const env = { ...iso.env, FORMATBOX_NO_DAEMON: '1' };
const mono = project({
  'packages/web/biome.json': '{ "formatter": { "indentStyle": "space", "indentWidth": 4 } }\n',
  'packages/web/src/a.ts': 'function f(){return 1}\n',
  'packages/api/src/b.ts': 'function g(){return 2}\n',
  'package.json': '{ "name": "mono", "private": true }\n',
});
mkdirSync(join(mono, '.git'));
after(() => cleanUp(iso.runtimeDir, built.dir, mono));

interface Report {
  root: string;
  dir: string;
  languages: Array<{ language: string; formatter?: string; because?: string; skipped?: string }>;
}

async function doctor(cwd: string, ...args: string[]): Promise<Report> {
  const run = await runCli(built.cli, ['doctor', '--json', ...args], { env, cwd });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Report;
}

const typescript = (report: Report) => report.languages.find((l) => l.language === 'typescript');

test('doctor in a monorepo package answers with that package\'s biome.json, as format does', async () => {
  const web = join(mono, 'packages/web');
  for (const [cwd, args] of [[web, []], [mono, ['packages/web']], [mono, ['packages/web/src/a.ts']], [join(mono, 'packages/api'), ['../web']]] as Array<[string, string[]]>) {
    const report = await doctor(cwd, ...args);
    assert.equal(report.dir.startsWith('packages/web'), true, `${cwd} ${args}: ${report.dir}`);
    assert.equal(typescript(report)?.formatter, 'biome', `${cwd} ${args}: ${JSON.stringify(typescript(report))}`);
    assert.match(typescript(report)?.because ?? '', /packages\/web\/biome\.json declares Biome/);
  }
  // Where format would not format TypeScript, doctor says so too.
  assert.equal(typescript(await doctor(mono))?.formatter, undefined);
  assert.equal(typescript(await doctor(join(mono, 'packages/api')))?.formatter, undefined);
  // And format does what doctor said.
  const formatted = await runCli(built.cli, ['format', '--write', 'src/a.ts'], { env, cwd: web });
  assert.equal(formatted.code, 0, formatted.stderr);
  assert.equal(readFileSync(join(web, 'src/a.ts'), 'utf8'), 'function f() {\n    return 1;\n}\n');
});

test('doctor PATH outside the project is refused, not answered for another directory', async () => {
  const run = await runCli(built.cli, ['doctor', '--json', '--root', join(mono, 'packages/api'), join(mono, 'packages/web')], { env, cwd: mono });
  assert.notEqual(run.code, 0, run.stdout);
  assert.match(run.stderr, /outside the project root/);
});

test('the MCP doctor tool takes a path too', { timeout: 120_000 }, async () => {
  const client = new Client({ name: 'formatbox-test', version: '1.0.0' }, {});
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [built.cli, 'mcp', '--root', mono], cwd: mono, env: env as Record<string, string>, stderr: 'pipe' }));
  try {
    const inPackage = (await client.callTool({ name: 'doctor', arguments: { path: 'packages/web' } })) as CallToolResult;
    assert.match((inPackage.content[0] as { text: string }).text, /typescript: biome \(packages\/web\/biome\.json declares Biome\)/);
    const atRoot = (await client.callTool({ name: 'doctor', arguments: {} })) as CallToolResult;
    assert.match((atRoot.content[0] as { text: string }).text, /typescript: not formatted/);
  } finally {
    await client.close();
  }
});
