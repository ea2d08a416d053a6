/**
 * The one place limits are resolved: the defaults, then the user config (formatbox's own keys or the
 * agent gateway's `format: {timeoutMs, maxOutputChars}`), then what the host passes explicitly. The
 * engine, the runtime, the request handler's and the daemon's shared worker pools and the hooks all
 * call `resolveLimits`, so a timeout written in either shape reaches every one of them.
 */
import type { Limits, UserConfig } from '../core/types.js';
import { FormatboxError } from '../core/errors.js';

export const DEFAULT_LIMITS: Limits = { timeoutMs: 10_000, maxInputBytes: 2 * 1024 * 1024, maxDiffChars: 2000 };

/** The limits a user config sets, checked (each a positive finite number); the keys it leaves out are absent. */
export function userLimits(config: UserConfig | undefined): Partial<Limits> {
  const gateway = typeof config?.format === 'object' && config.format !== null ? config.format : undefined;
  const out: Partial<Limits> = {};
  setLimit(out, 'timeoutMs', config?.timeoutMs ?? gateway?.timeoutMs);
  setLimit(out, 'maxInputBytes', config?.maxInputBytes);
  setLimit(out, 'maxDiffChars', config?.maxDiffChars ?? gateway?.maxOutputChars);
  return out;
}

/** Defaults, overridden by the user config, overridden by the host's explicit limits (undefined values ignored). */
export function resolveLimits(config: UserConfig | undefined, explicit: Partial<Limits> = {}): Limits {
  const given = Object.fromEntries(Object.entries(explicit).filter(([, value]) => value !== undefined)) as Partial<Limits>;
  return { ...DEFAULT_LIMITS, ...userLimits(config), ...given };
}

function setLimit(out: Partial<Limits>, key: keyof Limits, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new FormatboxError('INVALID_CONFIG', `user config: ${key} must be a positive number`);
  out[key] = value;
}
