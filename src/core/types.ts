/**
 * The public and internal contracts of formatbox. Everything here is pure data:
 * no `node:` import, no I/O. The receipt shape is the public contract (docs/receipts.md).
 */

/** How a formatter run ended. `refused` is used when policy (no OS sandbox, untrusted command, a code config in untrusted mode, the config budget) forbids running it. */
export type Status = 'formatted' | 'unchanged' | 'skipped' | 'failed' | 'timeout' | 'refused';

/** How the formatter executes. */
export type Via = 'js' | 'wasm' | 'wasi' | 'sandbox';

/** What untrusted mode does with a formatter setup that is code (`UserConfig.projectCode`). */
export type ProjectCodePolicy = 'sandbox' | 'refuse';

export type VersionPolicy = 'prefer-pinned' | 'pinned' | 'shipped';

export interface FormatterInfo {
  name: string;
  version: string;
  via: Via;
  /**
   * Set on a receipt when the project pins another version than the one that produced the bytes:
   * the pinned version or range, and the file it was read from (see src/config/pins.ts).
   */
  pinned?: string;
  pinnedIn?: string;
  /** Why the pinned version did not run (`prettier 3.3.3 is being fetched`, the registry unreachable). */
  pinnedNote?: string;
  /**
   * `via: 'sandbox'`: the project's own code that ran in the OS sandbox for this file, its config
   * file (root-relative, null when none) and its plugins as the config names them.
   */
  projectCode?: { config: string | null; plugins: string[] };
}

// ---------------------------------------------------------------------------
// Tool inputs (the agent's tool calls). The shape says which tool it is.

export interface EditInput {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}
export interface MultiEditInput {
  edits: EditInput[];
}
export interface WriteInput {
  content: string;
}
export interface ApplyPatchInput {
  patch: string;
}
export type SingleFileInput = EditInput | MultiEditInput | WriteInput;
export type ToolInput = SingleFileInput | ApplyPatchInput;

// ---------------------------------------------------------------------------
// Formatter adapters

/** A range in the LF-normalised, BOM-free text handed to an adapter, in UTF-16 code units. */
export interface Utf16Range {
  utf16Start: number;
  utf16End: number;
}

/**
 * The line endings a formatter writes, as its own CLI would (the adapter sees LF text, so it says which
 * ending the file gets): one fixed ending; `first`: the file's first line ending (Ruff and rustfmt `auto`);
 * `first-cr`: LF unless the file has a CR, then CRLF or CR by the first one (Prettier `auto`); `last`: the
 * file's last line ending (dprint `auto`); `majority-lf`/`majority-crlf`: whichever of CRLF and LF ends more
 * lines, ties to the named one (clang-format `DeriveLF`/`DeriveCRLF`); `output`: the adapter's text already
 * has the formatter's endings (Biome). Absent: the file keeps its own endings (a user's command).
 */
export type LineEndingPolicy = 'lf' | 'crlf' | 'cr' | 'first' | 'first-cr' | 'last' | 'majority-lf' | 'majority-crlf' | 'output';

/** A config file as the formatter would read it, for formatters that validate their own config (Biome, Ruff). */
export interface ConfigSource {
  /** Project-relative POSIX path. */
  file: string;
  text: string;
  /** The options the file holds, parsed, for a tool whose loader takes data rather than text (Ruff's `[tool.ruff]` table). */
  options?: Record<string, unknown>;
  /** The package specifier the file was resolved from (a shared config in node_modules), when it was. */
  package?: string;
}

/** What the engine asks an adapter to do. */
export interface AdapterRequest {
  /** Project-relative POSIX path, e.g. `src/app.ts`. Used for language/parser choice and config overrides only. */
  path: string;
  /** Language id from the language table (`typescript`, `python`, …). */
  language: string;
  /** File text with the BOM removed and line endings normalised to LF. */
  text: string;
  /**
   * The formatter's settings, already resolved from project config (read as data, sanitised)
   * and user config. The shape belongs to the adapter (e.g. Prettier options, a biome.json object).
   */
  settings: Record<string, unknown>;
  /**
   * Project-relative POSIX directory of the config file `settings` came from (`packages/a` for
   * `packages/a/biome.json`); globs in the settings are relative to it. Absent or '' = the project root.
   */
  settingsDir?: string;
  /** Present only for `scope: 'edit'` when the adapter declares `supportsRange`. */
  range?: Utf16Range;
  /**
   * The config files `settings` came from, nearest last, as written. An adapter that can run its tool's
   * own config loader checks them and answers `error` when the tool would reject them.
   */
  configSources?: ConfigSource[];
  /**
   * A `.js` file of a package whose package.json says `"type": "commonjs"`: Biome's CLI parses it as a
   * script (src/config/module-type.ts). Other adapters ignore it.
   */
  commonjsScript?: boolean;
}

