/**
 * formatbox's own pinned copies of well-known Prettier plugins (the allowlist in
 * src/formatters/prettier/config.ts). A project's config names a plugin; this copy runs, never the repo's.
 *
 * Universal: only plugins whose code needs nothing from Node are here (XML, Svelte). The Node
 * runtime adds PHP and Java (src/node/prettier-plugins.ts): their packages import `prettier`'s Node
 * entry, and `@prettier/plugin-php` reads `composer.json` with `fs`.
 */

/** A shipped plugin: its package, pinned version (a test checks the installed one) and a loader. */
export interface ShippedPrettierPlugin {
  package: string;
  version: string;
  load: () => Promise<unknown>;
}

export const UNIVERSAL_PRETTIER_PLUGINS: Readonly<Record<string, ShippedPrettierPlugin>> = {
  xml: { package: '@prettier/plugin-xml', version: '3.4.2', load: () => import('./shipped/prettier-plugin-xml.js') },
  svelte: { package: 'prettier-plugin-svelte', version: '4.1.1', load: () => import('./shipped/prettier-plugin-svelte.js') },
};
