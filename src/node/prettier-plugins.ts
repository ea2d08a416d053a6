/**
 * The shipped Prettier plugins in Node: the universal ones plus PHP and Java, whose packages import
 * `prettier`'s Node entry (and `fs`, for `@prettier/plugin-php`'s composer.json lookup). The Java
 * copy is prettier-plugin-java 2.8.1, the newest built on java-parser (plain JS); 2.9 and later parse
 * with a tree-sitter wasm loaded from a file next to the plugin. Astro is prettier-plugin-astro 0.14.1:
 * its parser is the Go-built @astrojs/compiler wasm, loaded synchronously from its package (so Node
 * only); 1.x parses with a native (napi) binding and needs Node 22. PHP and Java are bundled into
 * lazy entries of their own (./shipped/); Astro stays an installed package, since its compiler reads
 * its wasm from the package's own directory.
 */
import { UNIVERSAL_PRETTIER_PLUGINS, type ShippedPrettierPlugin } from '../formatters/prettier-plugins.js';

export const NODE_PRETTIER_PLUGINS: Readonly<Record<string, ShippedPrettierPlugin>> = {
  ...UNIVERSAL_PRETTIER_PLUGINS,
  php: { package: '@prettier/plugin-php', version: '0.25.0', load: () => import('./shipped/prettier-plugin-php.js') },
  java: { package: 'prettier-plugin-java', version: '2.8.1', load: () => import('./shipped/prettier-plugin-java.js') },
  astro: { package: 'prettier-plugin-astro', version: '0.14.1', load: () => import('prettier-plugin-astro') },
};
