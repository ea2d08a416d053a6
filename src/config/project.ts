/**
 * `loadProjectConfig`: every project config file read as data and sanitised, once.
 * Selection for a path (select.ts) then only looks things up.
 */
import type { IgnoredItem, ProjectFiles } from '../core/types.js';
import { biomeConfigFor, loadBiomeConfigs, type BiomeConfigFile } from './biome.js';
import { parseEditorconfig, type EditorconfigFile } from './editorconfig.js';
import { baseOf, dirOf, normalisePath } from './paths.js';
import { loadPrettierConfigs, loadPrettierIgnore, type PrettierConfigFile, type Trust } from './prettier.js';
import { loadRuffConfigs, type RuffConfigFile } from './ruff.js';
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
  /** The root `.prettierignore`, when present: true for paths Prettier would leave alone. */
  prettierIgnore?: (path: string) => boolean;
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
  const prettierIgnore = loadPrettierIgnore(clean['.prettierignore'], '.prettierignore', ignored);
  return {
    trust,
    ...(prettierIgnore ? { prettierIgnore } : {}),
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
    ignored,
  };
}

export { biomeConfigFor };
