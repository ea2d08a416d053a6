/**
 * `loadProjectConfig`: every project config file read as data and sanitised, once.
 * Selection for a path (select.ts) then only looks things up.
 */
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { biomeConfigFor, loadBiomeConfigs, type BiomeConfigFile } from './biome.js';
import { parseEditorconfig, type EditorconfigFile } from './editorconfig.js';
import { loadDprintConfigs, type DprintConfigFile } from './dprint.js';
import { baseOf, dirOf, normalisePath } from './paths.js';
import { parseIgnoreFile, type IgnoreFile, type IgnoreFlavour } from './ignore-file.js';
import { loadPrettierConfigs, type PrettierConfigFile, type Trust } from './prettier.js';
import { loadRuffConfigs, type RuffConfigFile } from './ruff.js';
import { loadStyluaConfigs, type StyluaConfigFile } from './stylua.js';
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
  /** The root `.prettierignore` (Prettier reads it with the root `.gitignore`). */
  prettierignore?: IgnoreFile;
  /** Every `.gitignore` as git reads it, shallowest first (Prettier's CLI reads the root one). */
  gitignore: IgnoreFile[];
  /** The same files as Biome reads them (with `vcs.useIgnoreFile`). */
  biomeGitignore: IgnoreFile[];
  /** Everything refused, stripped or not read, with the reason (for `doctor()`). */
  ignored: IgnoredItem[];
}

/** Most config files a project may give (a monorepo has a few per package). More are ignored. */
export const MAX_CONFIG_FILES = 2000;

export function loadProjectConfig(files: ProjectFiles, options: { trust?: Trust } = {}): ProjectConfig {
  const trust: Trust = options.trust === 'trusted' ? 'trusted' : 'untrusted';
  const ignored: IgnoredItem[] = [];
  const clean: Record<string, string | null> = {};
  let count = 0;
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
  }
  const editorconfig: EditorconfigFile[] = [];
  for (const [file, text] of Object.entries(clean)) {
    if (baseOf(file) !== '.editorconfig') continue;
    if (text === null) ignored.push({ file, item: '.editorconfig', reason: 'not read (too large, not a regular file, or outside the root)' });
    else editorconfig.push(parseEditorconfig(text, file, dirOf(file), ignored));
  }
  editorconfig.sort((a, b) => a.dir.length - b.dir.length);
  const { ruff, black } = loadRuffConfigs(clean, ignored);
  const { cargo, rustfmt } = loadRust(clean, ignored);
  const ignoreFile = (file: string, flavour: IgnoreFlavour): IgnoreFile | undefined => {
    const text = clean[file];
    if (text === null && flavour === 'git') ignored.push({ file, item: baseOf(file), reason: 'not read (too large, not a regular file, or outside the root)' });
    if (typeof text !== 'string') return undefined;
    if (flavour === 'git') return parseIgnoreFile(text, file, dirOf(file), ignored, flavour);
    // Biome's reading refuses what git's does, and brace bombs besides: report only what is new.
    const own: IgnoredItem[] = [];
    const parsed = parseIgnoreFile(text, file, dirOf(file), own, flavour);
    for (const item of own) {
      if (!ignored.some((i) => i.file === item.file && i.item === item.item)) ignored.push({ ...item, reason: `${item.reason} (as Biome reads it)` });
    }
    return parsed;
  };
  const prettierignore = ignoreFile('.prettierignore', 'git');
  const gitignoreFiles = Object.keys(clean).filter((file) => baseOf(file) === '.gitignore').sort((a, b) => dirOf(a).length - dirOf(b).length);
  const gitignore = gitignoreFiles.flatMap((file) => ignoreFile(file, 'git') ?? []);
  const biomeGitignore = gitignoreFiles.flatMap((file) => ignoreFile(file, 'biome') ?? []);
  return {
    trust,
    ...(prettierignore ? { prettierignore } : {}),
    gitignore,
    biomeGitignore,
    prettier: loadPrettierConfigs(clean, trust, ignored),
    editorconfig,
    biome: loadBiomeConfigs(clean, ignored),
    ruff,
    black,
    go: loadGoModules(clean, ignored),
    cargo,
    rustfmt,
    clangFormat: loadClangFormat(clean, ignored),
    toml: loadTomlDeclarations(clean),
    dprint: loadDprintConfigs(clean, ignored),
    stylua: loadStyluaConfigs(clean, ignored),
    ignored,
  };
}

export { biomeConfigFor };
