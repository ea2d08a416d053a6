/** Claude Code: the PostToolUse hook (command or http, hook.ts) and its `init` (init.ts). */
import type { AgentModule } from '../module.js';
import { claudeCodeHook } from './hook.js';
import { claudeCodeInit, detectClaudeCode } from './init.js';

export const claudeCode: AgentModule = { name: 'claude-code', hook: claudeCodeHook, init: claudeCodeInit, detect: detectClaudeCode };
