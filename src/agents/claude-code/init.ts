/**
 * `formatbox init claude-code`: the http hook (no process per edit) with a SessionStart command
 * hook that starts the daemon and registers the session, or with `--command` the command hook
 * alone, each as a PreToolUse hook (the edit formatted before the write, where the permission mode
 * allows the edit anyway) and a PostToolUse hook (after the write, everywhere else); with `--mcp` also the MCP server and the permission rule its tools need (`acceptEdits`
 * does not cover MCP tools). The http hook's secret goes into the settings' `env`, in a file that
 * is not committed: `~/.claude/settings.json` (user) or `.claude/settings.local.json` (project).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { jsonChange, type FileChange, type JsonDocument } from '../shared/config-files.js';
import type { AgentInit } from '../module.js';
import { readJson, type InitOptions } from '../shared/init-types.js';
import { HOOK_SECRET_ENV, HTTP_HOOK_PATH } from './wire.js';

const MATCHER = 'Edit|MultiEdit|Write';

/** A per-user default, so two users of one machine do not ask for the same port. */
function defaultHookPort(uid: number = process.getuid?.() ?? 0): number {
  return 41_000 + (uid % 8_000);
}

function settingsFiles(options: InitOptions): { settings: string; secrets: string; mcp?: string } {
  return options.scope === 'user'
    ? { settings: join(options.home, '.claude', 'settings.json'), secrets: join(options.home, '.claude', 'settings.json') }
    : { settings: join(options.root, '.claude', 'settings.json'), secrets: join(options.root, '.claude', 'settings.local.json'), mcp: join(options.root, '.mcp.json') };
}

const isOurCommand = (hook: unknown, what: string) => typeof (hook as { command?: unknown })?.command === 'string' && (hook as { command: string }).command.includes(what);
const isOurUrl = (hook: unknown) => typeof (hook as { url?: unknown })?.url === 'string' && (hook as { url: string }).url.includes(HTTP_HOOK_PATH);
const groupHas = (group: unknown, test: (hook: unknown) => boolean) => Array.isArray((group as { hooks?: unknown })?.hooks) && ((group as { hooks: unknown[] }).hooks).some(test);

function claudeCodeChanges(options: InitOptions): FileChange[] {
  const files = settingsFiles(options);
  const port = options.port ?? defaultHookPort();
  const ours = (group: unknown) => groupHas(group, (h) => isOurCommand(h, 'hook claude-code') || isOurUrl(h));
  const addHooks = (doc: JsonDocument) => {
    // One formatbox PostToolUse hook only: two would format the same file at once.
    const post = doc.get(['hooks', 'PostToolUse']);
    const groups = Array.isArray(post) ? post : [];
    const other = options.command ? groups.some((g) => groupHas(g, isOurUrl)) : groups.some((g) => groupHas(g, (h) => isOurCommand(h, 'hook claude-code')));
    if (other) {
      doc.kept.push(`a formatbox ${options.command ? 'http' : 'command'} hook is set up already; left as it is (remove it first to switch)`);
      return;
    }
    if (options.command) {
      const hook = { type: 'command', command: `${options.bin} hook claude-code`, timeout: 60 };
      // Before the write where the permission mode allows it (before-write.ts); after it as the fallback.
      doc.ensureInArray(['hooks', 'PreToolUse'], { matcher: MATCHER, hooks: [hook] }, ours);
      doc.ensureInArray(['hooks', 'PostToolUse'], { matcher: MATCHER, hooks: [hook] }, ours);
      return;
    }
    doc.ensureInArray(['hooks', 'SessionStart'], { hooks: [{ type: 'command', command: `${options.bin} hook claude-code --http-port ${port}`, timeout: 20 }] }, (g) => groupHas(g, (h) => isOurCommand(h, 'hook claude-code')));
    const http = {
      type: 'http',
      url: `http://127.0.0.1:${port}${HTTP_HOOK_PATH}`,
      headers: { Authorization: `Bearer $${HOOK_SECRET_ENV}`, 'X-Formatbox-Project-Dir': '$CLAUDE_PROJECT_DIR' },
      allowedEnvVars: [HOOK_SECRET_ENV, 'CLAUDE_PROJECT_DIR'],
      timeout: 60,
    };
    doc.ensureInArray(['hooks', 'PreToolUse'], { matcher: MATCHER, hooks: [http] }, ours);
    doc.ensureInArray(['hooks', 'PostToolUse'], { matcher: MATCHER, hooks: [http] }, ours);
  };
  const addSecret = (doc: JsonDocument) => doc.ensure(['env', HOOK_SECRET_ENV], options.secret(), `env.${HOOK_SECRET_ENV}`);
  const secretHere = !options.command && files.secrets === files.settings;
  const changes = [jsonChange(files.settings, (doc) => {
    addHooks(doc);
    // `acceptEdits` does not cover MCP tools.
    if (options.mcp) doc.ensureInArray(['permissions', 'allow'], 'mcp__formatbox', (rule) => typeof rule === 'string' && rule.startsWith('mcp__formatbox'));
    if (secretHere) addSecret(doc);
  }, secretHere ? 0o600 : undefined)];
  if (!options.command && !secretHere) changes.push(jsonChange(files.secrets, addSecret, 0o600));
  if (options.mcp && files.mcp) {
    changes.push(jsonChange(files.mcp, (doc) => doc.ensure(['mcpServers', 'formatbox'], { command: options.binArgv[0], args: [...options.binArgv.slice(1), 'mcp'] }, 'mcpServers.formatbox')));
  }
  return changes;
}

