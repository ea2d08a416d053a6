/** The engine's contract: its options, requests and the `Engine` it returns (src/engine/engine.ts). */
import type { ApplyPatchInput, FormatOutcome, FormatterAdapter, FormatterChoice, FormatterInfo, IgnoredItem, Limits, ProjectFiles, Receipt, SingleFileInput, UserConfig, Utf16Range, WasmCheck } from '../core/types.js';
import type { Sha256Port } from '../core/text.js';
import type { ConfigBudgetReport, Selection } from '../config/index.js';
import type { VersionPin } from '../config/pins.js';
import type { AfterEditRequest as ReconcileAfterEditRequest, PatchReceipt } from '../reconcile/index.js';

export interface EngineOptions {
  /** The adapters this host can run (built-ins, already given their wasm). */
  formatters: FormatterAdapter[];
  /** Trusted user config from the embedding program. */
  config?: UserConfig;
  /** Project config files read as data (see `ProjectFiles`). */
  projectFiles?: ProjectFiles;
  /**
   * What discovery did not read (config files refused, a search stopped at its budget). A file with
   * no declared formatter then says so instead of "no formatter declared": the declaration may be
   * in what was not read.
   */
  unread?: IgnoredItem[];
  /**
   * The files formatter versions are pinned in besides config files (lockfiles, installed
   * package.json files: `PIN_SOURCE_FILES`), read as data. Not charged to the config budget: a
   * lockfile is large and only scanned for one entry.
   */
  pinFiles?: ProjectFiles;
  /** Default 'untrusted': project config is sanitised and never loads code. */
  trust?: 'untrusted' | 'trusted';
  limits?: Partial<Limits>;
  /**
   * Builds an adapter for a choice that is not a built-in name: `{command}`, `{wasi}`, `{dprint}`,
   * or a built-in this host lacks (e.g. `rustfmt` needs the Node sandbox). Return undefined when unavailable.
   */
  adapterFor?: (choice: FormatterChoice, language: string) => FormatterAdapter | undefined;
  /** The host's SHA-256 for receipts' `record` (default: WebCrypto; Node passes its synchronous one). */
  sha256?: Sha256Port;
  /**
   * A build of `formatter` at the version `pin` names, when the project pins another version than the
   * registered adapter's (Node: from the verified store; a universal host: the build it was given).
   * Not asked with `"versions": "shipped"`. Without it, the registered adapter formats and says so.
   */
  pinnedAdapter?: (formatter: string, pin: VersionPin) => Promise<PinnedAnswer>;
  /**
   * A file whose formatter setup is code (a JS/TS config, a plugin, a module): the adapter that runs
   * the project's own formatter in the OS sandbox, or why none does (no sandbox here, the user's
   * `projectCode: 'refuse'`). Without it such files are refused, as in a browser.
   */
  projectCode?: (formatter: string, path: string) => FormatterAdapter | { refused: string };
}

/**
 * The host's answer for a pinned version: its adapter; or why not yet (being fetched) or not at all
 * (offline, not published, no sandbox), in words for the receipt. `version`: the exact version the pin
 * resolved to, when known.
 */
export type PinnedAnswer = ({ adapter: FormatterAdapter } | { waiting: string } | { unavailable: string }) & { version?: string };

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
export type AfterEditRequest = ReconcileAfterEditRequest & {
  /**
   * Called with each formatter outcome as soon as it is known, before the receipt is built, so a
   * host can start writing the final bytes meanwhile. Must not throw (a throw is ignored).
   */
  onFormatted?: (outcome: FormatOutcome) => void;
};

export interface Engine {
  format(request: FormatRequest): Promise<FormatOutcome>;
  afterEdit(request: AfterEditRequest & { input: SingleFileInput }): Promise<Receipt>;
  afterEdit(request: AfterEditRequest & { input: ApplyPatchInput }): Promise<PatchReceipt>;
  afterEdit(request: AfterEditRequest): Promise<Receipt | PatchReceipt>;
  /**
   * Loads the formatters for these language ids (all when omitted) now, so the first receipt does not
   * wait for a download and compile. Rejects with the first load error.
   */
  preload(languages?: readonly string[]): Promise<void>;
  /** Loads every formatter and names each wasm that is missing, unloadable or not the shipped build. */
  check(): Promise<WasmCheck>;
  /** Which formatter a path would use, and why (for `doctor()`); `text` for a name without an extension (its first line may give the language). */
  explain(path: string, text?: string): Selection;
  /**
   * The formatter (name, version, build) and the selection a path would be formatted with, or
   * undefined when it would not be formatted. What a cache of formatted files keys on.
   */
  formatterFor(path: string, text?: string): Promise<{ info: FormatterInfo; selection: Extract<Selection, { kind: 'format' }> } | undefined>;
  /** Every project config item that was ignored or refused. */
  readonly ignored: IgnoredItem[];
  /** What the project's config used of its budget (see src/config/budget.ts). */
  readonly configBudget: ConfigBudgetReport | undefined;
  readonly limits: Limits;
  /**
   * Re-reads project config (e.g. after a config file changed on disk); with `unread`, what discovery
   * did not read this time; with `pinFiles`, the pin files read again.
   */
  setProjectFiles(files: ProjectFiles, reread?: { unread?: IgnoredItem[]; pinFiles?: ProjectFiles }): void;
  /** The version each formatter is pinned to by the project (src/config/pins.ts). */
  readonly pins: readonly VersionPin[];
  /** The pins that apply to `path`: per formatter, the nearest package directory's own (a workspace's Prettier), else the root's. */
  pinsFor(path: string): readonly VersionPin[];
  /** Per pinned formatter: the pin, where it was read, and the version this engine would run (for `doctor()`). */
  versions(): Promise<VersionReport[]>;
  dispose(): Promise<void>;
}

/** One row of `doctor()`'s versions: what the project pins and what will run. */
export interface VersionReport {
  formatter: string;
  /** The pinned version or range, and where it was read. */
  pinned: string;
  pinnedIn: string;
  /** Set when the pin is a package's below the root: the directory whose files it applies to. */
  forFilesUnder?: string;
  /** The version formatbox will run, or undefined when this host has no such formatter. */
  willRun?: string;
  /** True when `willRun` is a version the pin allows. */
  matches: boolean;
  /** What happens to files of this formatter, in words. */
  detail: string;
  /** When the pinned version does not run: the build a host would give `pinnedAdapter` for it. */
  needs?: string;
}
