/**
 * `formatbox/opencode` (also the package's `./server` export, where opencode looks for a plugin
 * package's server plugin): the opencode plugin. In opencode.json:
 *   { "plugin": ["formatbox"], "formatter": false }
 * (`formatter: false` keeps opencode's own formatters, which it downloads and runs itself, off the
 * files formatbox formats.) Options, as `["formatbox", {…}]`: `config` (a formatbox.json
 * path; default the user's), `trusted` (load the project's own formatter config code), `maxDiffChars`,
 * `beforeWrite` (default true: edit and write calls are formatted before opencode writes them; false:
 * after, with the formatted text appended to the tool's result).
 *
 * It formats in-process (opencode runs plugins in its own Bun), one warm runtime per project root.
 * This module's only export is the plugin: opencode treats every export of a plugin module as one.
 */
import { resolveLimits } from '../../config/limits.js';
import { messageOf } from '../../core/errors.js';
import type { UserConfig } from '../../core/types.js';
import { createRequestHandler } from '../../node/service/requests.js';
import { loadUserConfig } from '../../node/service/user-config.js';
import { createOpencodeHooks, type OpencodeHooks } from './hooks.js';

interface PluginInput {
  directory: string;
}

async function server(input: PluginInput, options: Record<string, unknown> = {}): Promise<OpencodeHooks & { dispose: () => Promise<void> }> {
  let config: UserConfig | undefined;
  let limits = resolveLimits(undefined);
  try {
    config = loadUserConfig(typeof options.config === 'string' ? options.config : undefined).config;
    limits = resolveLimits(config);
  } catch (error) {
    config = undefined;
    // A broken formatbox.json must not stop opencode: format with the defaults and say why, once.
    process.stderr.write(`formatbox: ${messageOf(error)}; using the default settings\n`);
  }
  const trusted = options.trusted === true;
  const handler = createRequestHandler({ defaultRoot: input.directory, findRoot: true, ...(config ? { config } : {}), ...(trusted ? { trust: 'trusted' as const } : {}) });
  const maxDiffChars = typeof options.maxDiffChars === 'number' && options.maxDiffChars > 0 ? options.maxDiffChars : limits.maxDiffChars;
  const hooks = createOpencodeHooks({ directory: input.directory, handler, maxDiffChars, maxInputBytes: limits.maxInputBytes, beforeWrite: options.beforeWrite !== false });
  return { ...hooks, dispose: () => handler.close() };
}

export default { id: 'formatbox', server };
