/**
 * What one formatter is to formatbox. Each formatter is a folder, `src/formatters/<id>/`, whose
 * `index.ts` exports a `FormatterModule` (its declaration) and which `registry.ts` lists once. From
 * that list come: selection (order, the project's declaration, settings, `mode: 'always'` defaults,
 * display names), `ProjectConfig`'s per-formatter part and its loading, the built-in adapters
 * (universal and Node), build.mjs's wasm assets and universal entries, and package.json's exports.
 *
 * The folder, by file:
 *   index.ts    this declaration: data, the config reader's entry, the selection rule. Light: the
 *               engine (`formatbox/core`) reads every declaration to select, and bundles no adapter.
 *   pin.ts      where a project pins its version, when it can (`pin`).
 *   builtin.ts  `builtins`: its adapters for the wasm a host gave (`createFormatters`).
 *   entry.ts    its universal entry `formatbox/<id>` (exports the adapter), when it has one.
 *   adapter.ts, config.ts, …  whatever else it needs.
 * build.mjs lists every folder's builtin.ts in builtin-adapters.ts (a written file, so that no universal
 * graph but createFormatters' imports an adapter) and every entry.ts in its entries and package.json.
 * Nothing Node-only goes in a folder: Node loads every declared wasm asset generically (src/node/builtins.ts).
 */
import type { ConfigSource, FormatterAdapter, IgnoredItem, WasmSource } from '../core/types.js';
import type { ConfigBudget } from '../config/budget.js';
import type { ConfigError, SettingOrigin } from '../config/config-error.js';
import type { ProjectBase } from '../config/project.js';
import type { ShippedPrettierPlugin } from './prettier-plugins.js';
import type { PinReader } from '../config/pins.js';

/** One wasm module a formatter loads, and where the build takes it from. */
export interface WasmAsset<Name extends string = string> {
  /** Its key in `BUILTIN_WASM_FILES`, wasm/manifest.json and `createFormatters`' argument. */
  readonly name: Name;
  /** The npm package that holds it; `formatbox` for one built in this repository. */
  readonly package: string;
  /** Its path inside that package (inside this repository for `formatbox`). */
  readonly source: string;
  /** The name it is published under in `wasm/` (`formatbox/wasm/<file>`). */
  readonly file: string;
  /** The version of a module built here (a package's own version is read from its package.json). */
  readonly version?: string;
}

/** What a project's config says about a path: this formatter (and why), or leave the file alone (and why). */
export type Declared = { formatter: string; because: string } | { skip: string };

/** What a formatter's `settings` resolves: settings in the adapter's shape, or the config error that stops formatting. */
export interface ResolvedSettings {
  settings: Record<string, unknown>;
  ignored: IgnoredItem[];
  /** Directory of the config file `settings` came from, when its globs are relative to it (Biome). */
  settingsDir?: string;
  configSources?: ConfigSource[];
  settingOrigins?: Record<string, SettingOrigin>;
  error?: ConfigError;
}

/** What a formatter's project loader is given, besides the files of one directory. */
export interface LoadContext {
  trust: ProjectBase['trust'];
  /** Where refused, stripped and unread items go (doctor() lists them). */
  ignored: IgnoredItem[];
  budget: ConfigBudget;
  /** Every config file of the project (for `extends` and for files read beside the declaring one). */
  all: Readonly<Record<string, string | null>>;
}

/** What `createFormatters` passes every formatter besides its wasm. */
export interface BuiltinOptions {
  prettierPlugins?: Readonly<Record<string, ShippedPrettierPlugin>>;
}

/** A folder's `builtin.ts` export: its built-in adapters for the wasm a host gave (none when its wasm is missing). */
export type BuiltinFactory = (wasm: Readonly<Partial<Record<string, WasmSource>>>, options: BuiltinOptions) => FormatterAdapter[];

/**
 * `Part` is the slice of `ProjectConfig` this formatter loads and owns; `Reads` a slice another
 * formatter owns that its rule also reads (TOML reads dprint's configs).
 */
