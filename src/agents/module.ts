/**
 * What an agent's folder declares (`src/agents/<agent>/index.ts`), listed once in registry.ts.
 * Everything formatbox does for one agent hangs off this: `formatbox hook <name>` runs `hook`,
 * `formatbox init <name>` writes what `init` plans, and `formatbox doctor` shows what `detect` finds.
 * An agent that has no hook command (opencode loads a plugin, Cursor speaks only MCP) leaves `hook`
 * out; one that `init` cannot set up leaves `init` out.
 */
import type { RequestHandler } from '../node/service/requests.js';
import type { FileChange } from './shared/config-files.js';
import type { InitOptions } from './shared/init-types.js';

/** What a hook translation is given besides the agent's event. */
export interface HookContext {
  /** Formats and reconciles (the daemon's warm handler, or one made in this process). */
  handler: RequestHandler;
  /** The caller's working directory, for an event that names none. */
  cwd: string;
  /** The project the agent says it works in (Claude Code's $CLAUDE_PROJECT_DIR), when it says. */
  projectDir?: string;
  /** The budget for everything after the receipt line (resolveLimits' maxDiffChars). */
  maxDiffChars: number;
}

/**
 * One hook event (the agent's JSON, unchecked) in, the JSON the agent reads back out, or undefined
 * when there is nothing to say. Never throws for a bad event and never blocks the agent's edit.
 */
export type HookTranslation = (event: unknown, context: HookContext) => Promise<unknown | undefined>;

/** `formatbox init <name>`: the changes to the agent's config files, and what the user should know. */
export interface AgentInit {
  changes(options: InitOptions): FileChange[];
  /** What the user should know after init (not written anywhere). */
  notes(options: InitOptions): string[];
}

export interface AgentModule {
  /** The folder's name, and the name in `formatbox hook <name>` and `formatbox init <name>`. */
  name: string;
  hook?: HookTranslation;
  init?: AgentInit;
  /** Where this agent is set up to use formatbox, and how (one line each; `formatbox doctor`). */
  detect(options: Omit<InitOptions, 'scope'>): string[];
}
