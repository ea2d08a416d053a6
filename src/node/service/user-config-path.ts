/** Where the CLI's user config is (no parsing here, so the thin client can use it without loading parsers). */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$FORMATBOX_CONFIG`, else `$XDG_CONFIG_HOME/formatbox/formatbox.json`, else `~/.config/formatbox/formatbox.json`. */
export function defaultUserConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FORMATBOX_CONFIG) return env.FORMATBOX_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'formatbox', 'formatbox.json');
}

/** Whether a missing file at the config path is an error: it is when the user named it. */
export function userConfigNamed(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return explicit !== undefined || Boolean(env.FORMATBOX_CONFIG);
}

/** What a run's flags set over the user config (`--mode`, `--timeout-ms`). */
export interface FlagOverrides {
  mode?: 'project' | 'always';
  timeoutMs?: number;
}

/** The overrides `flags` carry, or undefined when none. */
export function flagOverrides(flags: { mode?: FlagOverrides['mode']; timeoutMs?: number }): FlagOverrides | undefined {
  const overrides: FlagOverrides = { ...(flags.mode ? { mode: flags.mode } : {}), ...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}) };
  return Object.keys(overrides).length > 0 ? overrides : undefined;
}
