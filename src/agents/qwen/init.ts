/**
 * `formatbox init qwen`: Qwen Code's settings (`~/.qwen/settings.json`, or the project's
 * `.qwen/settings.json`) get a `PostToolUse` hook on `edit` and `write_file` running
 * `formatbox hook qwen`, merged into what is there.
 */
import { join } from 'node:path';
import type { AgentInit } from '../module.js';
import { jsonChange } from '../shared/config-files.js';
import { ensureHookGroup, eventsWithHookGroup, hookCommandLine } from '../shared/hook-config.js';
import { readJson, type InitOptions } from '../shared/init-types.js';

const MATCHER = '^(edit|write_file)$';

function settingsFile(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project'): string {
  return scope === 'user' ? join(options.home, '.qwen', 'settings.json') : join(options.root, '.qwen', 'settings.json');
}

export const qwenInit: AgentInit = {
  changes(options) {
    return [jsonChange(settingsFile(options, options.scope), (doc) => ensureHookGroup(doc, 'PostToolUse', MATCHER, hookCommandLine(options, 'qwen'), 'qwen'))];
  },
  notes: () => ['Qwen Code lets a hook rewrite an edit only by approving it, so formatbox formats after the write there'],
};

export function detectQwen(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const path = settingsFile(options, scope);
    const events = eventsWithHookGroup(readJson(path), 'qwen');
    if (events.length > 0) found.push(`${path}: ${events.join(' and ')}`);
  }
  return found;
}
