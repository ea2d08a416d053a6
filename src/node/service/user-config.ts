/**
 * The CLI's user config: `formatbox.json` (JSONC) in the user's config directory, or the file given
 * with `--config`. It is the user's own (trusted) config, in the `UserConfig` shape; a repository
 * cannot supply it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { FormatboxError } from '../../core/errors.js';
import type { UserConfig } from '../../core/types.js';
import { isRecord, parseData } from '../../config/data.js';
import { defaultUserConfigPath, userConfigNamed, type FlagOverrides } from './user-config-path.js';

export { defaultUserConfigPath } from './user-config-path.js';

/**
 * Reads the user config. A missing default file is no config; a missing `--config` file, bad JSON or
 * a non-object is an INVALID_CONFIG error (exit 2).
 */
export function loadUserConfig(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env, overrides?: FlagOverrides): { config?: UserConfig; file?: string } {
  const file = explicit ?? defaultUserConfigPath(env);
  if (!userConfigNamed(explicit, env) && !existsSync(file)) return overrides ? { config: { ...overrides } } : {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new FormatboxError('INVALID_CONFIG', `cannot read the user config ${file}: ${(error as Error).message}`);
  }
  return { config: { ...parseUserConfig(text, file), ...overrides }, file };
}

/** The user config in `text` (JSONC, read from `file`); INVALID_CONFIG when it is not a JSON object. */
export function parseUserConfig(text: string, file: string): UserConfig {
  const parsed = parseData(text, 'jsonc');
  if (!parsed.ok) throw new FormatboxError('INVALID_CONFIG', `${file}: ${parsed.reason}`);
  if (!isRecord(parsed.value)) throw new FormatboxError('INVALID_CONFIG', `${file}: the user config is a JSON object`);
  return parsed.value as UserConfig;
}
