/**
 * opencode: no hook command; its plugin (plugin.ts, the package's `formatbox/opencode` and
 * `./server` exports) runs the tool hooks (hooks.ts) inside opencode. `init` (init.ts) adds it.
 */
import type { AgentModule } from '../module.js';
import { detectOpencode, opencodeInit } from './init.js';

export const opencode: AgentModule = { name: 'opencode', init: opencodeInit, detect: detectOpencode };
