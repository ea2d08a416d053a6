// prettier-plugin-svelte's browser build has no declaration file of its own (its main entry's types fit it).
declare module 'prettier-plugin-svelte/browser' {
  export * from 'prettier-plugin-svelte';
}

// prettier-plugin-astro 0.14.1 ships no declaration file; formatbox uses it only as a Prettier plugin object.
declare module 'prettier-plugin-astro' {
  import type { Plugin } from 'prettier';
  export const languages: Plugin['languages'];
  export const parsers: Plugin['parsers'];
  export const printers: Plugin['printers'];
  export const options: Plugin['options'];
}
