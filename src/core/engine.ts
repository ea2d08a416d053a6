import type {
  AdapterResult,
  ApplyPatchInput,
  FormatOutcome,
  FormatterAdapter,
  FormatterChoice,
  FormatterInfo,
  IgnoredItem,
  Limits,
  ProjectFiles,
  Receipt,
  SingleFileInput,
  UserConfig,
  Utf16Range,
} from './types.js';
import { FormatboxError, messageOf } from './errors.js';
import { loadProjectConfig, normaliseUserConfig, selectFormatter } from '../config/index.js';
import type { NormalisedUserConfig, ProjectConfig, Selection } from '../config/index.js';
import { afterEdit as reconcileAfterEdit } from '../reconcile/index.js';
import type { AfterEditRequest as ReconcileAfterEditRequest, PatchReceipt } from '../reconcile/index.js';
import { normaliseForFormatter, rangeToNormalised, restoreText, utf8ByteLength } from './text.js';

export const DEFAULT_LIMITS: Limits = { timeoutMs: 10_000, maxInputBytes: 2 * 1024 * 1024, maxDiffChars: 2000 };

export interface EngineOptions {
  /** The adapters this host can run (built-ins, already given their wasm). */
  formatters: FormatterAdapter[];
  /** Trusted user config from the embedding program. */
  config?: UserConfig;
  /** Project config files read as data (see `ProjectFiles`). */
  projectFiles?: ProjectFiles;
  /** Default 'untrusted': project config is sanitised and never loads code. */
  trust?: 'untrusted' | 'trusted';
  limits?: Partial<Limits>;
  /**
   * Builds an adapter for a choice that is not a built-in name: `{command}`, `{wasi}`, `{dprint}`,
   * or a built-in this host lacks (e.g. `rustfmt` needs the Node sandbox). Return undefined when unavailable.
   */
  adapterFor?: (choice: FormatterChoice, language: string) => FormatterAdapter | undefined;
}

export interface FormatRequest {
  /** Project-relative POSIX path. */
  path: string;
  /** The file text. Give `bytes` instead to have non-UTF-8 content detected. */
  text?: string;
  bytes?: Uint8Array;
  /** Format only this range of `text` (UTF-16 offsets into `text`, BOM included). */
  range?: Utf16Range;
}

/** `afterEdit`'s request: P, the tool input, and W when the caller already applied it (see src/reconcile). */
export type AfterEditRequest = ReconcileAfterEditRequest;

export interface Engine {
  format(request: FormatRequest): Promise<FormatOutcome>;
  afterEdit(request: AfterEditRequest & { input: SingleFileInput }): Promise<Receipt>;
  afterEdit(request: AfterEditRequest & { input: ApplyPatchInput }): Promise<PatchReceipt>;
  afterEdit(request: AfterEditRequest): Promise<Receipt | PatchReceipt>;
  /** Which formatter a path would use, and why (for `doctor()`). */
  explain(path: string): Selection;
  /**
   * The formatter (name, version, build) and the selection a path would be formatted with, or
   * undefined when it would not be formatted. What a cache of formatted files keys on.
   */
  formatterFor(path: string): Promise<{ info: FormatterInfo; selection: Extract<Selection, { kind: 'format' }> } | undefined>;
  /** Every project config item that was ignored or refused. */
  readonly ignored: IgnoredItem[];
  readonly limits: Limits;
  /** Re-reads project config (e.g. after a config file changed on disk). */
  setProjectFiles(files: ProjectFiles): void;
  dispose(): Promise<void>;
}

