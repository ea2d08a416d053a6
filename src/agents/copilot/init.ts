/**
 * `formatbox init copilot`: a hook file for GitHub Copilot CLI, `formatbox.json` in the user's
 * hooks directory (`~/.copilot/hooks/`, or `$COPILOT_HOME/hooks/`) or the project's `.github/hooks/`,
 * running `formatbox hook copilot` on `preToolUse` and `postToolUse` of the `edit` and `create`
 * tools. An existing file is merged: entries the user wrote stay as they are.
 */
import { join } from 'node:path';
import type { AgentInit } from '../module.js';
import { jsonChange } from '../shared/config-files.js';
import { hookCommandLine, runsHook } from '../shared/hook-config.js';
import { readJson, type InitOptions } from '../shared/init-types.js';

const EVENTS = ['preToolUse', 'postToolUse'] as const;
/** Copilot's tools that write a file (a regular expression on the tool's name). */
const MATCHER = '^(edit|create)$';

function hookFile(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project', env: NodeJS.ProcessEnv = process.env): string {
  return scope === 'user' ? join(env.COPILOT_HOME || join(options.home, '.copilot'), 'hooks', 'formatbox.json') : join(options.root, '.github', 'hooks', 'formatbox.json');
}

const isOurs = (entry: unknown) => runsHook((entry as { bash?: unknown })?.bash, 'copilot');

export const copilotInit: AgentInit = {
  changes(options) {
    return [jsonChange(hookFile(options, options.scope), (doc) => {
      doc.ensure(['version'], 1);
      // Copilot denies the tool call when a preToolUse hook errors (a formatbox no longer on PATH
      // would block every edit); the hook itself always exits 0.
      const bash = `${hookCommandLine(options, 'copilot')} || true`;
      for (const event of EVENTS) doc.ensureInArray(['hooks', event], { type: 'command', bash, matcher: MATCHER, timeoutSec: 30 }, isOurs);
    })];
  },
  notes: (options) => options.scope === 'project'
    ? ['Copilot loads a project\'s .github/hooks/ once you trust the folder; in prompt mode (-p) also set GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true or trust it first']
    : [],
};

/** Where Copilot is set up to use formatbox (`formatbox doctor`). */
export function detectCopilot(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const path = hookFile(options, scope);
    const hooks = readJson(path)?.hooks as Record<string, unknown> | undefined;
    const events = EVENTS.filter((event) => Array.isArray(hooks?.[event]) && (hooks![event] as unknown[]).some(isOurs));
    if (events.length > 0) found.push(`${path}: ${events.join(' and ')}${events.length < EVENTS.length ? ` (no ${EVENTS.filter((e) => !events.includes(e)).join(', ')})` : ''}`);
  }
  return found;
}