/** An adapter's answer. Expected outcomes are values; only broken invariants throw. */
export type AdapterResult =
  /**
   * `formatter`: set when a build other than the one `info()` names produced this text (Ruff's range
   * formatting comes from a second wasm build); the receipt then names that one.
   */
  | { kind: 'ok'; text: string; formatter?: FormatterInfo; lineEnding?: LineEndingPolicy }
  /**
   * The formatter rejected the input (e.g. a syntax error). `message` is its first message, with location.
   * `setting`: the formatter rejected this setting (e.g. Prettier's `tabWidth`), not the file; the engine
   * then names the config file and position it came from. `config`: the formatter's own config loader
   * rejected the project's config file (the engine then asks whether it is for another version).
   * `formatter`: as for `ok`, the build that failed.
   */
  | { kind: 'error'; message: string; exitCode?: number; setting?: string; config?: boolean; formatter?: FormatterInfo }
  | { kind: 'timeout'; ms: number }
  /** Policy forbade running (no sandbox, unapproved command). */
  | { kind: 'refused'; reason: string }
  /** The adapter cannot handle this input (e.g. language not enabled in this build). */
  | { kind: 'unsupported'; reason: string };

/**
 * One formatter behind one interface. A factory (e.g. `biomeFormatter({ wasm })`) returns this.
 * Loading (wasm compile/instantiate) happens lazily inside `format`/`info`, once per adapter.
 */
export interface FormatterAdapter {
  /** Stable name used in config (`'prettier'`, `'biome'`, …). */
  readonly name: string;
  readonly via: Via;
  /** Language ids this adapter can format. */
  readonly languages: readonly string[];
  /** True when `AdapterRequest.range` is honoured. */
  readonly supportsRange: boolean;
  /** When set, ranges are honoured only for these languages (Prettier formats CSS or Markdown whole). */
  readonly rangeLanguages?: readonly string[];
  /**
   * The adapter gets the file's text as it is (BOM and line endings included) and its output is the
   * final text, line endings and BOM included (an EditorConfig normaliser sets both). Default false:
   * LF text in, and the engine restores the file's own line endings and BOM.
   */
  readonly rawText?: boolean;
  /**
   * How much longer than `timeoutMs` a call may take while the adapter is still starting (a sandboxed
   * toolchain loading the project's formatter and plugins). The adapter enforces its own limits.
   */
  readonly startupMs?: number;
  /** Real name/version/via of the formatter (may load the module). */
  info(): Promise<FormatterInfo>;
  format(request: AdapterRequest): Promise<AdapterResult>;
  /** Loads (downloads, compiles, instantiates) everything `format` needs now instead of on first use. */
  preload?(): Promise<void>;
  /** Frees instances. The adapter may be used again afterwards (it reloads lazily). */
  dispose?(): void | Promise<void>;
}

/** `engine.check()`: every formatter whose wasm is missing, unloadable or not the shipped build. */
export interface WasmCheck {
  ok: boolean;
  problems: Array<{ formatter: string; wasm: string; problem: string }>;
}

/**
 * A wasm module given by the host. The engine never locates files itself.
 * A function is called lazily, once, the first time the module is needed.
 */
export type WasmSource =
  | WebAssembly.Module
  | ArrayBuffer
  | ArrayBufferView
  | URL
  | Response
  | (() => Promise<WebAssembly.Module | ArrayBuffer | ArrayBufferView | URL | Response>);

// ---------------------------------------------------------------------------
// Configuration

/** A user's formatter choice for a language id or a glob. */
export type FormatterChoice =
  | string // built-in name: 'prettier' | 'biome' | 'ruff' | 'gofmt' | 'rustfmt' | 'clang-format' | 'toml' | …
  | { command: string | string[] }
  | { wasi: string; args?: string[]; env?: Record<string, string>; sha256?: string }
  /**
   * A dprint plugin: a shipped one by name (`markdown`), or a `.wasm` file inside the project
   * (`plugins/fmt.wasm`, run through the dprint plugin ABI). `sha256` pins the file; `settings` is
   * its dprint configuration; `declaredBy` names the config file that listed it (dprint.json).
   */
  | { dprint: string; sha256?: string; settings?: Record<string, unknown>; declaredBy?: string };

