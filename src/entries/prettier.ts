/** `formatbox/prettier`: Prettier's standalone build; its language plugins load as lazy chunks on first use. */
export { prettierFormatter, PRETTIER_LANGUAGES, PRETTIER_RANGE_LANGUAGES } from '../formatters/prettier.js';
export type { PrettierFormatterOptions } from '../formatters/prettier.js';
