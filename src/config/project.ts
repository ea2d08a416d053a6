/**
 * `loadProjectConfig`: every project config file read as data and sanitised, once.
 * Selection for a path (select.ts) then only looks things up.
 */
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { biomeConfigFor, loadBiomeConfigs, type BiomeConfigFile } from '../formatters/biome/config.js';
import { parseEditorconfig, type EditorconfigFile } from './editorconfig.js';
import { loadDprintConfigs, type DprintConfigFile } from '../formatters/dprint/config.js';
import { baseOf, dirOf, normalisePath } from './paths.js';
import { readIgnoreFile, type IgnoreFile } from './ignore-file.js';
import { budgetItem, chargeBiomeGlobs, ConfigBudget, type ConfigBudgetLimits, type ConfigBudgetReport } from './budget.js';
import { clampProjectOptions } from './clamp.js';
import { loadPrettierConfigs, type PrettierConfigFile, type Trust } from '../formatters/prettier/config.js';
import { loadRuffConfigs, type RuffConfigFile } from '../formatters/ruff/config.js';
import { loadStyluaConfigs, type StyluaConfigFile } from '../formatters/stylua/config.js';
import { NOT_READ_REASON } from './config-error.js';
import { loadPackageModuleTypes, type PackageModuleType } from './module-type.js';
import {
  loadClangFormat,
  loadGoModules,
  loadRust,
  loadTomlDeclarations,
  type CargoManifest,
  type ClangFormatFile,
  type GoModule,
  type RustfmtConfig,
} from './toolchains.js';

export interface ProjectConfig {
  trust: Trust;
  prettier: PrettierConfigFile[];
  editorconfig: EditorconfigFile[];
  biome: BiomeConfigFile[];
  ruff: RuffConfigFile[];
  black: RuffConfigFile[];
  go: GoModule[];
  cargo: CargoManifest[];
  rustfmt: RustfmtConfig[];
  clangFormat: ClangFormatFile[];
  toml: Array<{ dir: string; file: string }>;
  /** dprint configs that declare a plugin formatbox ships (toml, markdown, json). */
  dprint: DprintConfigFile[];
  /** stylua.toml / .stylua.toml (Lua). */
  stylua: StyluaConfigFile[];
  /** Each package.json's `"type"`, deepest first: Biome parses `.js` in a CommonJS package as a script. */
  packageTypes: PackageModuleType[];
  /** The root `.prettierignore` (Prettier reads it with the root `.gitignore`). */
  prettierignore?: IgnoreFile;
  /** Every `.gitignore` as git reads it, shallowest first (Prettier's CLI reads the root one). */
  gitignore: IgnoreFile[];
  /** The same files as Biome reads them (with `vcs.useIgnoreFile`). */
  biomeGitignore: IgnoreFile[];
  /** Everything refused, stripped or not read, with the reason (for `doctor()`). */
  ignored: IgnoredItem[];
  /** What loading cost against the project's config budget. */
  budget?: ConfigBudgetReport;
  /** Set when the config is over budget: nothing in this project is formatted, for this reason. */
  overBudget?: string;
}

/** Most config files a project may give (a monorepo has a few per package). More are ignored. */
export const MAX_CONFIG_FILES = 2000;

export interface LoadOptions {
  trust?: Trust;
  /** The project's config budget (budget.ts). The engine gives it at most a quarter of `timeoutMs`. */
  budget?: Partial<ConfigBudgetLimits>;
  /** Milliseconds, for the budget's time (a port: universal code has no clock of its own). */
  clock?: () => number;
}

export function loadProjectConfig(files: ProjectFiles, options: LoadOptions = {}): ProjectConfig {
  const trust: Trust = options.trust === 'trusted' ? 'trusted' : 'untrusted';
  const budget = new ConfigBudget(options.budget, options.clock);
  const ignored: IgnoredItem[] = [];
  const clean: Record<string, string | null> = {};
  let count = 0;
  let chars = 0;
  for (const [rawPath, text] of Object.entries(files ?? {})) {
    const path = normalisePath(rawPath);
    if (path === '' || path.split('/').some((segment) => segment === '..' || segment === '.' || segment === '')) {
      ignored.push({ file: rawPath, item: rawPath, reason: 'not a path inside the project root' });
      continue;
    }
    if (++count > MAX_CONFIG_FILES) {
      ignored.push({ file: path, item: baseOf(path), reason: `more than ${MAX_CONFIG_FILES} config files` });
      continue;
    }
    clean[path] = typeof text === 'string' ? text : null;
    chars += typeof text === 'string' ? text.length : 0;
  }
  const project = emptyProject(trust, ignored);
  // All the text is charged before any of it is parsed.
  if (!budget.spendText(chars)) loadInto(project, clean, budget);
  const report = budget.report();
  project.budget = report;
  if (report.exceeded) {
    project.overBudget = report.exceeded;
    project.ignored = collapseRefusals(ignored, report.exceeded);
    project.ignored.push(budgetItem(report));
  } else if (trust === 'untrusted') {
    clampProjectOptions(project);
  }
  return project;
}