/** A settings file holding the secret that others can read: said, not silently accepted. */
function secretWarnings(options: InitOptions): string[] {
  const { secrets } = settingsFiles(options);
  const mode = statSync(secrets, { throwIfNoEntry: false })?.mode;
  return mode !== undefined && (mode & 0o077) !== 0 ? [`warning: ${secrets} holds the hook secret and other users can read it (mode ${(mode & 0o777).toString(8)}): chmod 600 ${secrets}`] : [];
}

export const claudeCodeInit: AgentInit = {
  changes: claudeCodeChanges,
  notes: (options) => [
    ...(options.command ? [] : secretWarnings(options)),
    ...(options.mcp && options.scope === 'user' ? ['the MCP server at user scope: claude mcp add --scope user formatbox -- ' + [...options.binArgv, 'mcp'].join(' ')] : []),
  ],
};

/** Where Claude Code is set up to use formatbox (`formatbox doctor`). */
export function detectClaudeCode(options: Omit<InitOptions, 'scope'>): string[] {
  const found: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const files = settingsFiles({ ...options, scope });
    for (const path of new Set([files.settings, files.secrets])) {
      const doc = readJson(path);
      if (!doc) continue;
      const post = (doc.hooks as Record<string, unknown> | undefined)?.PostToolUse;
      const groups = Array.isArray(post) ? post : [];
      if (groups.some((g) => groupHas(g, isOurUrl))) {
        const session = (doc.hooks as Record<string, unknown[]>).SessionStart;
        const starts = Array.isArray(session) && session.some((g) => groupHas(g, (h) => isOurCommand(h, 'hook claude-code')));
        found.push(`${path}: the http hook${starts ? ', started by a SessionStart hook' : ' (no SessionStart hook: nothing starts the daemon)'}`);
      } else if (groups.some((g) => groupHas(g, (h) => isOurCommand(h, 'hook claude-code')))) found.push(`${path}: the command hook`);
      const pre = (doc.hooks as Record<string, unknown> | undefined)?.PreToolUse;
      if (Array.isArray(pre) && pre.some((g) => groupHas(g, (h) => isOurUrl(h) || isOurCommand(h, 'hook claude-code')))) found.push(`${path}: the pre-write hook (in acceptEdits and bypassPermissions modes)`);
      const env = doc.env as Record<string, unknown> | undefined;
      if (env?.[HOOK_SECRET_ENV]) found.push(`${path}: the http hook's secret`);
    }
    if (files.mcp && (readJson(files.mcp)?.mcpServers as Record<string, unknown> | undefined)?.formatbox) found.push(`${files.mcp}: the MCP server`);
  }
  return found;
}
