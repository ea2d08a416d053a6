/** How the engine shapes the outcomes it gives without formatting, and the words of its receipt lines. */
import type { FormatOutcome, FormatterChoice, FormatterInfo, IgnoredItem } from '../core/types.js';
import { shownPath, shownText } from '../core/shown.js';
import { NOT_READ_REASON } from '../config/config-error.js';
import type { ProjectConfig } from '../config/index.js';

/** A project whose config is over budget is not formatted: part of its config would give other bytes than its formatter writes. */
export function overBudget(path: string, content: string, project: ProjectConfig): Omit<FormatOutcome, 'ms' | 'path'> {
  const reason = `the project config is ${project.overBudget}; formatbox does not format with part of a project's config`;
  const ignored = project.ignored.slice(-1);
  return { status: 'refused', content, reason, line: `not formatted (project config over budget): ${path}`, ignored };
}

/**
 * No formatter was found in the config that was read, but some was not (a search stopped at its
 * budget, a config file refused): the formatter may be declared there, so the receipt says that.
 */
export function notFullyRead(path: string, content: string, unread: IgnoredItem[]): Omit<FormatOutcome, 'ms' | 'path'> {
  const search = unread.find((item) => item.item === 'config search');
  const files = unread.filter((item) => item !== search).slice(0, 3).map((item) => `${shownPath(item.file)}: ${item.reason}`);
  const parts = [...(search ? [`the config search stopped (${search.reason})`] : []), ...(files.length > 0 ? [`config not read: ${files.join('; ')}`] : [])];
  const reason = `project config not fully read: ${parts.join('; ')}`;
  return { status: 'skipped', content, reason, line: `not formatted (${reason}): ${shownPath(path)}`, ignored: unread.slice(0, 20) };
}

export function skipped(path: string, reason: string, content: string, detail?: string): Omit<FormatOutcome, 'ms' | 'path'> {
  const why = detail ? `${reason}: ${detail}` : reason;
  return { status: 'skipped', content, reason, line: `not formatted (${why}): ${shownPath(path)}` };
}

export function label(info: FormatterInfo): string {
  return `${info.name} ${info.version}, ${info.via}${info.pinned ? `; the project pins ${info.pinned}${info.pinnedNote ? `: ${info.pinnedNote}` : ''}` : ''}`;
}

export function shownOutcome<T extends { line: string; reason?: string; ignored?: IgnoredItem[] }>(outcome: T, unread: IgnoredItem[]): T {
  const exact = (text: string): string => exactNotRead(text, unread);
  const ignored = outcome.ignored?.map((item) => {
    const found = item.reason.startsWith(NOT_READ_REASON) ? unread.find((u) => u.file === item.file) : undefined;
    return found ? { ...item, reason: `${notRead(found.reason)}${item.reason.slice(NOT_READ_REASON.length)}` } : item;
  });
  return {
    ...outcome,
    line: shownText(exact(outcome.line)),
    ...(outcome.reason !== undefined ? { reason: shownText(exact(outcome.reason), { multiline: true }) } : {}),
    ...(ignored ? { ignored } : {}),
  };
}

/** `<file>: not read (…; formatbox doctor says which)` with discovery's exact reason for that file, when it has one. */
export function exactNotRead(text: string, unread: IgnoredItem[]): string {
  if (!text.includes(NOT_READ_REASON)) return text;
  let out = text;
  for (const item of unread) out = out.split(`${item.file}: ${NOT_READ_REASON}`).join(`${item.file}: ${notRead(item.reason)}`);
  return out;
}

export function notRead(reason: string): string {
  return reason.startsWith('not read') ? reason : `not read: ${reason}`;
}

export function failedLine(info: FormatterInfo, path: string, message: string, exitCode?: number): string {
  const firstLine = message.split('\n').find((l) => l.trim() !== '') ?? message;
  const exit = exitCode !== undefined ? `, exit ${exitCode}` : '';
  return `formatter failed (${label(info)}${exit}): ${shownPath(path)}: ${firstLine.trim()}`;
}

export function describeChoice(choice: FormatterChoice): string {
  if (typeof choice === 'string') return choice;
  if ('command' in choice) return Array.isArray(choice.command) ? choice.command.join(' ') : choice.command;
  if ('wasi' in choice) return `wasi:${choice.wasi}`;
  return `dprint:${choice.dprint}`;
}
