#!/usr/bin/env node
/**
 * The `formatbox` bin. The per-edit commands take a thin path that loads no formatter and no engine:
 * `hook claude-code`, `apply --json` and `format --stdin-filepath` hand their request to the per-user
 * daemon (started on first use), and `daemon status|stop` only talk to it. Everything else, and
 * these with --no-daemon or FORMATBOX_NO_DAEMON=1, runs the full CLI (main.ts) in this process.
 */
import { readFileSync, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { askRunningDaemon, callDaemon, DaemonUnavailable, settingsFor, type DaemonEnvelope, type DaemonReply } from './daemon-client.js';
import { daemonPaths } from './daemon-paths.js';
import { quietOnEpipe } from './epipe.js';
import { EXIT_CODE_BY_ERROR, EXIT_FORMAT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, EXIT_WOULD_CHANGE } from './exit-codes.js';
import { stdinRequest, writeStdinResult } from './format-args.js';
import { createFormatOutput } from './format-output.js';
import { hasStdinFilepath, parseFlags, type Flags } from './flags.js';
import { COMMAND_HELP } from './help.js';
import { placeRequest, saysNoRoot, withNoRootReason } from '../node/service/request-root.js';
import { refusedRootReason } from '../node/project-root.js';
import { formatboxBuildId, formatboxVersion } from '../node/version.js';

/** Exit code for the thin path, or undefined: run the full CLI instead. */
async function thinMain(argv: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === '-V' || command === 'version') {
    process.stdout.write(`${formatboxVersion()}\n`);
    return 0;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    if (!command || !Object.hasOwn(COMMAND_HELP, command)) return undefined;
    process.stdout.write(`${COMMAND_HELP[command]}\n`);
    return 0;
  }
  if (command === 'daemon' && (rest[0] === 'status' || rest[0] === 'stop')) return daemonCommand(rest[0], rest.includes('--json'), env);
  // The MCP server loads only the SDK before its first tool call (mcp.ts), not the full CLI.
  if (command === 'mcp') return mcpCommand(rest);
  let flags: Flags;
  try {
    flags = parseFlags(rest, { command, unknown: 'collect' });
  } catch {
    return undefined; // a missing or bad value: the full CLI names it
  }
  if (flags.noDaemon || /^(1|true|yes)$/i.test(env.FORMATBOX_NO_DAEMON ?? '')) return undefined;
  // Offline runs in this process: a daemon started without it could fetch, and could not say so here.
  if (command !== 'hook' && (flags.offline || /^(1|true|yes)$/i.test(env.FORMATBOX_OFFLINE ?? ''))) return undefined;
  if (command === 'hook') return flags.socket || env.FORMATBOX_SOCKET ? undefined : thinHook(flags, env);
  if (flags.unknown.length > 0) return undefined; // the full CLI names the bad option
  if (command === 'apply' && flags.json) return thinApply(flags, env);
  if (command === 'format' && flags.stdinFilepath !== undefined) return thinStdinFilepath(flags, env);
  if (command === 'format' && !flags.json && !usesWalkOptions(flags) && namedFilesOnly(flags.positional)) {
    return thinFormatFiles(flags, env);
  }
  return undefined;
}

async function mcpCommand(args: string[]): Promise<number | undefined> {
  let flags: Flags;
  try {
    flags = parseFlags(args, { command: 'mcp' });
  } catch {
    return undefined; // the full CLI names the bad option
  }
  return (await import('./mcp.js')).runMcp(flags);
}

function callOptions(env: NodeJS.ProcessEnv, timeouts: { replyTimeoutMs?: number; startTimeoutMs?: number } = {}) {
  return { paths: daemonPaths(env), startArgs: [fileURLToPath(import.meta.url), 'daemon', 'run'], env, ...timeouts };
}

function envelope(op: DaemonEnvelope['op'], flags: Flags, env: NodeJS.ProcessEnv, extra: Partial<DaemonEnvelope>): DaemonEnvelope {
  return { v: formatboxBuildId(), op, settings: settingsFor(flags, env), root: resolve(flags.root ?? process.cwd()), ...extra };
}

/**
 * `formatbox hook AGENT`: always exit 0 (Claude Code blocks the session on exit 2); problems go to
 * stderr. The event goes to the daemon as it came, with the agent's name: which agents have a hook
 * and what their events mean is src/agents/'s (registry.ts), not loaded in this thin process.
 */
