// prettier-plugin-svelte's browser build has no declaration file of its own (its main entry's types fit it).
declare module 'prettier-plugin-svelte/browser' {
  export * from 'prettier-plugin-svelte';
}
