/**
 * `formatbox init gemini`: Gemini CLI's settings (`~/.gemini/settings.json`, or the project's
 * `.gemini/settings.json`) get a `BeforeTool` and an `AfterTool` hook on `replace` and `write_file`
 * running `formatbox hook gemini`, merged into what is there.
 */
import { join } from 'node:path';
import type { AgentInit } from '../module.js';
import { jsonChange } from '../shared/config-files.js';
import { ensureHookGroup, eventsWithHookGroup, hookCommandLine } from '../shared/hook-config.js';
import { readJson, type InitOptions } from '../shared/init-types.js';

const EVENTS = ['BeforeTool', 'AfterTool'];
const MATCHER = 'replace|write_file';

function settingsFile(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project'): string {
  return scope === 'user' ? join(options.home, '.gemini', 'settings.json') : join(options.root, '.gemini', 'settings.json');
}

export const geminiInit: AgentInit = {
  changes(options) {
    return [jsonChange(settingsFile(options, options.scope), (doc) => {
      for (const event of EVENTS) ensureHookGroup(doc, event, MATCHER, hookCommandLine(options, 'gemini'), 'gemini');
    })];
  },
  notes: (options) => options.scope === 'project' ? ['Gemini CLI runs a project\'s hooks only in a folder you trust'] : [],
};

export function detectGemini(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const path = settingsFile(options, scope);
    const events = eventsWithHookGroup(readJson(path), 'gemini');
    if (events.length > 0) found.push(`${path}: ${events.join(' and ')}`);
  }
  return found;
}
