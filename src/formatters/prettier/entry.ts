/** `formatbox/prettier`: Prettier's standalone build; its language plugins load as lazy chunks on first use. */
export { prettierFormatter, PRETTIER_LANGUAGES, PRETTIER_RANGE_LANGUAGES } from './adapter.js';
export type { PrettierFormatterOptions } from './adapter.js';