/** Creates the universal engine. Pure: no I/O beyond what the given adapters do. */
export function createEngine(options: EngineOptions): Engine {
  const trust = options.trust ?? 'untrusted';
  const user: NormalisedUserConfig = normaliseUserConfig(options.config, { adapterNames: options.formatters.map((adapter) => adapter.name) });
  const limits: Limits = {
    ...DEFAULT_LIMITS,
    ...definedOnly({ timeoutMs: user.timeoutMs, maxInputBytes: user.maxInputBytes, maxDiffChars: user.maxDiffChars }),
    ...definedOnly(options.limits ?? {}),
  };
  let project: ProjectConfig = loadProjectConfig(options.projectFiles ?? {}, { trust });
  const adaptersByName = new Map(options.formatters.map((adapter) => [adapter.name, adapter]));
  const choiceAdapters = new Map<string, FormatterAdapter | undefined>();
  const infoCache = new Map<FormatterAdapter, Promise<FormatterInfo>>();
  /** Last formatted output per path, to notice a formatter that is not idempotent. */
  const lastOutput = new Map<string, string>();

  function adapterForSelection(selection: Extract<Selection, { kind: 'format' }>): FormatterAdapter | undefined {
    const { formatter, language } = selection;
    if (typeof formatter === 'string') {
      return adaptersByName.get(formatter) ?? cachedChoiceAdapter(formatter, language);
    }
    // `{dprint: 'markdown'}` names a dprint plugin; a registered adapter for it (`dprint:markdown`,
    // or `toml` for the TOML plugin) runs it.
    if ('dprint' in formatter) {
      const shipped = adaptersByName.get(`dprint:${formatter.dprint}`) ?? (formatter.dprint === 'toml' ? adaptersByName.get('toml') : undefined);
      if (shipped) return shipped;
    }
    return cachedChoiceAdapter(formatter, language);
  }

  function cachedChoiceAdapter(choice: FormatterChoice, language: string): FormatterAdapter | undefined {
    const key = `${language}\0${JSON.stringify(choice)}`;
    if (!choiceAdapters.has(key)) choiceAdapters.set(key, options.adapterFor?.(choice, language));
    return choiceAdapters.get(key);
  }

  function infoOf(adapter: FormatterAdapter): Promise<FormatterInfo> {
    let info = infoCache.get(adapter);
    if (!info) {
      info = adapter.info().catch(() => ({ name: adapter.name, version: 'unknown', via: adapter.via }));
      infoCache.set(adapter, info);
    }
    return info;
  }

  async function format(request: FormatRequest): Promise<FormatOutcome> {
    const started = now();
    const { path } = request;
    const done = (outcome: Omit<FormatOutcome, 'ms' | 'path'>): FormatOutcome => ({ path, ...outcome, ms: round(now() - started) });

    let text: string;
    if (request.text !== undefined) {
      text = request.text;
    } else if (request.bytes) {
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(request.bytes);
      } catch {
        return done(skipped(path, 'not UTF-8', latin1Fallback(request.bytes)));
      }
    } else {
      throw new FormatboxError('INVALID_REQUEST', 'format needs text or bytes');
    }

    if (!user.enabled) return done(skipped(path, 'disabled', text));
    const selection = selectFormatter(project, user, path);
    if (selection.kind === 'skip') return done(skipped(path, selection.reason, text, selection.detail));
    const ignored = selection.ignored.length > 0 ? selection.ignored : undefined;
    const withIgnored = <T extends object>(outcome: T): T => (ignored ? { ...outcome, ignored } : outcome);

    // A UTF-16 code unit is at most 3 UTF-8 bytes: most files need no exact count.
    const bytes = text.length * 3 <= limits.maxInputBytes ? 0 : utf8ByteLength(text);
    if (bytes > limits.maxInputBytes) {
      return done(withIgnored(skipped(path, 'too large', text, `${bytes} bytes > ${limits.maxInputBytes}`)));
    }
    if (looksBinary(text)) return done(withIgnored(skipped(path, 'binary', text)));

    const adapter = adapterForSelection(selection);
    if (!adapter) {
      const name = typeof selection.formatter === 'string' ? selection.formatter : describeChoice(selection.formatter);
      return done(withIgnored({ status: 'skipped', content: text, reason: `formatter ${name} is not available here`, line: `not formatted (formatter ${name} is not available here): ${path}` }));
    }
    const info = await infoOf(adapter);

    const prepared = normaliseForFormatter(text);
    let range = request.range ? rangeToNormalised(text, request.range) : undefined;
    let scopeFallback: string | undefined;
    if (range && (!adapter.supportsRange || (adapter.rangeLanguages && !adapter.rangeLanguages.includes(selection.language)))) {
      scopeFallback = `${info.name} cannot format a range of ${selection.language}; formatted the whole file`;
      range = undefined;
    }

    const result = await withTimeout(
      () =>
        adapter.format({
          path,
          language: selection.language,
          text: prepared.text,
          settings: selection.settings,
          ...(selection.settingsDir !== undefined ? { settingsDir: selection.settingsDir } : {}),
          ...(range ? { range } : {}),
        }),
      limits.timeoutMs,
    );
    const extra = { ...(scopeFallback ? { scopeFallback } : {}), ...(ignored ? { ignored } : {}) };

    switch (result.kind) {
      case 'ok': {
        const producer = result.formatter ?? info;
        if (result.text.trim() === '' && prepared.text.trim() !== '') {
          return done({ status: 'failed', formatter: producer, content: text, reason: 'formatter returned empty output for a non-empty file', line: failedLine(producer, path, 'returned empty output for a non-empty file'), ...extra });
        }
        const content = restoreText(text, result.text);
        const unstable = lastOutput.get(path) === text && content !== text;
        remember(lastOutput, path, content);
        if (content === text) {
          return done({ status: 'unchanged', formatter: producer, content, line: `already formatted (${label(producer)}): ${path}`, ...extra });
        }
        const line = `formatted (${label(producer)}): ${path}${unstable ? ' (not idempotent: formatting its own output changed it again)' : ''}`;
        return done({ status: 'formatted', formatter: producer, content, line, ...(unstable ? { unstable } : {}), ...extra });
      }
      case 'error':
        return done({ status: 'failed', formatter: info, content: text, reason: result.message, line: failedLine(info, path, result.message, result.exitCode), ...extra });
      case 'timeout':
        return done({ status: 'timeout', formatter: info, content: text, reason: `timed out after ${result.ms} ms`, line: `formatter timed out (${info.name}) after ${result.ms} ms: ${path}`, ...extra });
      case 'refused':
        return done({ status: 'refused', formatter: info, content: text, reason: result.reason, line: `formatter refused (${result.reason}): ${path}`, ...extra });
      case 'unsupported':
        return done({ status: 'skipped', formatter: info, content: text, reason: result.reason, line: `not formatted (${result.reason}): ${path}`, ...extra });
    }
  }

  const engine: Engine = {
    format,
    afterEdit: ((request: AfterEditRequest) =>
      reconcileAfterEdit(
        {
          format: (path: string, text: string, range?: Utf16Range) => format({ path, text, ...(range ? { range } : {}) }),
          limits,
          report: request.report ?? user.report,
          scope: request.scope ?? user.scope,
        },
        request,
      )) as Engine['afterEdit'],
    explain: (path) => (user.enabled ? selectFormatter(project, user, path) : { kind: 'skip', reason: 'disabled' }),
    async formatterFor(path) {
      if (!user.enabled) return undefined;
      const selection = selectFormatter(project, user, path);
      if (selection.kind !== 'format') return undefined;
      const adapter = adapterForSelection(selection);
      return adapter ? { info: await infoOf(adapter), selection } : undefined;
    },
    get ignored() {
      return project.ignored;
    },
    limits,
    setProjectFiles(files) {
      project = loadProjectConfig(files, { trust });
      lastOutput.clear();
    },
    async dispose() {
      const all = new Set<FormatterAdapter>([...adaptersByName.values(), ...[...choiceAdapters.values()].filter((a): a is FormatterAdapter => !!a)]);
      await Promise.all([...all].map((adapter) => adapter.dispose?.()));
    },
  };
  return engine;
}

