/** Qwen Code: its PostToolUse hook (hook.ts) and its `init` (init.ts). */
import type { AgentModule } from '../module.js';
import { qwenHook } from './hook.js';
import { detectQwen, qwenInit } from './init.js';

export const qwen: AgentModule = { name: 'qwen', hook: qwenHook, init: qwenInit, detect: detectQwen };
