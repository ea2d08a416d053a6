/**
 * `formatbox init cline`: cline runs an executable named after each hook event from its hooks
 * directories (`~/.cline/hooks/`, or `$CLINE_DIR/hooks/`; a project's `.clinerules/hooks/`).
 * formatbox writes `PreToolUse` and `PostToolUse` scripts there that run `formatbox hook cline`.
 * A directory holds one script per event, so one the user already has is left as it is and the
 * note says how to chain formatbox into it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInit } from '../module.js';
import { readText, type FileChange } from '../shared/config-files.js';
import { hookCommandLine, runsHook } from '../shared/hook-config.js';
import type { InitOptions } from '../shared/init-types.js';

const EVENTS = ['PreToolUse', 'PostToolUse'] as const;
/** The extensions cline runs a hook file with (none, or a script's). */
const HOOK_FILE = /^(pretooluse|posttooluse)(\.(sh|bash|zsh|js|mjs|cjs|ts|mts|cts|py|ps1))?$/i;

function hooksDir(options: Pick<InitOptions, 'home' | 'root'>, scope: 'user' | 'project', env: NodeJS.ProcessEnv = process.env): string {
  return scope === 'user' ? join(env.CLINE_DIR || join(options.home, '.cline'), 'hooks') : join(options.root, '.clinerules', 'hooks');
}

/** The hook files for `event` in `dir` (any extension cline runs). */
function eventFiles(dir: string, event: string): string[] {
  try {
    return readdirSync(dir).filter((name) => HOOK_FILE.test(name) && name.toLowerCase().startsWith(event.toLowerCase())).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** The hook itself always exits 0; `|| true` keeps a formatbox missing from PATH from failing the edit. */
const script = (options: InitOptions) => `#!/bin/sh\n# formatbox formats cline's editor writes (formatbox init cline)\n${hookCommandLine(options, 'cline')} || true\n`;

export const clineInit: AgentInit = {
  changes(options) {
    const dir = hooksDir(options, options.scope);
    const changes: FileChange[] = [];
    for (const event of EVENTS) {
      const existing = eventFiles(dir, event);
      const ours = existing.find((path) => runsHook(readText(path), 'cline'));
      if (ours) {
        const text = readText(ours)!;
        changes.push({ path: ours, before: text, after: text, kept: [] });
      } else if (existing.length > 0) {
        changes.push({ path: existing[0]!, before: readText(existing[0]!), after: readText(existing[0]!) ?? '', kept: [`cline runs this ${event} hook already; left as it is (add the line "${hookCommandLine(options, 'cline')}" to it, passing its stdin and printing its output)`] });
      } else {
        changes.push({ path: join(dir, event), before: undefined, after: script(options), kept: [], mode: 0o755 });
      }
    }
    return changes;
  },
  notes: () => [],
};

export function detectCline(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const dir = hooksDir(options, scope);
    const events = EVENTS.filter((event) => eventFiles(dir, event).some((path) => runsHook(readText(path), 'cline')));
    if (events.length > 0) found.push(`${dir}: ${events.join(' and ')}`);
  }
  return found;
}