function skipped(path: string, reason: string, content: string, detail?: string): Omit<FormatOutcome, 'ms' | 'path'> {
  const why = detail ? `${reason}: ${detail}` : reason;
  return { status: 'skipped', content, reason, line: `not formatted (${why}): ${path}` };
}

function label(info: FormatterInfo): string {
  return `${info.name} ${info.version}, ${info.via}`;
}

function failedLine(info: FormatterInfo, path: string, message: string, exitCode?: number): string {
  const firstLine = message.split('\n').find((l) => l.trim() !== '') ?? message;
  const exit = exitCode !== undefined ? `, exit ${exitCode}` : '';
  return `formatter failed (${label(info)}${exit}): ${path}: ${firstLine.trim()}`;
}

function describeChoice(choice: FormatterChoice): string {
  if (typeof choice === 'string') return choice;
  if ('command' in choice) return Array.isArray(choice.command) ? choice.command.join(' ') : choice.command;
  if ('wasi' in choice) return `wasi:${choice.wasi}`;
  return `dprint:${choice.dprint}`;
}

/** A NUL in the first 8000 characters marks a binary file, as git does. */
function looksBinary(text: string): boolean {
  return text.slice(0, 8000).includes('\0');
}

function latin1Fallback(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes);
}

async function withTimeout(run: () => Promise<AdapterResult>, timeoutMs: number): Promise<AdapterResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<AdapterResult>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout', ms: timeoutMs }), timeoutMs);
  });
  try {
    return await Promise.race([
      run().catch((error: unknown): AdapterResult => ({ kind: 'error', message: messageOf(error) })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > 64) map.delete(map.keys().next().value as string);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
