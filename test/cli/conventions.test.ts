// CLI conventions as in prettier, biome and ruff, through the real built CLI: --version, --help per
// command, `format --stdin-filepath` (agreeing byte for byte with `prettier --stdin-filepath` and
// `biome format --stdin-file-path`), `format` without paths prints usage, `--check --json` says
// would-change, a missing file exits 2, EPIPE ends quietly, serve --socket into a missing directory.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cleanUp, daemonPids, installCopy, isolatedEnv, project, REPO, runCli } from './built-cli.js';

const built = await installCopy();
const iso = isolatedEnv();
const roots: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...roots));

const require = createRequire(import.meta.url);
const rxjs = join(require.resolve('rxjs/package.json'), '..', 'src', 'internal');
const run = (args: string[], input = '', cwd = REPO) => runCli(built.cli, args, { env: iso.env, input, cwd });

function tracked(files: Record<string, string>): string {
  const root = project(files);
  roots.push(root);
  return root;
}

test('--version prints the package version; every command has --help', async () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const version = await run([flag]);
    assert.equal(version.code, 0);
    assert.equal(version.stdout, `${pkg.version}\n`);
  }
  for (const command of ['apply', 'serve', 'format', 'hook', 'daemon', 'mcp', 'doctor', 'demo']) {
    const help = await run([command, '--help']);
    assert.equal(help.code, 0, `${command}: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^usage: formatbox ${command}`), command);
  }
  const top = await run(['--help']);
  assert.equal(top.code, 0);
  assert.match(top.stdout, /formatbox daemon status\|stop/);
});

test('format --stdin-filepath agrees with prettier --stdin-filepath and biome format --stdin-file-path', { timeout: 180_000 }, async () => {
  const corpus: Array<[string, string]> = [
    ['src/Observable.ts', readFileSync(join(rxjs, 'Observable.ts'), 'utf8')],
    ['src/Subscriber.ts', readFileSync(join(rxjs, 'Subscriber.ts'), 'utf8').replace(/^ {2}/gm, '\t')],
    ['package.json', JSON.stringify(JSON.parse(readFileSync(require.resolve('rxjs/package.json'), 'utf8')))],
    ['README.md', readFileSync(join(REPO, 'node_modules/proxy-addr/README.md'), 'utf8')],
  ];
  const tools: Array<[string, Record<string, string>, (path: string) => string[]]> = [
    ['prettier', { '.prettierrc': '{ "printWidth": 100, "singleQuote": true }\n' }, (path) => [join(REPO, 'node_modules/.bin/prettier'), '--stdin-filepath', path]],
    ['biome', { 'biome.json': '{ "formatter": { "indentStyle": "space", "lineWidth": 90 } }\n' }, (path) => [join(REPO, 'node_modules/.bin/biome'), 'format', `--stdin-file-path=${path}`]],
  ];
  for (const [tool, config, command] of tools) {
    const root = tracked(config);
    for (const [path, text] of corpus) {
      if (tool === 'biome' && path.endsWith('.md')) continue; // Biome does not format Markdown.
      const [bin, ...args] = command(path);
      const official = spawnSync(bin as string, args, { cwd: root, input: text, encoding: 'utf8' });
      assert.equal(official.status, 0, `${tool} ${path}: ${official.stderr}`);
      const ours = await run(['format', '--stdin-filepath', path], text, root);
      assert.equal(ours.code, 0, `${tool} ${path}: ${ours.stderr}`);
      assert.ok(ours.stdout === official.stdout, `${tool} ${path}: formatbox's output differs from ${tool}'s`);
      assert.notEqual(official.stdout, text, `${tool} ${path}: the case formats something`);
    }
    // A syntax error: exit 2, nothing on stdout, the reason on stderr (as both tools do).
    const broken = await run(['format', '--stdin-filepath', 'src/broken.ts'], 'export const = ;\n', root);
    assert.equal(broken.code, 2, broken.stderr);
    assert.equal(broken.stdout, '');
    assert.match(broken.stderr, /failed/);
  }
});

