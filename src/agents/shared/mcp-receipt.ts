/**
 * The receipt as `formatbox mcp` returns it in `structuredContent`, defined once from `Receipt`:
 * the same fields without `note` (the text part is the note), with `content` only when the call asks
 * for it, `input` and `diff` only when they fit the budget, and `hint` when they do not. The output
 * schema below has one entry per field of that type, checked by the compiler both ways: a field
 * added to `Receipt` fails to compile here until the schema says what it is.
 */
import type { Receipt, Status, ToolInput } from '../../core/types.js';

export type McpReceipt = Omit<Receipt, 'note' | 'content' | 'input' | 'diff'> & {
  input?: ToolInput;
  diff?: string;
  /** What to reread, when `input` and `diff` do not fit. */
  hint?: string;
  content?: string;
};

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

const STATUSES = ['formatted', 'unchanged', 'skipped', 'failed', 'timeout', 'refused'] as const satisfies readonly Status[];
// Compile-time: `true` only when the list names every status.
const EVERY_STATUS: Exclude<Status, (typeof STATUSES)[number]> extends never ? true : never = true;

const RECORD = { type: 'object', properties: { sha256: { type: 'string' }, bytes: { type: 'number' } }, required: ['sha256', 'bytes'] } as const;

/** One JSON schema per field of McpReceipt, no more and no fewer. */
const FIELDS: { [K in keyof Required<McpReceipt>]: object } = {
  path: { type: 'string' },
  status: { type: 'string', enum: STATUSES },
  formatter: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, via: { type: 'string' } } },
  reconciled: { type: 'boolean' },
  reason: { type: 'string' },
  line: { type: 'string' },
  input: { type: 'object', description: 'The edit as the formatter left it (omitted for a write, and when it does not fit).' },
  diff: { type: 'string', description: 'The other formatter changes (for a write: from the content sent), when they fit.' },
  hint: { type: 'string', description: 'What to reread, when the changes do not fit.' },
  record: RECORD,
  ignored: { type: 'array' },
  scopeFallback: { type: 'string' },
  languageFrom: { type: 'string', description: 'Why the file is of its language when its name does not say (a shell shebang).' },
  content: { type: 'string', description: 'The file on disk, only with includeContent.' },
  ms: { type: 'number' },
};

const REQUIRED = ['path', 'status', 'reconciled', 'line', 'record', 'ms'] as const satisfies readonly RequiredKeys<McpReceipt>[];
// Compile-time: `true` only when the list names every required field.
const EVERY_REQUIRED: Exclude<RequiredKeys<McpReceipt>, (typeof REQUIRED)[number]> extends never ? true : never = true;

void [EVERY_STATUS, EVERY_REQUIRED];

export const RECEIPT_OUTPUT_SCHEMA = { type: 'object', properties: FIELDS, required: [...REQUIRED] } as const;

/** The structured receipt: every field of the receipt but the file's text and the note; the caller adds input, diff, hint or content. */
export function mcpReceipt(receipt: Receipt): McpReceipt {
  const { note: _note, content: _content, input: _input, diff: _diff, ...kept } = receipt;
  return kept;
}
