/** Gemini CLI: its BeforeTool/AfterTool hook (hook.ts) and its `init` (init.ts). */
import type { AgentModule } from '../module.js';
import { geminiHook } from './hook.js';
import { detectGemini, geminiInit } from './init.js';

export const gemini: AgentModule = { name: 'gemini', hook: geminiHook, init: geminiInit, detect: detectGemini };
