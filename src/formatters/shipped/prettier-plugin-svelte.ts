// A module of its own so the bundle's lazy chunk has a stable name (prettier-plugin-svelte-<hash>.js),
// which a profile can leave out (examples/worker/build.mjs, edge).
export * from 'prettier-plugin-svelte/browser';
