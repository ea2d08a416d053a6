/**
 * Prettier: declared by `.prettierrc*` or a `prettier` key in package.json (after Biome), for the
 * languages its own plugins print, and for the languages of a shipped plugin the config lists
 * (XML, PHP, Java, Svelte, Astro: formatbox runs its own copy). `.prettierignore` and the root
 * `.gitignore` leave files alone, as Prettier's CLI does.
 */
import { clampEach, clampKeys } from '../../config/clamp.js';
import { editorconfigFor, editorconfigToPrettier } from '../../config/editorconfig.js';
import { insideNodeModules, isIgnoredBy, readIgnoreFile, type IgnoreFile } from '../../config/ignore-file.js';
import { NOT_READ_REASON, type SettingOrigin } from '../../config/config-error.js';
import { dirOf, isUnder } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import type { VersionPin } from '../../config/pins.js';
import semverIntersects from 'semver/ranges/intersects.js';
import semverValidRange from 'semver/ranges/valid.js';
import { prettierPin } from './pin.js';
import {
  loadPrettierConfigs,
  nearestPrettierConfig,
  prettierConfigError,
  prettierOptionsFor,
  PRETTIER_CONFIG_NAMES,
  PRETTIER_PLUGIN_ALLOWLIST,
  type PrettierConfigFile,
} from './config.js';

/** Languages Prettier formats with the plugins that ship inside it (see src/core/languages.ts). */
export const PRETTIER_CORE_LANGUAGES = ['javascript', 'typescript', 'json', 'jsonc', 'json5', 'css', 'scss', 'less', 'markdown', 'mdx', 'yaml', 'html', 'vue', 'graphql', 'handlebars'] as const;

/** Languages of the allowlisted plugins formatbox ships a copy of (run when the project's config lists one). */
export const PRETTIER_PLUGIN_LANGUAGES: readonly string[] = [...new Set(Object.values(PRETTIER_PLUGIN_ALLOWLIST).filter((plugin) => plugin.shipped).flatMap((plugin) => plugin.languages))];

/** Language ids the Prettier adapter formats. */
export const PRETTIER_LANGUAGES: readonly string[] = [...PRETTIER_CORE_LANGUAGES, ...PRETTIER_PLUGIN_LANGUAGES];

/** Languages whose Prettier printers honour rangeStart/rangeEnd; the others are formatted whole. */
export const PRETTIER_RANGE_LANGUAGES: readonly string[] = ['javascript', 'typescript', 'json', 'jsonc', 'json5', 'graphql', 'vue'];

const isCoreLanguage = (language: string): boolean => (PRETTIER_CORE_LANGUAGES as readonly string[]).includes(language);

export interface PrettierPart {
  prettier: PrettierConfigFile[];
  /** The root `.prettierignore` (Prettier reads it with the root `.gitignore`). */
  prettierignore?: IgnoreFile;
}

/** The allowlisted Prettier plugin (xml, php, java, svelte, astro, …) that formats a language Prettier itself does not. */
function pluginForLanguage(language: string): string | undefined {
  if (isCoreLanguage(language)) return undefined;
  return Object.keys(PRETTIER_PLUGIN_ALLOWLIST).find((id) => PRETTIER_PLUGIN_ALLOWLIST[id]!.shipped && PRETTIER_PLUGIN_ALLOWLIST[id]!.languages.includes(language));
}

function listsPlugin(config: PrettierConfigFile, id: string): boolean {
  const has = (options: Record<string, unknown>) => Array.isArray(options.plugins) && options.plugins.includes(id);
  return has(config.options) || config.overrides.some((override) => has(override.options));
}

