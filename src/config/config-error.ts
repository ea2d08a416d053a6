/**
 * A project config file the project's formatter would reject (or silently skip): formatbox refuses
 * to format with it instead of falling back to defaults. Positions are 1-based.
 */
import { shownConfigMessage, shownPath } from '../core/shown.js';

/**
 * Why a config file that is present was not read, as the config modules say it (they see only that it
 * was not read); the engine puts discovery's exact reason for that file in its place (`exactNotRead`).
 */
export const NOT_READ_REASON = 'not read (too large, not a regular file, hard-linked in untrusted mode, or outside the root; formatbox doctor says which)';

export interface ConfigError {
  /** Project-relative POSIX path of the config file. */
  file: string;
  line?: number;
  column?: number;
  /** The tool's own message where formatbox can run the tool's loader, else the parser's. */
  message: string;
  /**
   * The config is valid but formatbox will not use it for safety (a code config in untrusted mode):
   * the receipt is `refused`, not `failed`.
   */
  refusal?: boolean;
  /**
   * The refusal is because the setup is code (a JS/TS config, a plugin, a module): the project's own
   * formatter could run it inside the OS sandbox, where the host has one and the user allows it.
   */
  projectCode?: boolean;
}

/** Where a setting came from: its config file and the position of its key. */
export interface SettingOrigin {
  file: string;
  line?: number;
  column?: number;
}

/**
 * `file:line:column: message` (the position only where known). The message may quote the config
 * file (a value, a line): it is shown as a short, escaped excerpt (shownConfigMessage).
 */
export function describeConfigError(error: ConfigError): string {
  const at = error.line !== undefined ? `:${error.line}${error.column !== undefined ? `:${error.column}` : ''}` : '';
  return `${shownPath(error.file)}${at}: ${shownConfigMessage(error.message)}`;
}

/** 1-based line and column (UTF-16 units) of an offset. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.max(0, Math.min(offset, text.length));
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * The position of `key` written as a key (`"key":`, `key:`, `key =`) in a JSON, YAML or TOML config
 * text: the last such place, since a later one (an override) is the one that wins. Undefined when absent.
 */
export function locateKey(text: string, key: string): { line: number; column: number } | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(^|[\\s{,])(["']?)${escaped}\\2\\s*[:=]`, 'g');
  let found: number | undefined;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) found = match.index + (match[1]?.length ?? 0);
  return found === undefined ? undefined : positionAt(text, found);
}
