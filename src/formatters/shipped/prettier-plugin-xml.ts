// A module of its own so the bundle's lazy chunk has a stable name (prettier-plugin-xml-<hash>.js),
// which a profile can leave out (examples/worker/build.mjs, edge).
export { default } from '@prettier/plugin-xml';