export const prettier: FormatterModule<PrettierPart> = {
  id: 'prettier',
  displayName: 'Prettier',
  adapterNames: ['prettier'],
  languages: PRETTIER_LANGUAGES,
  configFiles: [...PRETTIER_CONFIG_NAMES, '.prettierignore'],
  defaults: Object.fromEntries(PRETTIER_CORE_LANGUAGES.map((language) => [language, 'prettier'])),
  walksEveryDirectory: true,
  pin: prettierPin,
  wasm: [],
  project: {
    empty: () => ({ prettier: [] }),
    load: (part, files, { trust, ignored, budget, all }) => part.prettier.push(...loadPrettierConfigs(files, trust, ignored, budget, all)),
    clamp: (part, ignored) =>
      clampEach(
        part.prettier,
        ignored,
        (config, clamped) => {
          clampKeys(config.options, ['tabWidth'], config.file, '', 'Prettier', clamped);
          config.overrides.forEach((override, index) => clampKeys(override.options, ['tabWidth'], config.file, `overrides[${index}].options.`, 'Prettier', clamped));
        },
        (config) => config.ignored,
      ),
    finish(part, { all, ignored, budget }) {
      const text = all['.prettierignore'];
      if (text === null) ignored.push({ file: '.prettierignore', item: '.prettierignore', reason: NOT_READ_REASON });
      else if (text !== undefined) {
        const read = readIgnoreFile(text, '.prettierignore', '', ['git'], budget).git;
        ignored.push(...read.ignored);
        part.prettierignore = read.file;
      }
    },
  },
  declares(project, path, language) {
    const config = nearestPrettierConfig(project.prettier, path);
    if (!config) return undefined;
    if (isCoreLanguage(language)) {
      const shared = config.shared ? ` (the shared config ${config.shared.specifier}, read from ${config.shared.file})` : '';
      return { formatter: 'prettier', because: `${config.file} declares Prettier${shared}${config.code && project.trust === 'untrusted' ? ' (its config is code: untrusted mode refuses these files)' : ''}` };
    }
    const plugin = pluginForLanguage(language);
    if (plugin && listsPlugin(config, plugin)) return { formatter: 'prettier', because: `${config.file} lists the Prettier plugin for ${language}; formatbox runs its own copy` };
    return undefined;
  },
  settings(project, _adapter, path) {
    const config = nearestPrettierConfig(project.prettier, path);
    const editorconfigIgnored = project.ignored.filter((i) => i.file.endsWith('.editorconfig') && isUnder(dirOf(i.file), path));
    const ignored = [...(config ? config.ignored : []), ...editorconfigIgnored];
    const error = prettierConfigError(project.prettier, path);
    if (error) return { settings: {}, ignored, error };
    const fromEditorconfig = editorconfigToPrettier(editorconfigFor(project.editorconfig, path));
    // Prettier: config file keys win over .editorconfig.
    const settingOrigins: Record<string, SettingOrigin> = {};
    const settings = { ...fromEditorconfig, ...prettierOptionsFor(config, path, settingOrigins) };
    return { settings, ignored, settingOrigins };
  },
  /** Why Prettier's CLI would leave `path` alone: node_modules, the root .gitignore, the root .prettierignore. */
  leavesAlone(project, path) {
    if (insideNodeModules(path)) return 'inside node_modules (Prettier leaves dependencies alone)';
    const rootGitignore = project.gitignore.find((g) => g.dir === '');
    if (rootGitignore && !pinsPrettier2(project.pinsFor?.(path) ?? project.pins) && isIgnoredBy([rootGitignore], path)) return 'listed in .gitignore (Prettier 3 reads the root .gitignore)';
    if (project.prettierignore && isIgnoredBy([project.prettierignore], path)) return 'listed in .prettierignore';
    return undefined;
  },
  // mode 'always' for a language only a shipped Prettier plugin formats (XML/SVG, PHP, Svelte, Astro): Prettier with formatbox's copy of it.
  alwaysDefault(language) {
    const plugin = pluginForLanguage(language);
    if (!plugin) return undefined;
    return {
      formatter: 'prettier',
      name: `Prettier with its ${plugin} plugin`,
      settings: (settings) => ({ ...settings, plugins: [...(Array.isArray(settings.plugins) ? settings.plugins : []), plugin] }),
    };
  },
};

/** The project pins Prettier 2, whose CLI reads only `.prettierignore` (Prettier 3 reads the root `.gitignore` too). */
function pinsPrettier2(pins: readonly VersionPin[] | undefined): boolean {
  const pin = pins?.find((p) => p.formatter === 'prettier' && !p.implied);
  if (!pin || !semverValidRange(pin.spec)) return false;
  return semverIntersects(pin.spec, '2.x') && !semverIntersects(pin.spec, '>=3.0.0-0');
}