/** Past the budget every glob is refused with the same reason: one item per file says so, with a count. */
function collapseRefusals(ignored: IgnoredItem[], reason: string): IgnoredItem[] {
  const kept: IgnoredItem[] = [];
  const byFile = new Map<string, IgnoredItem & { count: number }>();
  for (const item of ignored) {
    if (!item.reason.includes(reason)) {
      kept.push(item);
      continue;
    }
    const first = byFile.get(item.file);
    if (first) first.count++;
    else {
      const entry = { ...item, count: 1 };
      byFile.set(item.file, entry);
      kept.push(entry);
    }
  }
  return kept.map((item) => {
    if (!('count' in item)) return item;
    const { count, ...rest } = item as IgnoredItem & { count: number };
    return count > 1 ? { ...rest, item: `${rest.item} and ${count - 1} more` } : rest;
  });
}

function emptyProject(trust: Trust, ignored: IgnoredItem[]): ProjectConfig {
  return { trust, gitignore: [], biomeGitignore: [], prettier: [], editorconfig: [], biome: [], ruff: [], black: [], go: [], cargo: [], rustfmt: [], clangFormat: [], toml: [], dprint: [], stylua: [], packageTypes: [], ignored };
}

/**
 * Each loader runs one directory at a time (every config kind is resolved per directory), and only
 * while the budget lasts: a project past it is not parsed further. Globs are charged one by one.
 */
function loadInto(project: ProjectConfig, clean: Record<string, string | null>, budget: ConfigBudget): void {
  const { ignored } = project;
  const directories = groupByDirectory(clean);
  const eachDirectory = (load: (files: Record<string, string | null>) => void) => (): void => {
    for (const files of directories) {
      if (budget.checkTime()) return;
      load(files);
    }
  };
  const steps: Array<() => void> = [
    eachDirectory((files) => {
      for (const [file, text] of Object.entries(files)) {
        if (baseOf(file) !== '.editorconfig') continue;
        if (text === null) ignored.push({ file, item: '.editorconfig', reason: NOT_READ_REASON });
        else project.editorconfig.push(parseEditorconfig(text, file, dirOf(file), ignored, budget));
      }
    }),
    eachDirectory((files) => {
      const { ruff, black } = loadRuffConfigs(files, ignored, clean);
      project.ruff.push(...ruff);
      project.black.push(...black);
    }),
    eachDirectory((files) => {
      const { cargo, rustfmt } = loadRust(files, ignored);
      project.cargo.push(...cargo);
      project.rustfmt.push(...rustfmt);
    }),
    () => loadIgnoreFiles(project, clean, budget),
    eachDirectory((files) => project.prettier.push(...loadPrettierConfigs(files, project.trust, ignored, budget))),
    eachDirectory((files) => project.biome.push(...loadBiomeConfigs(files, ignored, clean))),
    () => chargeBiomeGlobs(project.biome, budget, ignored),
    eachDirectory((files) => project.go.push(...loadGoModules(files, ignored))),
    eachDirectory((files) => project.clangFormat.push(...loadClangFormat(files, ignored))),
    eachDirectory((files) => project.toml.push(...loadTomlDeclarations(files))),
    eachDirectory((files) => project.dprint.push(...loadDprintConfigs(files, ignored))),
    eachDirectory((files) => project.stylua.push(...loadStyluaConfigs(files, ignored))),
    () => {
      project.packageTypes = loadPackageModuleTypes(clean);
    },
  ];
  for (const step of steps) {
    if (budget.checkTime()) break;
    step();
  }
  project.editorconfig.sort((a, b) => a.dir.length - b.dir.length);
}

function groupByDirectory(files: Record<string, string | null>): Array<Record<string, string | null>> {
  const byDir = new Map<string, Record<string, string | null>>();
  for (const [file, text] of Object.entries(files)) {
    const dir = dirOf(file);
    let group = byDir.get(dir);
    if (!group) byDir.set(dir, (group = {}));
    group[file] = text;
  }
  return [...byDir.values()];
}

/** `.prettierignore` as git reads it; every `.gitignore` as git and as Biome read it, each compiled once. */
function loadIgnoreFiles(project: ProjectConfig, clean: Record<string, string | null>, budget: ConfigBudget): void {
  const { ignored } = project;
  const notRead = (file: string): void => {
    ignored.push({ file, item: baseOf(file), reason: NOT_READ_REASON });
  };
  const prettierignore = clean['.prettierignore'];
  if (prettierignore === null) notRead('.prettierignore');
  else if (prettierignore !== undefined) {
    const read = readIgnoreFile(prettierignore, '.prettierignore', '', ['git'], budget).git;
    ignored.push(...read.ignored);
    project.prettierignore = read.file;
  }
  const gitignoreFiles = Object.keys(clean).filter((file) => baseOf(file) === '.gitignore').sort((a, b) => dirOf(a).length - dirOf(b).length);
  for (const file of gitignoreFiles) {
    if (budget.checkTime()) return;
    const text = clean[file];
    if (text === null || text === undefined) {
      notRead(file);
      continue;
    }
    const read = readIgnoreFile(text, file, dirOf(file), ['git', 'biome'], budget);
    ignored.push(...read.git.ignored);
    // Biome's reading refuses what git's does, and brace bombs besides: report only what is new.
    const seen = new Set(read.git.ignored.map((i) => i.item));
    for (const item of read.biome.ignored) {
      if (!seen.has(item.item)) ignored.push({ ...item, reason: `${item.reason} (as Biome reads it)` });
    }
    project.gitignore.push(read.git.file);
    project.biomeGitignore.push(read.biome.file);
  }
}

export { biomeConfigFor };
