/**
 * Biome: declared by `biome.json[c]` (Biome comes before Prettier), with its `files.includes`,
 * `vcs.useIgnoreFile` and the root `.editorconfig` honoured as Biome's CLI honours them.
 */
import { clampDeep, clampEach } from '../../config/clamp.js';
import type { IgnoredItem } from '../../core/types.js';
import { insideNodeModules, isIgnoredBy } from '../../config/ignore-file.js';
import { globCost } from '../../config/glob.js';
import { isRecord } from '../../config/data.js';
import type { ConfigBudget } from '../../config/budget.js';
import { isUnder } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { biomePin } from './pin.js';
import { BIOME_CONFIG_NAMES, biomeConfigFor, biomeExcludes, biomeVcsIgnore, loadBiomeConfigs, type BiomeConfigFile } from './config.js';

/** Language ids Biome formats (see src/core/languages.ts). */
export const BIOME_LANGUAGES = ['javascript', 'typescript', 'json', 'jsonc', 'css', 'graphql'] as const;

/**
 * Biome's include/ignore globs are compiled when a path is first selected (config.ts); their cost is
 * charged here, at load, from their size alone. Only the lists formatbox itself evaluates count.
 */
export function chargeBiomeGlobs(configs: readonly BiomeConfigFile[], budget: ConfigBudget, ignored: IgnoredItem[]): void {
  for (const config of configs) {
    for (const section of ['files', 'formatter']) {
      const value = config.configuration[section];
      if (!isRecord(value)) continue;
      for (const key of ['includes', 'include', 'ignore']) {
        const list = value[key];
        if (!Array.isArray(list)) continue;
        for (const pattern of list) {
          if (typeof pattern !== 'string') continue;
          const refusal = budget.spend(globCost(pattern.replace(/^!!?/, '')));
          if (refusal) {
            ignored.push({ file: config.file, item: `${section}.${key} (${list.length} patterns)`, reason: refusal });
            return;
          }
        }
      }
    }
  }
}

export interface BiomePart {
  biome: BiomeConfigFile[];
}

export const biome: FormatterModule<BiomePart, object, 'biome'> = {
  id: 'biome',
  displayName: 'Biome',
  adapterNames: ['biome'],
  languages: BIOME_LANGUAGES,
  configFiles: BIOME_CONFIG_NAMES,
  walksEveryDirectory: true,
  pin: biomePin,
  wasm: [{ name: 'biome', package: '@biomejs/wasm-web', source: 'biome_wasm_bg.wasm', file: 'biome_wasm_bg.wasm' }],
  project: {
    empty: () => ({ biome: [] }),
    load: (part, files, { ignored, all }) => part.biome.push(...loadBiomeConfigs(files, ignored, all)),
    finish: (part, { budget, ignored }) => chargeBiomeGlobs(part.biome, budget, ignored),
    clamp: (part, ignored) => clampEach(part.biome, ignored, (config, clamped) => clampDeep(config.configuration, ['indentWidth', 'indentSize'], config.file, '', 'Biome', clamped), (config) => config.ignored),
  },
  declares(project, path, language) {
    if (!(BIOME_LANGUAGES as readonly string[]).includes(language)) return undefined;
    const found = biomeConfigFor(project.biome, path);
    if (!found) return undefined;
    const excluded = biomeExcludes(found.config, found.configuration, path, language, []);
    if (excluded) return { skip: excluded };
    if (insideNodeModules(path)) return { skip: 'inside node_modules (Biome leaves dependencies alone)' };
    const vcs = biomeVcsIgnore(project.biome, path);
    if (vcs && isIgnoredBy(project.biomeGitignore.filter((g) => isUnder(vcs.dir, g.file)), path)) {
      return { skip: `listed in .gitignore (vcs.useIgnoreFile in ${vcs.file})` };
    }
    return { formatter: 'biome', because: `${found.config.file} declares Biome` };
  },
  settings(project, _adapter, path) {
    // The root .editorconfig is merged in there, as Biome's CLI reads it (editorconfig.ts).
    const found = biomeConfigFor(project.biome, path, project.editorconfig);
    if (!found) return { settings: {}, ignored: [] };
    if (found.error) return { settings: {}, ignored: found.ignored, error: found.error };
    return { settings: found.configuration, ignored: found.ignored, settingsDir: found.config.dir, configSources: found.sources };
  },
  // Biome 2.4's SCSS formatter is behind a build feature its published packages leave off.
  whyNotDeclared: (project, path, language) =>
    language === 'scss' && biomeConfigFor(project.biome, path) ? "Biome's published build formats no SCSS: its SCSS support is behind a build feature" : undefined,
};
