/** GitHub Copilot CLI: its preToolUse/postToolUse hook (hook.ts) and its `init` (init.ts). */
import type { AgentModule } from '../module.js';
import { copilotHook } from './hook.js';
import { copilotInit, detectCopilot } from './init.js';

export const copilot: AgentModule = { name: 'copilot', hook: copilotHook, init: copilotInit, detect: detectCopilot };
