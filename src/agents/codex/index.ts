/** Codex: the PostToolUse hook on its own apply_patch (hook.ts), and its `init`: the MCP server and that hook (init.ts). */
import type { AgentModule } from '../module.js';
import { codexPatchHook } from './hook.js';
import { codexInit, detectCodex } from './init.js';

export const codex: AgentModule = { name: 'codex', hook: codexPatchHook, init: codexInit, detect: detectCodex };