/** How a formatter's CLI recognises a file by its first bytes (the walk reads only those). */
export interface FirstLineRule {
  readonly language: string;
  /** Whether an edited or named file of this name (no directory) is asked. */
  mayBe(name: string): boolean;
  /** Whether the project-wide walk reads the start of a regular file of this name. */
  walkReads(name: string): boolean;
  /** The bytes the walk reads; a file shorter than `minBytes` is not one. */
  readonly headBytes: number;
  readonly minBytes: number;
  /** What the start of the file says: e.g. the shell its shebang names; undefined when not one. */
  recognise(text: string): string | undefined;
  /** For receipts and doctor: why the file is of this language (`found` is what `recognise` gave). */
  describe(found: string): string;
  /** Its CLI's walk leaves every hidden file of this language alone, whatever its extension (shfmt: `.x.sh`). */
  readonly walkLeavesHiddenFiles: boolean;
  /** A first line it recognises, for doctor's example (`#!/bin/sh`). */
  readonly example: string;
}

export interface FormatterModule<Part extends object = object, Reads extends object = object, WasmName extends string = string> {
  /** The folder's name; also the package subpath of its universal entry (`formatbox/<id>`). */
  readonly id: string;
  /** As a person writes it ("StyLua"), for `because` lines. */
  readonly displayName: string;
  /** Adapter names it gives (a selection's `formatter`, a user's choice): usually one. */
  readonly adapterNames: readonly string[];
  /** Language ids it formats. */
  readonly languages: readonly string[];
  /** Extensions of languages core/languages.ts does not know: language id → extensions. */
  readonly extensions?: Readonly<Record<string, readonly string[]>>;
  /** Config file names that declare it or that it reads (doctor and the docs list them). */
  readonly configFiles: readonly string[];
  /** `mode: 'always'`: language → adapter name, for languages this formatter is the default of. */
  readonly defaults?: Readonly<Record<string, string>>;
  /**
   * Its CLI's project walk enters every directory but version control and node_modules (dot-directories,
   * `vendor`, `target`, `.venv`, … too), so `formatbox format` lists its files there. Otherwise those
   * directories are left out, as formatbox does not model that CLI's walk.
   */
  readonly walksEveryDirectory?: true;
  /**
   * Files its CLI recognises by their first line rather than their name (shfmt: a name without an
   * extension and a shell shebang). Asked only when the path gives no language.
   */
  readonly byFirstLine?: FirstLineRule;
  /** Where a project pins its version (read as data), and which versions a pin allows. */
  readonly pin?: PinReader;
  /** The wasm modules its built-in adapters load. */
  readonly wasm: readonly WasmAsset<WasmName>[];
  /** Its part of `ProjectConfig`: the empty value, and the loader run once per directory (while the budget lasts). */
  readonly project?: {
    empty(): Part;
    load(part: Part, files: Readonly<Record<string, string | null>>, context: LoadContext): void;
    /** Run once after every directory is loaded (charging globs to the budget, root-only files). */
    finish?(part: Part, context: LoadContext): void;
    /** Untrusted mode: lowers the options that multiply output (config/clamp.ts), listing each clamp in `ignored`. */
    clamp?(part: Part, ignored: IgnoredItem[]): void;
  };
  /** The selection rule: what the project's config files say about `path` (undefined: nothing). */
  declares?(project: ProjectBase & Part & Reads, path: string, language: string): Declared | undefined;
  /** Settings for `path` in the adapter's own shape. Without it: `{}`. */
  settings?(project: ProjectBase & Part & Reads, adapterName: string, path: string, language: string): ResolvedSettings;
  /** After this formatter is chosen (declared or by default): why its CLI would leave `path` alone. */
  leavesAlone?(project: ProjectBase & Part & Reads, path: string): string | undefined;
  /** `mode: 'always'` for a language without a static default: this formatter with extra settings. */
  alwaysDefault?(language: string): { formatter: string; name: string; settings(settings: Record<string, unknown>): Record<string, unknown> } | undefined;
  /** Added to "the project declares no formatter for <language>" when this formatter explains why. */
  whyNotDeclared?(project: ProjectBase & Part & Reads, path: string, language: string): string | undefined;
}
