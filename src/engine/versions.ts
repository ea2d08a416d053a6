/** Pinned versions in the engine's answers: the build a host would need, and the refusal of a config written for the pinned version. */
import type { FormatOutcome, FormatterInfo } from '../core/types.js';
import { shownPath } from '../core/shown.js';
import { describePin, type VersionPin } from '../config/pins.js';

export function withPin(info: FormatterInfo, pin: VersionPin, note?: string): FormatterInfo {
  return { ...info, pinned: describePin(pin), pinnedIn: pin.source, ...(note ? { pinnedNote: note } : {}) };
}

/** What a config loader says of a key or value it does not know: the config may be for a newer version. */
export const UNKNOWN_TO_THIS_VERSION = /unknown (key|field|variant|value|option)|Found an unknown|not a valid|expected one of/i;

/**
 * The formatter's own loader rejected the config, and the project pins another version than this
 * one: the config is for that version, not invalid. Refused, saying so, so that no one "fixes" it.
 */
export function configForPinned(info: FormatterInfo, pin: VersionPin, path: string, content: string, message: string): Omit<FormatOutcome, 'ms' | 'path'> {
  const said = message.replace(/^invalid project config: /, '').split('\n')[0]!.trim();
  const why = info.pinnedNote ? ` (${info.pinnedNote})` : '';
  const reason = `the config needs ${info.name} ${describePin(pin)}, the version the project pins (${pin.source})${why}; ${info.name} ${info.version}, the version formatbox has here, rejects it: ${said}`;
  return { status: 'refused', formatter: info, content, reason, line: `not formatted (the config needs ${info.name} ${describePin(pin)}, the version the project pins${why}; ${info.name} ${info.version} rejects it: ${said}): ${shownPath(path)}` };
}
