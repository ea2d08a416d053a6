import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/node/index.js';
import { applyInput } from '../../src/tools/index.js';

const EDITS = Number(process.env.FORMATBOX_KILL_EDITS ?? 200);
const BIOME = '{ "formatter": { "indentStyle": "space" } }\n';

interface Intent {
  i: number;
  path: string;
  prior?: string;
  input?: { oldText: string; newText: string };
  done?: boolean;
  content?: string;
}

test(`kill test: ${EDITS} edits in a child killed with SIGKILL at random moments; files are always P, W or F`, async () => {
  const base = mkdtempSync(join(tmpdir(), 'fb-kill-'));
  const root = join(base, 'project');
  mkdirSync(root);
  writeFileSync(join(root, 'biome.json'), BIOME);
  for (const name of ['a.ts', 'b.ts', 'c.ts']) writeFileSync(join(root, name), 'export const v0 = 0;\n');
  const scratch = join(base, 'scratch');
  mkdirSync(scratch);
  writeFileSync(join(scratch, 'biome.json'), BIOME);
  const formatter = createRuntime({ root: scratch });
  const formatW = async (text: string) => {
    writeFileSync(join(scratch, 'w.ts'), text);
    return (await formatter.format({ path: 'w.ts' })).content;
  };

  let completed = 0;
  let rounds = 0;
  let killedMidEdit = 0;
  let tempFilesAfterKills = 0;
  const seen = { P: 0, W: 0, F: 0 };
  const expected = new Map<string, string>(['a.ts', 'b.ts', 'c.ts'].map((f) => [f, 'export const v0 = 0;\n']));
  try {
    while (completed < EDITS) {
      rounds++;
      const logPath = join(base, `log-${rounds}.jsonl`);
      const child = spawn(process.execPath, ['--import', 'tsx', new URL('./kill-child.ts', import.meta.url).pathname, root, logPath, String(completed + 1), String(EDITS - completed)], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Kill once edits are flowing (the child is warm), at a random moment after that.
      const started = Date.now();
      while (!(existsSync(logPath) && readFileSync(logPath, 'utf8').includes('"ready"')) && Date.now() - started < 120_000 && child.exitCode === null) await sleep(20);
      await sleep(Math.random() * 400);
      child.kill('SIGKILL');
      const code = await exited;
      assert.ok(code === null || code === 0, `child failed: ${stderr}`);
      if (process.env.FORMATBOX_KILL_DEBUG) console.log(`round ${rounds}: completed ${completed}`);

      const entries: Intent[] = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').filter((l) => l.trim() !== '').flatMap((l) => { try { return [JSON.parse(l) as Intent]; } catch { return []; } }) : [];
      let inFlight: Intent | undefined;
      for (const entry of entries) {
        if (entry.path === undefined) continue;
        if (entry.done) {
          completed = Math.max(completed, entry.i);
          expected.set(entry.path, entry.content!);
          inFlight = undefined;
        } else {
          assert.equal(entry.prior, expected.get(entry.path), `edit ${entry.i} started from the last final state`);
          inFlight = entry;
        }
      }
      tempFilesAfterKills += readdirSync(root).filter((n) => n.includes('.formatbox-')).length;
      for (const [path, content] of expected) {
        const disk = readFileSync(join(root, path), 'utf8');
        if (inFlight && inFlight.path === path) {
          const W = applyInput(inFlight.prior!, inFlight.input!);
          const F = await formatW(W);
          const which = disk === inFlight.prior ? 'P' : disk === W ? 'W' : disk === F ? 'F' : undefined;
          assert.ok(which, `edit ${inFlight.i} on ${path}: the file is neither P, W nor F:\n${disk}`);
          seen[which]++;
          killedMidEdit++;
          // The next round starts from what is on disk.
          expected.set(path, disk);
          if (which !== 'P') completed = Math.max(completed, inFlight.i);
        } else {
          assert.equal(disk, content, `${path} is the last final state`);
        }
      }
    }
    // The next start removes temp files left by killed writers.
    const restarted = createRuntime({ root });
    await restarted.doctor();
    await restarted.close();
    const leftovers = readdirSync(root).filter((n) => n.includes('.formatbox-'));
    console.log(`  ${completed} edits over ${rounds} child processes; killed mid-edit ${killedMidEdit} times: file was P ${seen.P}, W ${seen.W}, F ${seen.F}; temp files left by kills: ${tempFilesAfterKills}, after restart: ${leftovers.length}`);
    assert.deepEqual(leftovers, []);
    assert.ok(killedMidEdit >= Math.min(5, rounds - 1), `kills landed mid-edit (${killedMidEdit} of ${rounds} rounds)`);
  } finally {
    await formatter.close();
    rmSync(base, { recursive: true, force: true });
  }
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
