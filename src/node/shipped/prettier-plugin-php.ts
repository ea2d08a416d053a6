// A module of its own, bundled into its own lazy entry (dist/shipped-prettier-plugin-php.js): the
// plugin and its parser are in dist/, not installed as packages, and load only when a file needs them.
export * from '@prettier/plugin-php';
