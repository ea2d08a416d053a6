// The opencode plugin reads what a repository or a model controls: the file a tool call will touch
// (P) and what the tool wrote (W). A repository may commit `zero.ts -> /dev/zero`, a FIFO, a link
// to a file outside it; none of them may hang opencode, grow its memory, or put an outside file's
// text into what the model is sent. The built plugin, driven as opencode calls it, in a child
// process under a time and a memory bound.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded, type Bounds } from './bounded.js';

const built = await installCopy();
const iso = isolatedEnv({ FORMATBOX_NO_DAEMON: '1' });
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const DRIVER = fileURLToPath(new URL('./opencode-driver.mjs', import.meta.url));
const BOUNDS: Bounds = { timeoutMs: 30_000, maxRssMiB: 400 };
const OUTSIDE_SECRET = 'OUTSIDE-SECRET-TEXT-0451';

function repo(): string {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'biome.json': '{ "formatter": { "indentStyle": "space" } }\n', 'ok.ts': 'export const a = 1;\n' });
  dirs.push(root);
  return root;
}

async function toolCall(root: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'fb-oc-home-'));
  dirs.push(home);
  const run = await runBounded(process.execPath, [DRIVER, join(built.dir, 'dist', 'opencode-plugin.js'), root, tool, JSON.stringify(args)], { env: { ...iso.env, HOME: home }, cwd: root, bounds: BOUNDS });
  assert.equal(run.code, 0, run.stderr);
  return (JSON.parse(run.stdout) as { output: string }).output;
}

/** A link out of the project is not the plugin's to format (its target is outside): the tool's output alone, or a line saying it was not formatted. */
const LEFT_ALONE = (tool: string, name: string) => new RegExp(`^${tool} done$|^${tool} done\\n\\nformatbox: .*${name.replace('.', '\\.')}.*(not formatted|refused)`, 's');

test('case 4: a write to zero.ts -> /dev/zero neither hangs nor grows: the device is never read', async () => {
  const root = repo();
  symlinkSync('/dev/zero', join(root, 'zero.ts'));
  const output = await toolCall(root, 'write', { filePath: 'zero.ts', content: 'export const  z = 0\n' });
  assert.match(output, LEFT_ALONE('write', 'zero.ts'));
});

test('case 4: an edit of a FIFO does not block', async () => {
  const root = repo();
  execFileSync('mkfifo', [join(root, 'pipe.ts')]);
  const output = await toolCall(root, 'edit', { filePath: 'pipe.ts', oldString: 'a', newString: 'b' });
  assert.match(output, /^edit done\n\nformatbox: .*pipe\.ts.*(not formatted|refused)/s);
});

test('variants: /dev/urandom; a device through a link in a subdirectory; apply_patch over a FIFO; a link to a file outside the project; a 64 MB file', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'fb-oc-outside-'));
  dirs.push(outside);
  writeFileSync(join(outside, 'secret.ts'), `export const secret  =  "${OUTSIDE_SECRET}"\n`);
  const cases: Array<{ setup: (root: string) => void; tool: string; args: Record<string, unknown>; expect: RegExp }> = [
    { setup: (root) => symlinkSync('/dev/urandom', join(root, 'rand.ts')), tool: 'edit', args: { filePath: 'rand.ts', oldString: 'a', newString: 'b' }, expect: LEFT_ALONE('edit', 'rand.ts') },
    { setup: (root) => (execFileSync('mkdir', ['-p', join(root, 'src')]), symlinkSync('/dev/zero', join(root, 'src', 'z.ts'))), tool: 'write', args: { filePath: 'src/z.ts', content: 'x' }, expect: LEFT_ALONE('write', 'z.ts') },
    { setup: (root) => execFileSync('mkfifo', [join(root, 'p.ts')]), tool: 'apply_patch', args: { patchText: '*** Begin Patch\n*** Update File: p.ts\n@@\n-a\n+b\n*** End Patch\n' }, expect: /p\.ts.*(not formatted|refused)/s },
    { setup: (root) => symlinkSync(join(outside, 'secret.ts'), join(root, 'linked.ts')), tool: 'write', args: { filePath: 'linked.ts', content: 'x' }, expect: LEFT_ALONE('write', 'linked.ts') },
    {
      setup: (root) => {
        const fd = openSync(join(root, 'big.ts'), 'w');
        writeSync(fd, 'export const  big = 1\n');
        ftruncateSync(fd, 64 * 1024 * 1024);
        closeSync(fd);
      },
      tool: 'edit', args: { filePath: 'big.ts', oldString: 'big', newString: 'large' }, expect: /big\.ts was not formatted: too large/,
    },
  ];
  for (const { setup, tool, args, expect } of cases) {
    const root = repo();
    setup(root);
    const output = await toolCall(root, tool, args);
    assert.match(output, expect, `${tool} ${JSON.stringify(args)}: ${output}`);
    assert.equal(output.includes(OUTSIDE_SECRET), false, 'an outside file\'s text reached the model');
  }
});
