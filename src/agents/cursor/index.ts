/** Cursor: MCP only (no hook); `init` (init.ts) adds formatbox's MCP server. */
import type { AgentModule } from '../module.js';
import { cursorInit, detectCursor } from './init.js';

export const cursor: AgentModule = { name: 'cursor', init: cursorInit, detect: detectCursor };
