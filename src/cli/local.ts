/**
 * In-process fallbacks for the thin entry: used with --no-daemon / FORMATBOX_NO_DAEMON, and when no
 * daemon can be reached (an unsafe socket directory, a daemon that does not start). Same answers as
 * the daemon's, paid with a cold start.
 */
import { resolve } from 'node:path';
import { resolveLimits } from '../config/limits.js';
import { claudeCodeHook, type ClaudeCodeHookInput, type HookOutput } from './hook-claude-code.js';
import { createRequestHandler, type CliResult, type HandlerOptions } from './requests.js';
import { loadUserConfig } from './user-config.js';
import { flagOverrides } from './user-config-path.js';
import { useV8Flags } from './v8-flags.js';

interface LocalFlags {
  root?: string;
  config?: string;
  trusted?: boolean;
  mode?: 'project' | 'always';
  timeoutMs?: number;
}

function handlerOptions(flags: LocalFlags): HandlerOptions {
  useV8Flags('one-edit'); // one request per process (v8-flags.ts)
  const { config } = loadUserConfig(flags.config, process.env, flagOverrides(flags));
  return { defaultRoot: resolve(flags.root ?? process.cwd()), findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) };
}

/** One CLI request (apply, formatText), answered in this process. */
export async function requestLocally(request: unknown, flags: LocalFlags): Promise<CliResult> {
  const handler = createRequestHandler(handlerOptions(flags));
  try {
    return await handler.handle(request);
  } finally {
    await handler.close();
  }
}

/** The Claude Code hook, in this process. */
export async function hookLocally(event: unknown, flags: LocalFlags): Promise<HookOutput | undefined> {
  const options = handlerOptions(flags);
  const handler = createRequestHandler(options);
  try {
    return await claudeCodeHook(event as ClaudeCodeHookInput, handler, process.env, { maxDiffChars: resolveLimits(options.config).maxDiffChars });
  } finally {
    await handler.close();
  }
}
