// The agent registry is the one list: every folder under src/agents/ is registered under its own
// name, and every hook translation answers nonsense with silence rather than an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AGENTS, agentNamed, hookAgentNames } from '../../src/agents/registry.js';
import type { RequestHandler } from '../../src/node/service/requests.js';

const AGENTS_DIR = fileURLToPath(new URL('../../src/agents/', import.meta.url));

/** The SDK adapters' folders: library entries users import (build.mjs), not agents formatbox sets up. */
async function sdkAdapterFolders(): Promise<Set<string>> {
  const build = (await import('../../build.mjs')) as { UNIVERSAL_ENTRIES: Record<string, string>; NODE_AGENT_ENTRIES: Record<string, string> };
  const sources = [...Object.values(build.UNIVERSAL_ENTRIES), ...Object.values(build.NODE_AGENT_ENTRIES)];
  return new Set(sources.map((source) => /^src\/agents\/([^/]+)\/index\.ts$/.exec(source)?.[1]).filter((name): name is string => name !== undefined));
}

test('every agent folder is registered once, under its folder name (the SDK adapters are package entries instead)', async () => {
  const sdks = await sdkAdapterFolders();
  assert.ok(sdks.size > 0);
  for (const sdk of sdks) assert.ok(existsSync(`${AGENTS_DIR}${sdk}/index.ts`), `${sdk}/index.ts`);
  const folders = readdirSync(AGENTS_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'shared' && !sdks.has(entry.name)).map((entry) => entry.name).sort();
  assert.deepEqual(AGENTS.map((agent) => agent.name).sort(), folders);
  assert.equal(new Set(AGENTS.map((agent) => agent.name)).size, AGENTS.length);
  for (const folder of folders) assert.ok(existsSync(`${AGENTS_DIR}${folder}/index.ts`), `${folder}/index.ts`);
  assert.equal(agentNamed('no-such-agent'), undefined);
  assert.deepEqual(hookAgentNames(), ['claude-code', 'codex', 'copilot', 'gemini', 'cline', 'qwen']);
});

test('a hook translation is silent for events that are not its edits, and never asks the handler', async () => {
  const handler: RequestHandler = {
    handle: () => Promise.reject(new Error('no event here should be formatted')),
    close: () => Promise.resolve(),
  };
  const context = { handler, cwd: AGENTS_DIR, maxDiffChars: 2000 };
  const events: unknown[] = [null, 'text', [], 42, {}, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }, { hook_event_name: 'Stop' }, { tool_name: 'Edit', tool_input: 'not an object' }, { tool_name: 'apply_patch', tool_input: { command: 7 } }];
  for (const agent of AGENTS) {
    if (!agent.hook) continue;
    for (const event of events) assert.equal(await agent.hook(event, context), undefined, `${agent.name}: ${JSON.stringify(event)}`);
  }
});
