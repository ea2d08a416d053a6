/**
 * The real agent CLIs, pinned, as `.ci/run` installs them from the npm registry into
 * `${FORMATBOX_AGENT_CACHE:-$HOME/.cache/formatbox-agents}/<name>-<version>`, and a child-process
 * runner that never blocks the event loop (the scripted model server lives in the test's process).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const OPENCODE_VERSION = '1.18.33';
export const CODEX_VERSION = '0.169.0';

/** Each agent CLI `.ci/run` installs: its cache prefix (`<name>-<version>`) and binary. */
const AGENT_INSTALLS = {
  opencode: { prefix: `opencode-${OPENCODE_VERSION}`, bin: 'opencode' },
  codex: { prefix: `codex-${CODEX_VERSION}`, bin: 'codex' },
  copilot: { prefix: 'copilot-1.0.102', bin: 'copilot' },
  gemini: { prefix: 'gemini-cli-0.61.0', bin: 'gemini' },
  cline: { prefix: 'cline-3.0.65', bin: 'cline' },
  qwen: { prefix: 'qwen-code-0.24.4', bin: 'qwen' },
} as const;

export function agentCache(): string {
  return process.env.FORMATBOX_AGENT_CACHE || join(homedir(), '.cache', 'formatbox-agents');
}

/** Where `.ci/run` puts the binary `bin` of the agent it installed under the prefix `<name>-<version>`. */
export function agentBinPath(prefix: string, bin: string): string {
  return join(agentCache(), prefix, 'node_modules', '.bin', bin);
}

/**
 * The installed binary, or a skip reason. Outside CI a missing install skips (saying how to get
 * it); in CI it is a failure, since `.ci/run` installs it.
 */
export function agentBinary(name: keyof typeof AGENT_INSTALLS): { bin?: string; skip?: string } {
  const { prefix, bin: binName } = AGENT_INSTALLS[name];
  const bin = agentBinPath(prefix, binName);
  if (existsSync(bin)) return { bin };
  const how = `${prefix} is not installed at ${bin} (.ci/run installs it)`;
  if (process.env.CI) throw new Error(how);
  return { skip: how };
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `bin args` to completion (killed after `timeoutMs`), stdin closed. */
export function runAgent(bin: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<AgentRun> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The formatbox notes a tool result ends with: everything from the first line starting `formatbox:`. */
export function formatboxNotes(toolResult: string): string {
  const at = toolResult.search(/(^|\n)formatbox: /);
  return at < 0 ? '' : toolResult.slice(at).replace(/^\n/, '');
}

/**
 * Checks a note's bound: each `formatbox:` line at most 500 characters, and everything else at most
 * `maxDiffChars` (the diff budget). Returns a description of the first breach, or undefined.
 */
export function boundBreach(notes: string, maxDiffChars: number): string | undefined {
  const lines = notes.split('\n');
  const heads = lines.filter((line) => line.startsWith('formatbox: '));
  const long = heads.find((line) => line.length > 500);
  if (long) return `a receipt line of ${long.length} characters`;
  const body = notes.length - heads.reduce((sum, line) => sum + line.length + 1, 0);
  return body > maxDiffChars ? `${body} characters after the receipt lines > ${maxDiffChars}` : undefined;
}
