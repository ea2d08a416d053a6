/**
 * The one list of agents formatbox works with. An agent is a folder, `src/agents/<name>/`, whose
 * index.ts declares an `AgentModule` (module.ts), and one line here: its import and its place in
 * the list (the order `formatbox doctor` shows them in). `formatbox hook <name>`, `formatbox init
 * <name>` and doctor's agent rows all look the agent up here; nothing else lists agents.
 */
import { claudeCode } from './claude-code/index.js';
import { cline } from './cline/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { cursor } from './cursor/index.js';
import { gemini } from './gemini/index.js';
import type { AgentModule, HookTranslation } from './module.js';
import { opencode } from './opencode/index.js';
import { qwen } from './qwen/index.js';
import type { InitOptions } from './shared/init-types.js';

export const AGENTS: readonly AgentModule[] = [claudeCode, codex, opencode, cursor, copilot, gemini, cline, qwen];

export function agentNamed(name: string | undefined): AgentModule | undefined {
  return AGENTS.find((agent) => agent.name === name);
}

/** The hook translation of the agent named `name`, or undefined when it has none (or is unknown). */
export function hookOf(name: string | undefined): HookTranslation | undefined {
  return agentNamed(name)?.hook;
}

/** The names `formatbox hook` takes, for its usage line. */
export function hookAgentNames(): string[] {
  return AGENTS.filter((agent) => agent.hook).map((agent) => agent.name);
}

/** Per agent, where it is set up to use formatbox (empty: not set up). */
export function detectAgents(options: Omit<InitOptions, 'scope'>): Array<{ agent: string; setup: string[] }> {
  return AGENTS.map((agent) => ({ agent: agent.name, setup: agent.detect(options) }));
}
