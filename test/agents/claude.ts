/**
 * Running the real Claude Code CLI (installed by .ci/run into the agent cache) against the scripted
 * model (anthropic-server.ts), in a temp HOME, with no network: shared by the end-to-end suite and
 * the agent benchmark.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { agentBinPath } from './agent-cache.js';
import { startScriptedModel, type MessagesRequest, type Turn } from './anthropic-server.js';

/** The version the suite pins (the one .ci/run installs). */
export const CLAUDE_CODE_VERSION = '2.1.328';

/** The `claude` binary in the cache, or undefined. */
export function findClaude(): string | undefined {
  const bin = agentBinPath(`claude-code-${CLAUDE_CODE_VERSION}`, 'claude');
  return existsSync(bin) ? bin : undefined;
}

/** One step of a script: the turn to take given what the agent was just told. */
export type Step = (request: MessagesRequest) => Turn | Turn[];

export interface ClaudeRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The agent's turns as the model saw them (turns[i + 1] shows the results of step i). */
  turns: MessagesRequest[];
  /** Per turn: when its request arrived and its answer went out (performance.now()). */
  times: Array<{ received: number; answered: number }>;
  ms: number;
}

/** Runs `claude -p` in `cwd` with the steps as the model's turns, then a final text answer. */
export async function runClaude(claude: string, options: { cwd: string; home: string; steps: Step[]; args?: string[]; env?: Record<string, string>; timeoutMs?: number; permissionMode?: string }): Promise<ClaudeRun> {
  let next = 0;
  const model = await startScriptedModel((request) => (next < options.steps.length ? options.steps[next++]!(request) : undefined));
  try {
    const started = performance.now();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.home,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'test',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      ...options.env,
    };
    const args = ['-p', 'Follow the plan.', '--output-format', 'stream-json', '--verbose', '--permission-mode', options.permissionMode ?? 'acceptEdits', ...(options.args ?? [])];
    const child = spawn(claude, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    const code = await new Promise<number>((done) => child.on('close', (c, signal) => done(c ?? (signal ? -1 : -2))));
    clearTimeout(timer);
    return { code, stdout, stderr, turns: model.turns, times: model.times, ms: performance.now() - started };
  } finally {
    await model.close();
  }
}
