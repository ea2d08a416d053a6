/**
 * The Prettier plugins a project's config may list: formatbox runs its own pinned copy of each shipped
 * one (src/formatters/prettier-plugins.ts), never the repository's.
 */
import { isRecord } from '../../config/data.js';

/**
 * Well-known Prettier plugins formatbox ships its own pinned copy of. When a project's Prettier config
 * lists one (by package name, in any form: bare, a path into node_modules, a URL), the repo's copy is
 * never loaded; formatbox's copy formats the file and the receipt names it. `shipped: false`: on the
 * allowlist, but formatbox has no in-process copy (the file is reported, not formatted).
 */
export const PRETTIER_PLUGIN_ALLOWLIST: Readonly<Record<string, { package: RegExp; languages: readonly string[]; parsers: readonly string[]; options: readonly string[]; shipped: boolean }>> = {
  xml: { package: /@prettier\/plugin-xml/, languages: ['xml'], parsers: ['xml'], options: ['xmlWhitespaceSensitivity', 'xmlSelfClosingSpace', 'xmlSortAttributesByKey', 'xmlQuoteAttributes'], shipped: true },
  php: { package: /@prettier\/plugin-php/, languages: ['php'], parsers: ['php'], options: ['phpVersion', 'trailingCommaPHP', 'braceStyle'], shipped: true },
  java: { package: /prettier-plugin-java/, languages: ['java'], parsers: ['java'], options: ['entrypoint'], shipped: true },
  svelte: { package: /prettier-plugin-svelte/, languages: ['svelte'], parsers: ['svelte'], options: ['svelteSortOrder', 'svelteStrictMode', 'svelteBracketNewLine', 'svelteAllowShorthand', 'svelteIndentScriptAndStyle'], shipped: true },
  astro: { package: /prettier-plugin-astro/, languages: ['astro'], parsers: ['astro'], options: ['astroAllowShorthand', 'astroSkipFrontmatter'], shipped: true },
  sh: { package: /prettier-plugin-sh/, languages: ['shell'], parsers: ['sh'], options: [], shipped: false },
  sql: { package: /prettier-plugin-sql/, languages: ['sql'], parsers: ['sql'], options: [], shipped: false },
};

/** The allowlist id of a plugin specifier (`prettier-plugin-java`, `./node_modules/@prettier/plugin-xml/src/plugin.js`, …). */
export function allowlistedPlugin(specifier: unknown): string | undefined {
  if (typeof specifier !== 'string') return undefined;
  return Object.keys(PRETTIER_PLUGIN_ALLOWLIST).find((id) => new RegExp(`(^|[/:])${PRETTIER_PLUGIN_ALLOWLIST[id]!.package.source}(?=$|[/@])`).test(specifier));
}

/** Every allowlisted plugin a config object lists, top level and overrides. */
export function listedPlugins(config: Record<string, unknown>): string[] {
  const ids = new Set<string>();
  const collect = (options: unknown) => {
    if (!isRecord(options)) return;
    const plugins = options.plugins;
    for (const plugin of Array.isArray(plugins) ? plugins : [plugins]) {
      const id = allowlistedPlugin(plugin);
      if (id) ids.add(id);
    }
  };
  collect(config);
  if (Array.isArray(config.overrides)) for (const override of config.overrides) if (isRecord(override)) collect(override.options);
  return [...ids];
}
