/**
 * The engine: one floor above core, config and reconcile. It selects a formatter for a path from the
 * user and project config, runs it (at the project's pinned version when the host has that build),
 * and shapes the outcome and the receipt. Its contract is in ./types.ts; the outcomes it gives
 * without formatting are in ./outcomes.ts; pinned-version answers in ./versions.ts.
 */
import type { AdapterResult, FormatOutcome, FormatterAdapter, FormatterChoice, FormatterInfo, IgnoredItem, Limits, ProjectFiles, Utf16Range } from '../core/types.js';
import { shownPath } from '../core/shown.js';
import { FormatboxError, messageOf } from '../core/errors.js';
import { problemsOf } from '../core/wasm.js';
import { applyLineEnding, normaliseForFormatter, rangeToNormalised, utf8ByteLength } from '../core/text.js';
import { outputOverCap } from '../core/output-cap.js';
import { CONFIG_BUDGET, languageOfFirstLine, loadProjectConfig, normaliseUserConfig, selectFormatter } from '../config/index.js';
import type { NormalisedUserConfig, ProjectConfig, Selection } from '../config/index.js';
import { describeConfigError } from '../config/config-error.js';
import { describePin, pinAdapterName, pinAllows, pinBuildNeeded, projectPins, type ProjectPins, type VersionPin } from '../config/pins.js';
import { isCommonjsScript } from '../config/module-type.js';
import { resolveLimits } from '../config/limits.js';
import { afterEdit as reconcileAfterEdit } from '../reconcile/index.js';
import type { AfterEditRequest, Engine, EngineOptions, FormatRequest, PinnedAnswer, VersionReport } from './types.js';
import { configForPinned, UNKNOWN_TO_THIS_VERSION, withPin } from './versions.js';
import { describeChoice, failedLine, label, notFullyRead, overBudget, shownOutcome, skipped } from './outcomes.js';

export { DEFAULT_LIMITS } from '../config/limits.js';
export type { AfterEditRequest, Engine, EngineOptions, FormatRequest, PinnedAnswer, VersionReport } from './types.js';

/** Rows of `versions()` for package directories below the root, at most (a monorepo may have hundreds). */
const MAX_PACKAGE_VERSION_ROWS = 100;

function withPins(project: ProjectConfig, pins: ProjectPins): ProjectConfig {
  return { ...project, pins: pins.root, pinsFor: (path) => pins.forPath(path) };
}