async function thinHook(flags: Flags, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const agent = flags.positional[0];
    if (agent === undefined || agent === '') {
      process.stderr.write('formatbox: usage: formatbox hook AGENT (formatbox hook --help names them)\n');
      return 0; // Still never a blocking error for the agent.
    }
    for (const option of flags.unknown) process.stderr.write(`formatbox: hook: ignoring unknown option ${option}\n`);
    let event: unknown;
    try {
      event = JSON.parse(await readStdin());
    } catch {
      return 0; // Not a hook event: say nothing, never fail the edit.
    }
    if (!event || typeof event !== 'object' || Array.isArray(event)) return 0;
    if ((event as { hook_event_name?: unknown }).hook_event_name === 'SessionStart') return await sessionStart(flags, env);
    const hook = { agent, event, cwd: process.cwd(), ...(env.CLAUDE_PROJECT_DIR ? { projectDir: env.CLAUDE_PROJECT_DIR } : {}) };
    let output: unknown;
    try {
      const reply = await callDaemon(envelope('hook', flags, env, { hook }), callOptions(env, { replyTimeoutMs: hookTimeoutMs(env), startTimeoutMs: 10_000 }));
      output = (unwrap(reply) as { output?: unknown }).output;
    } catch (error) {
      if (!(error instanceof DaemonUnavailable)) throw error;
      process.stderr.write(`formatbox: no daemon (${error.message}); formatting in this process\n`);
      const local = await import('./local.js');
      output = await local.hookLocally(agent, event, flags);
    }
    if (output) process.stdout.write(JSON.stringify(output) + '\n');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    process.stderr.write(`formatbox: hook: ${describe(error)}${typeof code === 'string' ? ` (${code})` : ''}\n`);
  }
  return 0;
}

/**
 * SessionStart: start the daemon now (the http hook cannot), have it serve the session's port and
 * accept the secret the session's settings hand the http hook. Nothing goes to the model; a port
 * that cannot be served is told to the user (`systemMessage`).
 */
async function sessionStart(flags: Flags, env: NodeJS.ProcessEnv): Promise<number> {
  const port = flags.httpPort;
  const secret = env.FORMATBOX_HOOK_SECRET || undefined;
  const session = { ...(port !== undefined ? { port } : {}), ...(secret ? { secret } : {}), pid: sessionPid() };
  try {
    const reply = unwrap(await callDaemon(envelope('session', flags, env, { session }), callOptions(env, { startTimeoutMs: 10_000 }))) as { http?: { listening?: boolean; error?: string } };
    if (port !== undefined && reply.http?.listening === false) {
      const message = `formatbox: the http hook's port ${port} cannot be served (${reply.http.error ?? 'unknown'}); edits are not formatted until it can (or use the command hook: formatbox init claude-code --command)`;
      process.stdout.write(JSON.stringify({ systemMessage: message }) + '\n');
    }
  } catch (error) {
    process.stdout.write(JSON.stringify({ systemMessage: `formatbox: the daemon did not start (${describe(error)}); the http hook cannot format` }) + '\n');
  }
  return 0;
}

/**
 * The Claude Code process that ran this hook: the parent, or the parent's parent when a shell ran
 * the command (Claude Code runs hook commands through one). The daemon stays up while it lives.
 */
function sessionPid(): number {
  const parent = process.ppid;
  try {
    const comm = readFileSync(`/proc/${parent}/comm`, 'utf8').trim();
    if (!/^(sh|bash|dash|zsh|ash)$/.test(comm)) return parent;
    const stat = readFileSync(`/proc/${parent}/stat`, 'utf8');
    const grand = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(grand) && grand > 1 ? grand : parent;
  } catch {
    return parent;
  }
}

function hookTimeoutMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.FORMATBOX_HOOK_TIMEOUT_MS);
  // Claude Code's own hook timeout is 60 s; starting the daemon may take up to 10 s of it.
  return Number.isFinite(ms) && ms > 0 ? ms : 45_000;
}

/** `apply --json` through the daemon: same output and exit codes as in-process. */
async function thinApply(flags: Flags, env: NodeJS.ProcessEnv): Promise<number> {
  let request: unknown;
  try {
    request = JSON.parse(await readStdin());
  } catch (error) {
    return printError({ code: 'INVALID_REQUEST', message: `stdin is not one JSON request: ${describe(error)}` });
  }
  // The daemon's working directory is `/`: a relative root means the caller's, so resolve it here.
  if (request && typeof request === 'object' && typeof (request as { root?: unknown }).root === 'string') {
    request = { ...(request as object), root: resolve((request as { root: string }).root) };
  }
  try {
    const result = await requestThroughDaemon(request, flags, env);
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } catch (error) {
    return printError(codeAndMessage(error));
  }
}

