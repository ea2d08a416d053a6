/**
 * `loadProjectConfig`: every project config file read as data and sanitised, once.
 * Selection for a path (select.ts) then only looks things up.
 */
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { parseEditorconfig, type EditorconfigFile } from './editorconfig.js';
import { baseOf, dirOf, normalisePath } from './paths.js';
import { readIgnoreFile, type IgnoreFile } from './ignore-file.js';
import { budgetItem, ConfigBudget, type ConfigBudgetLimits, type ConfigBudgetReport } from './budget.js';
import { clampEditorconfigOptions } from './clamp.js';
import { NOT_READ_REASON } from './config-error.js';
import { loadPackageModuleTypes, type PackageModuleType } from './module-type.js';
import { MODULES, type FormatterParts } from '../formatters/derived.js';
import type { LoadContext } from '../formatters/module.js';
import type { VersionPin } from './pins.js';

export type Trust = 'untrusted' | 'trusted';

/** What every formatter's rule may read: the files no one formatter owns. */
export interface ProjectBase {
  trust: Trust;
  editorconfig: EditorconfigFile[];
  /** Each package.json's `"type"`, deepest first: Biome parses `.js` in a CommonJS package as a script. */
  packageTypes: PackageModuleType[];
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
  /** The versions the project pins (config/pins.ts, set by the engine), for rules that differ by version. */
  pins?: readonly VersionPin[];
  /** The pins that apply to one file: per formatter, the nearest package's own, else the root's (set by the engine). */
  pinsFor?: (path: string) => readonly VersionPin[];
}

/** The project's config: the shared files, and each registered formatter's part (its `project` in its folder). */
export type ProjectConfig = ProjectBase & FormatterParts;

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
    clampEditorconfigOptions(project);
    for (const module of MODULES) module.project?.clamp?.(project, project.ignored);
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
  const base: ProjectBase = { trust, gitignore: [], biomeGitignore: [], editorconfig: [], packageTypes: [], ignored };
  return Object.assign(base, ...MODULES.map((module) => module.project?.empty() ?? {})) as ProjectConfig;
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
  const context: LoadContext = { trust: project.trust, ignored, budget, all: clean };
  const steps: Array<() => void> = [
    eachDirectory((files) => {
      for (const [file, text] of Object.entries(files)) {
        if (baseOf(file) !== '.editorconfig') continue;
        if (text === null) ignored.push({ file, item: '.editorconfig', reason: NOT_READ_REASON });
        else project.editorconfig.push(parseEditorconfig(text, file, dirOf(file), ignored, budget));
      }
    }),
    () => loadIgnoreFiles(project, clean, budget),
    // Each formatter's own files, in registry order.
    ...MODULES.flatMap((module) => {
      const loader = module.project;
      if (!loader) return [];
      return [eachDirectory((files) => loader.load(project, files, context)), () => loader.finish?.(project, context)];
    }),
    () => {
      project.packageTypes = loadPackageModuleTypes(Object.fromEntries(Object.entries(clean).filter(([file]) => !file.split('/').includes('node_modules'))));
    },
  ];
  for (const step of steps) {
    if (budget.checkTime()) break;
    step();
  }
  project.editorconfig.sort((a, b) => a.dir.length - b.dir.length);
}

/**
 * Files inside node_modules are never a project's config files: discovery reads them only as the
 * shared configs a config names by package (Biome `extends`, a Prettier string config), and the
 * loaders find them through `all`.
 */
function groupByDirectory(files: Record<string, string | null>): Array<Record<string, string | null>> {
  const byDir = new Map<string, Record<string, string | null>>();
  for (const [file, text] of Object.entries(files)) {
    if (file.split('/').includes('node_modules')) continue;
    const dir = dirOf(file);
    let group = byDir.get(dir);
    if (!group) byDir.set(dir, (group = {}));
    group[file] = text;
  }
  return [...byDir.values()];
}

/** Every `.gitignore` as git and as Biome read it, each compiled once. */
function loadIgnoreFiles(project: ProjectConfig, clean: Record<string, string | null>, budget: ConfigBudget): void {
  const { ignored } = project;
  const notRead = (file: string): void => {
    ignored.push({ file, item: baseOf(file), reason: NOT_READ_REASON });
  };
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