/** Creates the universal engine. Pure: no I/O beyond what the given adapters do. */
export function createEngine(options: EngineOptions): Engine {
  const trust = options.trust ?? 'untrusted';
  const user: NormalisedUserConfig = normaliseUserConfig(options.config, { adapterNames: options.formatters.map((adapter) => adapter.name) });
  const limits: Limits = resolveLimits(options.config, options.limits);
  // Config is loaded on the caller's thread. Its budget gets a quarter of timeoutMs at most: the budget
  // is checked between files and globs, and the rest covers the one file being parsed when it runs
  // out (up to ~1 s for 1 MiB of JSON on a loaded machine) and the selection of the path.
  const loadConfig = (files: ProjectFiles): ProjectConfig => loadProjectConfig(files, { trust, budget: { maxMs: Math.min(CONFIG_BUDGET.maxMs, limits.timeoutMs / 4) } });
  let unread: IgnoredItem[] = options.unread ?? [];
  let pinFiles: ProjectFiles = options.pinFiles ?? {};
  // The root's pins, and each package's below it (a workspace's own Prettier): a file gets the nearest.
  let pins: ProjectPins = projectPins({ ...pinFiles, ...(options.projectFiles ?? {}) });
  let project: ProjectConfig = withPins(loadConfig(options.projectFiles ?? {}), pins);
  const adaptersByName = new Map(options.formatters.map((adapter) => [adapter.name, adapter]));
  const choiceAdapters = new Map<string, FormatterAdapter | undefined>();
  const infoCache = new Map<FormatterAdapter, Promise<FormatterInfo>>();
  /** Last formatted output per path, to notice a formatter that is not idempotent. */
  const lastOutput = new Map<string, string>();
  /** Selection per path until the project config changes: matching its globs is the config work of each edit. */
  const selections = new Map<string, Selection>();

  /** `text`, when given, is the file's content: a name without an extension may get its language from its first line. */
  function selectionFor(path: string, text?: string): Selection {
    // What the first line says is part of the key: the same path with another shebang selects anew.
    const firstLine = text === undefined ? undefined : languageOfFirstLine(path, text)?.found;
    const key = firstLine === undefined ? path : `${path}\0${firstLine}`;
    let selection = selections.get(key);
    if (!selection) {
      selection = selectFormatter(project, user, path, text);
      remember(selections, key, selection);
    }
    return selection;
  }

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

  /** The pin of `filePins` (the pins that apply to one file) for this formatter when `info`'s version is not one it allows. */
  function otherThanPinned(info: FormatterInfo, filePins: readonly VersionPin[]): VersionPin | undefined {
    const pin = filePins.find((p) => p.formatter === info.name && !p.informational);
    return pin && !pinAllows(pin, info.version) ? pin : undefined;
  }

  /**
   * The adapter at the version the project pins when the host has it (else the registered one), its
   * info (naming the pin when they differ), the pin it differs from, and why the pinned one did not run.
   */
  async function versionFor(shippedAdapter: FormatterAdapter, filePins: readonly VersionPin[]): Promise<{ adapter: FormatterAdapter; info: FormatterInfo; differs?: VersionPin; why?: string }> {
    const shipped = await infoOf(shippedAdapter);
    const shippedDiffers = otherThanPinned(shipped, filePins);
    if (!shippedDiffers) return { adapter: shippedAdapter, info: shipped };
    let adapter = shippedAdapter;
    let why: string | undefined;
    if (user.versions !== 'shipped' && options.pinnedAdapter) {
      const answer = await options.pinnedAdapter(shipped.name, shippedDiffers).catch((error: unknown): PinnedAnswer => ({ unavailable: messageOf(error) }));
      if ('adapter' in answer) adapter = answer.adapter;
      else why = 'waiting' in answer ? answer.waiting : answer.unavailable;
    } else if (user.versions === 'shipped') why = `the user config says "versions": "shipped"`;
    const running = adapter === shippedAdapter ? shipped : await infoOf(adapter);
    const differs = otherThanPinned(running, filePins);
    return { adapter, info: differs ? withPin(running, differs, why) : running, ...(differs ? { differs } : {}), ...(why ? { why } : {}) };
  }

  async function format(request: FormatRequest): Promise<FormatOutcome> {
    const started = now();
    const { path } = request;
    // The one boundary for a receipt's text: whatever the source (a formatter's message quoting the
    // file, a config value), the line and reason are shown escaped.
    // Set once the selection is known: a language read from the first line is said in every outcome.
    let languageFrom: string | undefined;
    const done = (outcome: Omit<FormatOutcome, 'ms' | 'path'>): FormatOutcome => ({ path, ...shownOutcome(outcome, unread), ...(languageFrom ? { languageFrom } : {}), ms: round(now() - started) });

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
    if (project.overBudget) return done(overBudget(path, text, project));
    const selected = selectionFor(path, text);
    languageFrom = selected.languageFrom;
    if (selected.kind === 'skip') return done(selected.reason === 'no formatter declared' && unread.length > 0 ? notFullyRead(path, text, unread) : skipped(path, selected.reason, text, selected.detail));
    const filePins = pins.forPath(path);
    // A setup that is code: the project's own formatter runs it in the OS sandbox, or the file is refused (and says why).
    const sandboxed = selected.kind === 'invalid-config' && selected.error.projectCode ? options.projectCode?.(selected.formatter, path) : undefined;
    if (selected.kind === 'invalid-config' && (!sandboxed || 'refused' in sandboxed)) return done(await invalidConfig(selected, path, text, filePins, sandboxed?.refused));
    const projectCodeAdapter = sandboxed && !('refused' in sandboxed) ? sandboxed : undefined;
    const selection: Extract<Selection, { kind: 'format' }> =
      selected.kind === 'format' ? selected : { kind: 'format', formatter: selected.formatter, language: selected.language, settings: {}, because: selected.because, ignored: [] };
    const ignored = selection.ignored.length > 0 ? selection.ignored : undefined;
    const withIgnored = <T extends object>(outcome: T): T => (ignored ? { ...outcome, ignored } : outcome);

    // A UTF-16 code unit is at most 3 UTF-8 bytes: most files need no exact count.
    const bytes = text.length * 3 <= limits.maxInputBytes ? 0 : utf8ByteLength(text);
    if (bytes > limits.maxInputBytes) {
      return done(withIgnored(skipped(path, 'too large', text, `${bytes} bytes > ${limits.maxInputBytes}`)));
    }
    if (looksBinary(text)) return done(withIgnored(skipped(path, 'binary', text)));

    const shippedAdapter = projectCodeAdapter ?? adapterForSelection(selection);
    if (!shippedAdapter) {
      const name = typeof selection.formatter === 'string' ? selection.formatter : describeChoice(selection.formatter);
      return done(withIgnored({ status: 'skipped', content: text, reason: `formatter ${name} is not available here`, line: `not formatted (formatter ${name} is not available here): ${shownPath(path)}` }));
    }
    // The project's own toolchain runs at the version installed in the project: no pin to choose or refuse.
    const refusing = projectCodeAdapter ? undefined : filePins.find((p) => p.refusal !== undefined && p.formatter === shippedAdapter.name);
    if (refusing) {
      const shipped = await infoOf(shippedAdapter);
      return done(withIgnored({ status: 'refused', formatter: shipped, content: text, reason: refusing.refusal!, line: `formatter refused (${refusing.refusal}): ${shownPath(path)}` }));
    }
    const { adapter, info, differs, why } = projectCodeAdapter ? { adapter: projectCodeAdapter, info: await infoOf(projectCodeAdapter), differs: undefined, why: undefined } : await versionFor(shippedAdapter, filePins);
    if (differs && user.versions === 'pinned') {
      const reason = `the project pins ${info.name} ${describePin(differs)} and formatbox has ${info.version} here${why ? ` (${why})` : ''}; the user config's "versions": "pinned" refuses another version`;
      return done(withIgnored({ status: 'refused', formatter: info, content: text, reason, line: `formatter refused (the project pins ${info.name} ${describePin(differs)}; ${info.name} ${info.version} is not that version${why ? `: ${why}` : ''}): ${shownPath(path)}` }));
    }

    const prepared = adapter.rawText ? { text } : normaliseForFormatter(text);
    let range = request.range ? rangeToNormalised(text, request.range) : undefined;
    let scopeFallback: string | undefined;
    if (range && (!adapter.supportsRange || adapter.rawText || (adapter.rangeLanguages && !adapter.rangeLanguages.includes(selection.language)))) {
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
          ...(selection.configSources ? { configSources: selection.configSources } : {}),
          ...(range ? { range } : {}),
          ...(adapter.name === 'biome' && isCommonjsScript(project.packageTypes, path) ? { commonjsScript: true } : {}),
        }),
      limits.timeoutMs + (adapter.startupMs ?? 0),
    );
    const extra = { ...(scopeFallback ? { scopeFallback } : {}), ...(ignored ? { ignored } : {}) };

    switch (result.kind) {
      case 'ok': {
        const produced = result.formatter ?? info;
        const producerDiffers = projectCodeAdapter ? undefined : result.formatter ? otherThanPinned(result.formatter, filePins) : differs;
        const producer = producerDiffers && !produced.pinned ? withPin(produced, producerDiffers) : produced;
        const overCap = outputOverCap(prepared.text, result.text);
        if (overCap) return done({ status: 'failed', formatter: producer, content: text, reason: overCap, line: failedLine(producer, path, overCap), ...extra });
        if (result.text.trim() === '' && prepared.text.trim() !== '') {
          return done({ status: 'failed', formatter: producer, content: text, reason: 'formatter returned empty output for a non-empty file', line: failedLine(producer, path, 'returned empty output for a non-empty file'), ...extra });
        }
        // The formatter's own line endings (its policy), or the file's when the adapter names none; a
        // raw-text adapter (the EditorConfig normaliser) sets endings and BOM itself.
        const content = adapter.rawText ? result.text : applyLineEnding(text, result.text, result.lineEnding);
        const unstable = lastOutput.get(path) === text && content !== text;
        remember(lastOutput, path, content);
        if (content === text) {
          return done({ status: 'unchanged', formatter: producer, content, line: `already formatted (${label(producer)}): ${shownPath(path)}`, ...extra });
        }
        const line = `formatted (${label(producer)}): ${shownPath(path)}${unstable ? ' (not idempotent: formatting its own output changed it again)' : ''}`;
        return done({ status: 'formatted', formatter: producer, content, line, ...(unstable ? { unstable } : {}), ...extra });
      }
      case 'error': {
        if (differs && result.config) return done({ ...configForPinned(info, differs, path, text, result.message), ...extra });
        // A rejected setting is a config error: name the file and position it was written at.
        const origin = result.setting !== undefined ? selection.settingOrigins?.[result.setting] : undefined;
        const message = origin ? `invalid project config: ${describeConfigError({ ...origin, message: result.message })}` : result.message;
        const failedBuild = result.formatter ?? info;
        return done({ status: 'failed', formatter: failedBuild, content: text, reason: message, line: failedLine(failedBuild, path, message, result.exitCode), ...extra });
      }
      case 'timeout':
        return done({ status: 'timeout', formatter: info, content: text, reason: `timed out after ${result.ms} ms`, line: `formatter timed out (${info.name}) after ${result.ms} ms: ${shownPath(path)}`, ...extra });
      case 'refused':
        return done({ status: 'refused', formatter: info, content: text, reason: result.reason, line: `formatter refused (${result.reason}): ${shownPath(path)}`, ...extra });
      case 'unsupported':
        return done({ status: 'skipped', formatter: info, content: text, reason: result.reason, line: `not formatted (${result.reason}): ${shownPath(path)}`, ...extra });
    }
  }

  /** A `failed` outcome for a config the project's formatter would reject: the file stays as written. */
  async function invalidConfig(selection: Extract<Selection, { kind: 'invalid-config' }>, path: string, text: string, filePins: readonly VersionPin[], notSandboxed?: string): Promise<Omit<FormatOutcome, 'ms' | 'path'>> {
    const adapter = adaptersByName.get(selection.formatter);
    const shipped = adapter ? await infoOf(adapter) : undefined;
    const differs = shipped ? otherThanPinned(shipped, filePins) : undefined;
    const info = shipped && differs ? withPin(shipped, differs) : shipped;
    const ignoredExtra = selection.ignored.length > 0 ? { ignored: selection.ignored } : {};
    if (info && differs && !selection.error.refusal && UNKNOWN_TO_THIS_VERSION.test(selection.error.message)) {
      return { ...configForPinned(info, differs, path, text, describeConfigError(selection.error)), ...ignoredExtra };
    }
    if (selection.error.refusal) {
      const reason = `${describeConfigError(selection.error)}${notSandboxed ? ` (not run in the OS sandbox: ${notSandboxed})` : ''}`;
      return { status: 'refused', ...(info ? { formatter: info } : {}), content: text, reason, line: `not formatted (refused: ${reason}): ${shownPath(path)}`, ...(selection.ignored.length > 0 ? { ignored: selection.ignored } : {}) };
    }
    const reason = `invalid project config: ${describeConfigError(selection.error)}`;
    const line = info ? failedLine(info, path, reason) : `formatter failed (${selection.formatter}): ${path}: ${reason}`;
    return { status: 'failed', ...(info ? { formatter: info } : {}), content: text, reason, line, ...(selection.ignored.length > 0 ? { ignored: selection.ignored } : {}) };
  }

  const engine: Engine = {
    format,
    afterEdit: ((request: AfterEditRequest) =>
      reconcileAfterEdit(
        {
          format: (path: string, text: string, range?: Utf16Range) => {
            const outcome = format({ path, text, ...(range ? { range } : {}) });
            return request.onFormatted ? outcome.then((result) => tellFormatted(request.onFormatted!, result)) : outcome;
          },
          limits,
          report: request.report ?? user.report,
          scope: request.scope ?? user.scope,
          ...(options.sha256 ? { sha256: options.sha256 } : {}),
        },
        request,
      )) as Engine['afterEdit'],
    async preload(languages) {
      const wanted = options.formatters.filter((adapter) => !languages || adapter.languages.some((language) => languages.includes(language)));
      await Promise.all(wanted.map((adapter) => adapter.preload?.()));
    },
    async check() {
      const problems = (
        await Promise.all(
          options.formatters.map(async (adapter) => {
            try {
              await adapter.preload?.();
              return [];
            } catch (error) {
              return problemsOf(error).map((problem) => ({ formatter: adapter.name, ...problem }));
            }
          }),
        )
      ).flat();
      return { ok: problems.length === 0, problems };
    },
    explain: (path, text) => {
      if (!user.enabled) return { kind: 'skip', reason: 'disabled' };
      if (project.overBudget) return { kind: 'skip', reason: 'ignored by project config', detail: `refused: the project config is ${project.overBudget}` };
      return selectionFor(path, text);
    },
    async formatterFor(path, text) {
      // A project config over its budget is refused for every file: nothing to key on.
      if (!user.enabled || project.overBudget) return undefined;
      const selection = selectionFor(path, text);
      if (selection.kind !== 'format') return undefined;
      const adapter = adapterForSelection(selection);
      return adapter ? { info: (await versionFor(adapter, pins.forPath(path))).info, selection } : undefined;
    },
    get ignored() {
      return project.ignored;
    },
    get configBudget() {
      return project.budget;
    },
    limits,
    get pins() {
      return pins.root;
    },
    pinsFor: (path) => pins.forPath(path),
    async versions() {
      const rows: VersionReport[] = [];
      const scoped = [...pins.root.map((pin) => ({ dir: '', pin })), ...pins.nested(MAX_PACKAGE_VERSION_ROWS)];
      for (const { dir, pin } of scoped) {
        const adapter = adaptersByName.get(pinAdapterName(pin));
        const version = adapter && !pin.informational ? await versionFor(adapter, [pin]) : undefined;
        const running = version?.info ?? (adapter ? await infoOf(adapter) : undefined);
        const matches = running !== undefined && (pin.informational || pinAllows(pin, running.version));
        const where = { formatter: pin.formatter, pinned: pin.spec, pinnedIn: pin.source, ...(dir !== '' ? { forFilesUnder: dir } : {}), ...(running ? { willRun: running.version } : {}), matches };
        const why = version?.why ? ` (${version.why})` : '';
        let detail: string;
        if (pin.refusal) detail = `files${dir !== '' ? ` under ${dir}/` : ''} are refused: ${pin.refusal}`;
        else if (!running) detail = `formatbox has no ${pin.formatter} here`;
        else if (pin.informational) detail = `${pin.source} names Go ${pin.spec}, a language version; formatbox runs @wasm-fmt/gofmt ${running.version}`;
        else if (matches) detail = pin.implied ? `no version pinned; ${pin.source} means any ${pin.formatter} ${pin.spec}.x, and ${running.version} is one` : `${running.version}, the pinned version${adapter && version && version.adapter !== adapter ? ', from the verified store' : ''}`;
        else if (user.versions === 'pinned') detail = `files are refused: ${running.version} is not the pinned version${why}, and the user config says "versions": "pinned"`;
        else detail = `files are formatted with ${running.version}${why}, and each receipt says the project pins ${describePin(pin)}`;
        const needs = matches ? undefined : pinBuildNeeded(pin);
        rows.push({ ...where, detail, ...(needs ? { needs } : {}) });
      }
      return rows;
    },
    setProjectFiles(files, reread = {}) {
      unread = reread.unread ?? [];
      if (reread.pinFiles) pinFiles = reread.pinFiles;
      pins = projectPins({ ...pinFiles, ...files });
      project = withPins(loadConfig(files), pins);
      lastOutput.clear();
      selections.clear();
    },
    async dispose() {
      const all = new Set<FormatterAdapter>([...adaptersByName.values(), ...[...choiceAdapters.values()].filter((a): a is FormatterAdapter => !!a)]);
      await Promise.all([...all].map((adapter) => adapter.dispose?.()));
    },
  };
  return engine;
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

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > 64) map.delete(map.keys().next().value as string);
}

function tellFormatted(onFormatted: (outcome: FormatOutcome) => void, outcome: FormatOutcome): FormatOutcome {
  try {
    onFormatted(outcome);
  } catch {
    // the host's hook; the receipt does not depend on it
  }
  return outcome;
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
