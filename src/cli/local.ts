/**
 * In-process fallbacks for the thin entry: used with --no-daemon / FORMATBOX_NO_DAEMON, and when no
 * daemon can be reached (an unsafe socket directory, a daemon that does not start). Same answers as
 * the daemon's, paid with a cold start.
 */
import { resolve } from 'node:path';
import { resolveLimits } from '../config/limits.js';
import { hookAgentNames, hookOf } from '../agents/registry.js';
import { FormatboxError } from '../core/errors.js';
import { createRequestHandler, type CliResult, type HandlerOptions } from '../node/service/requests.js';
import { loadUserConfig } from '../node/service/user-config.js';
import { flagOverrides } from '../node/service/user-config-path.js';
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

/** The hook of the agent named `agent`, in this process (undefined: nothing to say). */
export async function hookLocally(agent: string, event: unknown, flags: LocalFlags): Promise<unknown> {
  const hook = hookOf(agent);
  if (!hook) throw new FormatboxError('INVALID_REQUEST', `usage: formatbox hook ${hookAgentNames().join('|')}`);
  const options = handlerOptions(flags);
  const handler = createRequestHandler(options);
  try {
    const projectDir = process.env.CLAUDE_PROJECT_DIR || undefined;
    return await hook(event, { handler, cwd: process.cwd(), ...(projectDir ? { projectDir } : {}), maxDiffChars: resolveLimits(options.config).maxDiffChars });
  } finally {
    await handler.close();
  }
}