test('format: no path means the working directory and no mode means --check, alike; --check --json says would-change; a missing file is reported and the rest run', { timeout: 120_000 }, async () => {
  const messy = 'export const a={a:1}\n';
  const root = tracked({ 'biome.json': '{}\n', 'a.ts': messy });
  for (const args of [['format'], ['format', '--check'], ['format', '-c'], ['format', '.'], ['format', 'a.ts']]) {
    const checked = await run(args, '', root);
    assert.equal(checked.code, 1, `${args.join(' ')}: ${checked.stderr}`);
    assert.equal(checked.stdout, 'would reformat: a.ts\n', args.join(' '));
    assert.match(checked.stderr, /^Checked (1 file|2 files): 1 would change, [01] already formatted\. Run with --write to fix\.$/m, args.join(' '));
    assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), messy, `${args.join(' ')}: nothing rewritten`);
  }

  const check = await run(['format', '--check', '--json', 'a.ts'], '', root);
  assert.equal(check.code, 1, check.stderr);
  assert.equal(JSON.parse(check.stdout.split('\n')[0]!).status, 'would-change'); // then the summary line
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), messy);

  // Named files (an editor's or opencode's `format --write $FILE`) go through the daemon.
  const thinCheck = await run(['format', '--check', 'a.ts'], '', root);
  assert.equal(thinCheck.code, 1, thinCheck.stderr);
  assert.equal(thinCheck.stdout, 'would reformat: a.ts\n');
  assert.equal(daemonPids(iso.runtimeDir).length, 1, 'the daemon answered');
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), messy);

  const missing = await run(['format', '--check', 'nope.ts', 'a.ts'], '', root);
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /^error: nope\.ts: no such file or directory$/m);
  assert.equal(missing.stdout, 'would reformat: a.ts\n', 'the rest still ran');

  const write = await run(['format', '--write'], '', root);
  assert.equal(write.code, 0, write.stderr);
  assert.equal(readFileSync(join(root, 'a.ts'), 'utf8'), 'export const a = { a: 1 };\n', '--write without paths formats the current directory');
});

test('EPIPE ends quietly; serve --socket into a missing directory is a clear error', { timeout: 120_000 }, async () => {
  const root = tracked({ 'biome.json': '{}\n' });
  const big = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ i, name: `item ${i}` })));
  writeFileSync(join(root, 'big.json'), big);
  for (const extra of [[], ['--no-daemon']]) {
    const piped = spawnSync('bash', ['-c', `node ${JSON.stringify(built.cli)} format --stdin-filepath big.json ${extra.join(' ')} < big.json | head -c 10`], { cwd: root, env: iso.env, encoding: 'utf8' });
    assert.equal(piped.stdout.length, 10);
    assert.doesNotMatch(piped.stderr, /EPIPE|Error|at /, `quiet ${extra.join(' ')}`);
  }
  const serve = await run(['serve', '--socket', join(root, 'no', 'such', 'dir', 's.sock')]);
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, /cannot listen on .*s\.sock: the directory .*dir does not exist/);
  assert.doesNotMatch(serve.stderr, /\n\s+at /);
});

test('the built format bundle: a YAML config is read (its parser loads on first use), and a tree native Biome answers loads no runtime', async () => {
  const yamlProject = tracked({ '.git/HEAD': 'ref: refs/heads/main\n', '.prettierrc.yaml': 'semi: false\nsingleQuote: true\n', 'a.ts': "const a = 'x'\n", 'b.ts': 'const b = "y";\n' });
  const yaml = await run(['format', '--check', '--json', '--no-cache', yamlProject], '', yamlProject);
  assert.equal(yaml.code, 1, yaml.stderr);
  const statuses = yaml.stdout.trim().split('\n').map((l) => JSON.parse(l) as { path?: string; status?: string }).filter((l) => l.path);
  assert.deepEqual(statuses.map((l) => [l.path, l.status]), [['.prettierrc.yaml', 'unchanged'], ['a.ts', 'unchanged'], ['b.ts', 'would-change']], 'semi: false and singleQuote from the YAML file');
  // The bundle the bin loads for `format` holds no YAML parser and no runtime: both load on demand.
  const bundle = readFileSync(join(built.dir, 'dist', 'cli-format-main.js'), 'utf8');
  assert.ok(!bundle.includes('// node_modules/yaml/'), 'yaml is not bundled');
  assert.ok(!bundle.includes('// src/node/runtime.ts') && !bundle.includes('// src/node/runtime/') && !bundle.includes('// src/engine/engine.ts'), 'the runtime and engine are not bundled');
});