/** Trusted configuration from the embedding program (or the CLI user's formatbox.json). */
export interface UserConfig {
  /** Default true. */
  enabled?: boolean;
  /** 'project' (default): only what the project declares. 'always': language defaults too. */
  mode?: 'project' | 'always';
  /** Keyed by language id (`python`) or a glob (`src/**\/*.ts`). `false` turns formatting off. */
  formatters?: Record<string, FormatterChoice | false>;
  /**
   * sha256 pins for wasm modules inside the project, by project-relative path (`{wasi}` modules and
   * `.wasm` plugins a dprint.json lists): a file whose hash differs is not run.
   */
  wasmPins?: Record<string, string>;
  /** Languages added by extension: `{ sql: ['sql'] }`. */
  languages?: Record<string, string[]>;
  timeoutMs?: number;
  maxInputBytes?: number;
  maxDiffChars?: number;
  report?: 'receipt' | 'line' | 'none';
  scope?: 'file' | 'edit';
  /**
   * Which formatter version runs when the project pins one formatbox does not ship (docs/versions.md):
   * 'prefer-pinned' (default) the pinned one when it can be had, else the shipped one, said in the
   * receipt; 'pinned' refuses rather than format with another version; 'shipped' never fetches.
   */
  versions?: VersionPolicy;
  /**
   * Untrusted mode, where a project's formatter setup is code (a JS/TS config, a plugin formatbox does
   * not ship, a shared config that is a module): 'sandbox' (default where an OS sandbox exists) runs
   * the project's own formatter with it in the OS sandbox; 'refuse' formats none of those files.
   */
  projectCode?: ProjectCodePolicy;
  /** Prior-art shapes accepted as-is: code-assistant's glob map and the agent gateway's `format.onEdit`. */
  format_on_save?: Record<string, string>;
  format?: { enabled?: boolean; onEdit?: Record<string, string | false>; timeoutMs?: number; maxOutputChars?: number };
}

export interface Limits {
  /** Per formatter call. Default 10000. */
  timeoutMs: number;
  /** Files above this are skipped ("too large"). Default 2 MiB. */
  maxInputBytes: number;
  /** Diffs above this become a reread hint. Default 2000. */
  maxDiffChars: number;
}

/**
 * Project files read as data, keyed by project-relative POSIX path
 * (`.prettierrc`, `packages/a/biome.json`, `pyproject.toml`, …).
 * `null` means "exists but was not read" (e.g. `prettier.config.js`): it is reported as ignored, never loaded.
 */
export type ProjectFiles = Record<string, string | null>;

/** One piece of project config that was ignored or refused, and why. Shown by `doctor()` and in receipts. */
export interface IgnoredItem {
  /** Project-relative file the item came from. */
  file: string;
  /** What was ignored, e.g. `plugins[0]`, `extends`, `prettier.config.js`. */
  item: string;
  reason: string;
}

// ---------------------------------------------------------------------------
// Outcomes

/** Why a file was not formatted. */
export type SkipReason =
  | 'disabled'
  | 'no formatter declared'
  | 'unknown extension'
  | 'turned off'
  | 'too large'
  | 'binary'
  | 'not UTF-8'
  | 'ignored by project config'
  | 'concurrent modification';

/** Result of `engine.format`. */
export interface FormatOutcome {
  path: string;
  status: Status;
  formatter?: FormatterInfo;
  /** The formatted text (F), or the input text unchanged for every status but `formatted`. */
  content: string;
  /** For skipped/failed/timeout/refused: why. */
  reason?: string;
  /** `scope: 'edit'` asked for but not supported: the receipt says so. */
  scopeFallback?: string;
  /** The formatter was not idempotent (a second pass changed the output). */
  unstable?: boolean;
  /** Project config items that were ignored for this file. */
  ignored?: IgnoredItem[];
  /** The language came from the file's first line, not its path (a shell shebang): why. */
  languageFrom?: string;
  line: string;
  ms: number;
}

/** `{sha256, bytes}` of the final file, so a harness can mark it read in its final form. */
export interface FileRecord {
  sha256: string;
  bytes: number;
}

/** What formatbox returns after an edit. JSON-serialisable; field names are the public contract. */
export interface Receipt {
  path: string;
  status: Status;
  formatter?: FormatterInfo;
  /** The rewritten tool input: `replay(P, input)` then `diff` equals F. */
  input: ToolInput;
  /** True when `input` alone (without `diff`) describes F, or every formatter change outside it is in `diff`. False when evidence was ambiguous or `report: 'none'`. */
  reconciled: boolean;
  reason?: string;
  /**
   * Unified diff from `replay(P, input)` to F, present whenever they differ. It is always complete
   * (the invariant needs it); only `note` is bounded by `maxDiffChars`.
   */
  diff?: string;
  /** F, the final file text. */
  content: string;
  line: string;
  /** Exact text to append to the tool result. */
  note: string;
  record: FileRecord;
  ignored?: IgnoredItem[];
  /** `scope: 'edit'` was asked for but the formatter has no range support: it formatted the whole file. */
  scopeFallback?: string;
  /** The language came from the file's first line, not its path (a shell shebang): why. */
  languageFrom?: string;
  ms: number;
}