/** `format --stdin-filepath PATH`: stdin formatted as if it were PATH, on stdout (prettier's and biome's convention). */
async function thinStdinFilepath(flags: Flags, env: NodeJS.ProcessEnv): Promise<number> {
  if (!flags.stdinFilepath) {
    process.stderr.write('formatbox: --stdin-filepath needs a path\n');
    return EXIT_USAGE;
  }
  const text = await readStdin();
  try {
    const request = stdinRequest(resolve(flags.root ?? process.cwd()), flags.stdinFilepath, text);
    const receipt = (await requestThroughDaemon(request, flags, env, 'person')) as { status: string; content: string; line: string };
    return writeStdinResult(receipt, text);
  } catch (error) {
    const { code, message } = codeAndMessage(error);
    process.stderr.write(`formatbox: ${message}\n`);
    return EXIT_CODE_BY_ERROR[code as keyof typeof EXIT_CODE_BY_ERROR] ?? EXIT_INTERNAL;
  }
}

/** The options only the project-wide walk takes (format.ts): such a run is the walk's, not the daemon's. */
function usesWalkOptions(flags: Flags): boolean {
  return flags.threads !== undefined || !flags.cache || !flags.native || flags.ignorePaths.length > 0;
}

/** Up to 64 named regular files (an editor's or opencode's `format --write $FILE`); directories go to the full CLI's walk. */
function namedFilesOnly(paths: string[]): boolean {
  return paths.length > 0 && paths.length <= 64 && paths.every((path) => statSync(resolve(path), { throwIfNoEntry: false })?.isFile() === true);
}

/**
 * `format [--write|--check|-l] FILE…` through the daemon, printed as the walk prints (format-output.ts).
 * No mode is --check. A file over its budget is asked again with three times it (as format.ts does)
 * before it counts as timed out. Exit 0, 1 (--check: would change) or 2 (a file failed).
 */
async function thinFormatFiles(flags: Flags, env: NodeJS.ProcessEnv): Promise<number> {
  quietOnEpipe(); // `format` left it to the walk's bundle; this path writes too
  const check = flags.check || !flags.write;
  const output = createFormatOutput({ ...flags, check });
  const root = resolve(flags.root ?? process.cwd());
  // A --root that can never be a root is the run's error, as in the walk, not each file's.
  const refused = flags.root !== undefined ? refusedRootReason(root) : undefined;
  if (refused !== undefined) {
    process.stderr.write(`formatbox: ${root} (the --root) cannot be a project root: ${refused}\n`);
    return EXIT_CODE_BY_ERROR.PATH_REFUSED;
  }
  for (const named of flags.positional) {
    const path = relative(root, resolve(named)).split(sep).join('/');
    // As the walk shows paths: relative to --root when given, else to the working directory.
    const shown = flags.root !== undefined ? path : relative(process.cwd(), resolve(named)).split(sep).join('/') || named;
    try {
      const ask = (over: Flags) => requestThroughDaemon({ method: 'format', path, check }, over, env, 'person') as Promise<{ status: string; line: string; reason?: string }>;
      let receipt = await ask(flags);
      // The budget it ran over is in the reason (`timed out after N ms`): the config's, which this light path does not load.
      const overMs = receipt.status === 'timeout' ? Number(/after (\d+) ms/.exec(receipt.reason ?? '')?.[1]) : NaN;
      if (overMs > 0) receipt = await ask({ ...flags, timeoutMs: overMs * 3 });
      const { status, line, reason } = receipt;
      if (status === 'formatted' || status === 'unchanged') output.file({ kind: status, path: shown, line });
      else if (status === 'skipped') output.file({ kind: 'skipped', path: shown, reason: reason ?? line, named: true, noRoot: saysNoRoot(receipt) });
      else output.file({ kind: status === 'timeout' ? 'timed out' : 'failed', path: shown, message: reason ?? line });
    } catch (error) {
      output.file({ kind: 'failed', path: shown, message: describe(error) });
    }
  }
  output.summary();
  const { counts } = output;
  if (counts.failed + counts.timedOut > 0) return EXIT_FORMAT_FAILED;
  return check && counts.formatted > 0 ? EXIT_WOULD_CHANGE : EXIT_OK;
}

/**
 * Sends `request` placed in its project root (request-root.ts): the daemon's working directory is not
 * the caller's. `person`: a path named on the command line, which finds its own project wherever the
 * command runs; `agent` (apply): the containment rule.
 */
