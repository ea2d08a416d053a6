import type { BuiltinFactory } from '../module.js';
import { unavailableFormatters } from './unavailable.js';

/** A clear `skipped` where only the Node runtime's sandbox could run rustfmt (it registers its adapter after this one). */
export const builtins: BuiltinFactory = () => unavailableFormatters();
