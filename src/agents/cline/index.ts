/** cline: its PreToolUse/PostToolUse hook scripts (hook.ts) and its `init` (init.ts). */
import type { AgentModule } from '../module.js';
import { clineHook } from './hook.js';
import { clineInit, detectCline } from './init.js';

export const cline: AgentModule = { name: 'cline', hook: clineHook, init: clineInit, detect: detectCline };
