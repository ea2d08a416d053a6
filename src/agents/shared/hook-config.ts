/**
 * Hook entries that `formatbox init` adds to an agent's JSON settings, shared by the agents whose
 * hooks are a list per event (Copilot's camelCase file, and the Claude-style groups of Gemini CLI
 * and Qwen Code). An entry is ours when its command runs `hook <agent>`, whatever the binary is
 * called, so a second run adds nothing and a user's own entries are never touched.
 */
import type { JsonDocument } from './config-files.js';
import type { InitOptions } from './init-types.js';

/** The command the agent runs: `formatbox hook <agent>` (or the `--bin` given to init). */
export function hookCommandLine(options: Pick<InitOptions, 'binArgv'>, agent: string): string {
  return [...options.binArgv, 'hook', agent].join(' ');
}

/** Whether `command` runs formatbox's hook for `agent`. */
export function runsHook(command: unknown, agent: string): boolean {
  return typeof command === 'string' && new RegExp(`\\bhook ${agent}\\b`).test(command);
}

/** Adds a Claude-style group `{matcher, hooks: [{type: 'command', command}]}` under `hooks.<event>` unless one runs our hook. */
export function ensureHookGroup(doc: JsonDocument, event: string, matcher: string, command: string, agent: string): void {
  doc.ensureInArray(['hooks', event], { matcher, hooks: [{ type: 'command', command }] }, (group) =>
    Array.isArray((group as { hooks?: unknown[] })?.hooks) && (group as { hooks: Array<{ command?: unknown }> }).hooks.some((hook) => runsHook(hook?.command, agent)));
}

/** The events under `hooks` whose Claude-style groups run our hook. */
export function eventsWithHookGroup(value: Record<string, unknown> | undefined, agent: string): string[] {
  const hooks = value?.hooks;
  if (!hooks || typeof hooks !== 'object') return [];
  return Object.entries(hooks as Record<string, unknown>)
    .filter(([, groups]) => Array.isArray(groups) && groups.some((group) => Array.isArray((group as { hooks?: unknown })?.hooks) && ((group as { hooks: Array<{ command?: unknown }> }).hooks).some((hook) => runsHook(hook?.command, agent))))
    .map(([event]) => event);
}
