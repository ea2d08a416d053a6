// Ruff at the version a project pins, read from a `.pre-commit-config.yaml` rev of ruff-pre-commit
// and from `required-version`: formatbox fetches that version's @astral-sh/ruff-wasm-nodejs build into
// its verified store, and its bytes equal that same official build run on its own (npm-installed in
// a separate process: no Ruff CLI is on npm) on more than 200 real Python files (the system's stdlib).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { createPinnedFormatters } from '../../src/node/pinned-formatters.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { writeTree } from '../write-tree.js';

// The system Python's standard library (.ci/run installs python3): /usr/lib/python3.<minor>.
const PYTHON_LIB = existsSync('/usr/lib') ? readdirSync('/usr/lib').filter((name) => /^python3\.\d+$/.test(name)).sort().map((name) => join('/usr/lib', name)).pop() : undefined;
const STDLIB = PYTHON_LIB ? ['', 'json', 'email', 'asyncio', 'concurrent/futures', 'importlib', 'logging'].map((sub) => join(PYTHON_LIB, sub)) : [];
const FILES = STDLIB.filter(existsSync).flatMap((dir) => readdirSync(dir).sort().filter((name) => name.endsWith('.py')).map((name) => join(dir, name))).filter((file) => statSync(file).size < 48 * 1024).slice(0, 220);

/** The official build of `version`, installed by npm into its own directory and run in a child process. */
function reference(version: string, dir: string, inputs: Record<string, string>): Record<string, string | null> {
  execFileSync('npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', dir, `@astral-sh/ruff-wasm-nodejs@${version}`], { stdio: 'pipe', timeout: 300_000 });
  writeFileSync(join(dir, 'inputs.json'), JSON.stringify(inputs));
  const script = `const { Workspace, PositionEncoding } = require(${JSON.stringify(join(dir, 'node_modules/@astral-sh/ruff-wasm-nodejs'))});
const inputs = require(${JSON.stringify(join(dir, 'inputs.json'))});
const workspace = new Workspace({}, PositionEncoding.Utf16);
const out = {};
for (const [path, text] of Object.entries(inputs)) { try { out[path] = workspace.format(text); } catch { out[path] = null; } }
process.stdout.write(JSON.stringify({ version: Workspace.version(), out }));`;
  const result = JSON.parse(execFileSync(process.execPath, ['-e', script], { maxBuffer: 256 * 1024 * 1024 }).toString()) as { version: string; out: Record<string, string | null> };
  assert.equal(result.version, version);
  return result.out;
}

const CASES = [
  { version: '0.17.3', via: '.pre-commit-config.yaml ruff-pre-commit rev', files: { 'ruff.toml': '', '.pre-commit-config.yaml': 'repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.17.3\n    hooks:\n      - id: ruff-format\n' } },
  { version: '0.16.10', via: 'ruff.toml required-version', files: { 'ruff.toml': 'required-version = "==0.16.10"\n' } },
];

for (const { version, via, files } of CASES) {
  test(`Ruff pinned by ${via} (${version}): formatbox's bytes equal that build's on ${FILES.length} real Python files`, async (t) => {
    if (FILES.length < 200) {
      if (process.env.CI) assert.fail(`only ${FILES.length} stdlib files`);
      t.skip('no Python stdlib here');
      return;
    }
    const base = mkdtempSync(join(tmpdir(), `fb-pin-ruff-${version}-`));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    const layout: Record<string, string> = { '.git/': '', ...(files as Record<string, string>) };
    const inputs: Record<string, string> = {};
    FILES.forEach((file, index) => {
      const path = `pkg/m${String(index).padStart(3, '0')}.py`;
      layout[path] = inputs[path] = readFileSync(file, 'utf8');
    });
    let expected: Record<string, string | null>;
    try {
      expected = reference(version, join(base, 'reference'), inputs);
    } catch (error) {
      if (process.env.CI) throw error;
      t.skip(`Ruff ${version} could not be installed from the registry here: ${(error as Error).message.split('\n')[0]}`);
      return;
    }
    const root = join(base, 'project');
    writeTree(root, layout);
    const pinned = createPinnedFormatters({ store: createFormatterStore({ dir: join(base, 'store') }), timeoutMs: 20_000, waitMs: 180_000 });
    const runtime = createRuntime({ root, pinned });
    let compared = 0;
    try {
      for (const path of Object.keys(inputs)) {
        const receipt = await runtime.format({ path });
        assert.equal(receipt.formatter?.version, version, `${path}: ${receipt.line}`);
        if (expected[path] === null) {
          assert.equal(receipt.status, 'failed', path);
          continue;
        }
        assert.notEqual(receipt.status, 'failed', `${path}: ${receipt.line}`);
        assert.equal(readFileSync(join(root, path), 'utf8'), expected[path], `${path} differs from Ruff ${version}`);
        compared++;
      }
      const row = (await runtime.doctor()).versions.find((v) => v.formatter === 'ruff');
      assert.deepEqual({ pinned: row?.pinned, pinnedIn: row?.pinnedIn, willRun: row?.willRun, matches: row?.matches }, { pinned: version, pinnedIn: via, willRun: version, matches: true });
    } finally {
      await Promise.all([runtime.close(), pinned.close()]);
    }
    assert.ok(compared >= 200, `${compared} files compared`);
    t.diagnostic(`${compared} files equal to @astral-sh/ruff-wasm-nodejs ${version}`);
  });
}