async function requestThroughDaemon(raw: unknown, flags: Flags, env: NodeJS.ProcessEnv, by: 'agent' | 'person' = 'agent'): Promise<unknown> {
  const placeable = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
  const { request, noRoot } = placeable
    ? placeRequest(raw, { cwd: process.cwd(), ...(flags.root !== undefined ? { root: flags.root } : {}), ...(by === 'person' ? { named: true } : {}) })
    : { request: raw, noRoot: false };
  try {
    return withNoRootReason(unwrap(await callDaemon(envelope('request', flags, env, { request }), callOptions(env))), noRoot);
  } catch (error) {
    if (!(error instanceof DaemonUnavailable)) throw error;
    process.stderr.write(`formatbox: no daemon (${error.message}); formatting in this process\n`);
    const local = await import('./local.js');
    return withNoRootReason(await local.requestLocally(request, flags), noRoot);
  }
}

/** `daemon status|stop`: a line for a person, the daemon's JSON with --json. */
async function daemonCommand(sub: 'status' | 'stop', json: boolean, env: NodeJS.ProcessEnv): Promise<number> {
  const paths = daemonPaths(env);
  let reply: DaemonReply | undefined;
  try {
    reply = await askRunningDaemon({ v: formatboxBuildId(), op: sub }, paths);
  } catch (error) {
    process.stderr.write(`formatbox: daemon ${sub}: ${describe(error)}\n`);
    return EXIT_INTERNAL;
  }
  if (!reply) {
    process.stdout.write(`no formatbox daemon answers on ${paths.socket}\n`);
    return sub === 'status' ? 1 : 0;
  }
  if ('mismatch' in reply) {
    process.stdout.write(`a formatbox ${reply.mismatch.version} daemon answered on ${paths.socket}; it is exiting to make way for ${formatboxBuildId()}\n`);
    return sub === 'status' ? 1 : 0;
  }
  if ('error' in reply) return printError(reply.error);
  process.stdout.write(json ? JSON.stringify(reply.ok) + '\n' : `${daemonText(sub, reply.ok as Record<string, unknown>)}\n`);
  return 0;
}

/** `formatbox 0.1.0 daemon, pid 123, up 4 min, 12 requests, 180 MB; exits after 15 min idle; socket …`. */
function daemonText(sub: 'status' | 'stop', ok: Record<string, unknown>): string {
  const number = (key: string): number => (typeof ok[key] === 'number' ? (ok[key] as number) : 0);
  if (sub === 'stop') return `the formatbox daemon (pid ${number('pid')}) is stopping`;
  const minutes = (ms: number): string => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);
  const requests = number('requests');
  return [
    `formatbox ${String(ok.version)} daemon, pid ${number('pid')}, up ${minutes(number('uptimeMs'))}, ${requests} ${requests === 1 ? 'request' : 'requests'}, ${Math.round(number('rssBytes') / 2 ** 20)} MB`,
    `exits after ${minutes(number('idleExitMs'))} without a request; socket ${String(ok.socket)}`,
    '(--json: every field)',
  ].join('\n');
}

class DaemonError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

function unwrap(reply: DaemonReply): unknown {
  if ('ok' in reply) return reply.ok;
  if ('error' in reply) throw new DaemonError(reply.error.code, reply.error.message);
  throw new DaemonError('INTERNAL', `the daemon answered with version ${reply.mismatch.version}`);
}

/** The stable code of an error from the daemon or from the in-process bundle (another copy of FormatboxError). */
function codeAndMessage(error: unknown): { code: string; message: string } {
  const code = error && typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code in EXIT_CODE_BY_ERROR ? (error as { code: string }).code : 'INTERNAL';
  return { code, message: describe(error) };
}

function printError(error: { code: string; message: string }): number {
  process.stdout.write(JSON.stringify({ error }) + '\n');
  return EXIT_CODE_BY_ERROR[error.code as keyof typeof EXIT_CODE_BY_ERROR] ?? EXIT_INTERNAL;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const [command, ...rest] = process.argv.slice(2);
// The project-wide walk: its own bundle, without the rest of the CLI (it guards stdout itself, once
// native Biome has started: creating the stream is work that can wait).
const projectWide = command === 'format' && !rest.some((arg) => arg === '-h' || arg === '--help' || arg === '--version') && !hasStdinFilepath(rest);
if (!projectWide) quietOnEpipe();
const code = await thinMain(process.argv.slice(2), process.env);
if (code === undefined && projectWide) (await import('./format-main.js')).runFormatMain(rest);
else if (code === undefined) await import('./main.js');
else process.stdout.write('', () => process.exit(code));
