// The Claude Code and Codex hooks read back the file the agent's tool wrote. A repository may commit
// `zero.ts -> /dev/zero` or a FIFO: the hook must neither hang nor read without end. The real CLI
// (`hook claude-code`, `hook codex`, in-process), each call under a time and a memory bound.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded, type Bounds } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const BOUNDS: Bounds = { timeoutMs: 30_000, maxRssMiB: 400 };

function repo(): string {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{}\n', 'ok.ts': 'export const a = 1;\n' });
  dirs.push(root);
  return root;
}

async function hook(agent: string, root: string, event: Record<string, unknown>): Promise<string> {
  const run = await runBounded(process.execPath, [built.cli, 'hook', agent], { env: { ...iso.env, CLAUDE_PROJECT_DIR: root }, cwd: root, input: JSON.stringify({ hook_event_name: 'PostToolUse', cwd: root, ...event }), bounds: BOUNDS });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

test('case 4 (Claude Code): a Write to zero.ts -> /dev/zero and an Edit of a FIFO neither hang nor grow', async () => {
  const root = repo();
  symlinkSync('/dev/zero', join(root, 'zero.ts'));
  execFileSync('mkfifo', [join(root, 'pipe.ts')]);
  for (const [tool, input] of [['Write', { file_path: join(root, 'zero.ts'), content: 'x' }], ['Edit', { file_path: join(root, 'pipe.ts'), old_string: 'a', new_string: 'b' }]] as const) {
    const out = await hook('claude-code', root, { tool_name: tool, tool_input: input });
    assert.ok(out === '' || /not formatted|refused/.test(out), `${tool}: ${out}`);
  }
});

test('variants: /dev/urandom in a subdirectory (Claude Code MultiEdit); Codex apply_patch over /dev/zero, a FIFO and /dev/urandom', async () => {
  const root = repo();
  mkdirSync(join(root, 'src'));
  symlinkSync('/dev/urandom', join(root, 'src', 'rand.ts'));
  symlinkSync('/dev/zero', join(root, 'zero.ts'));
  execFileSync('mkfifo', [join(root, 'pipe.ts')]);
  const multi = await hook('claude-code', root, { tool_name: 'MultiEdit', tool_input: { file_path: join(root, 'src', 'rand.ts'), edits: [{ old_string: 'a', new_string: 'b' }] } });
  assert.ok(multi === '' || /not formatted|refused/.test(multi), multi);
  for (const name of ['zero.ts', 'pipe.ts', 'src/rand.ts']) {
    const out = await hook('codex', root, { tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Update File: ${name}\n@@\n-a\n+b\n*** End Patch\n` } });
    assert.ok(out === '' || /not formatted|refused/.test(out), `${name}: ${out}`);
  }
});
