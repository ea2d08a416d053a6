#!/usr/bin/env node
import { shownPath, shownText } from '../core/shown.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { FormatboxError, isFormatboxError, messageOf } from '../core/errors.js';
import { EXIT_CODE_BY_ERROR, EXIT_INTERNAL, EXIT_USAGE } from './exit-codes.js';
import { exitWith } from './exit-with.js';
import { runDemo } from './demo.js';
import { closest, hasStdinFilepath, parseFlags, type Flags } from './flags.js';
import { formatCommand } from './format-main.js';
import { hookAgentNames, hookOf } from '../agents/registry.js';
import { answerLine, createRequestHandler, errorReply, type HandlerOptions } from '../node/service/requests.js';
import { loadUserConfig } from '../node/service/user-config.js';
import { flagOverrides } from '../node/service/user-config-path.js';
import { connectHandler, serveSocket } from './socket.js';
import type { DoctorReport } from '../node/index.js';
import { COMMAND_HELP, USAGE } from './help.js';
import { formatboxBuildId, formatboxVersion } from '../node/version.js';
import { doctorLanguageLabel } from '../agents/shared/doctor-label.js';
import { stdinRequest, writeStdinResult } from './format-args.js';
import { DEFAULT_IDLE_MS, runDaemon } from './daemon-server.js';
import { daemonPaths } from './daemon-paths.js';
import { quietOnEpipe } from './epipe.js';
import { useV8Flags } from './v8-flags.js';
import { announceDownloads } from './downloads.js';
import { resolveLimits } from '../config/limits.js';
import type { Receipt } from '../core/types.js';
import type { HookTranslation } from '../agents/module.js';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(USAGE);
    return command === undefined ? EXIT_USAGE : 0;
  }
  if (command === '--version' || command === '-v' || command === '-V' || command === 'version') {
    process.stdout.write(`${formatboxVersion()}\n`);
    return 0;
  }
  if (command === 'help') return helpCommand(rest[0]);
  if (!Object.hasOwn(COMMAND_HELP, command)) return unknownCommand(command);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${COMMAND_HELP[command]}\n`);
    return 0;
  }
  if (command === 'demo') return runDemo();
  if (command === 'hook') return runHookNeverFailing(rest);
  if (command === 'daemon' && rest[0] === 'run') return runDaemonCommand(parseFlags(rest.slice(1), { command }));
  if (command === 'mcp') return (await import('./mcp.js')).runMcp(parseFlags(rest, { command }));
  if (command === 'init') return (await import('./init.js')).runInit(rest);
  if (command === 'format' && !hasStdinFilepath(rest)) return formatCommand(rest);
  if (command === 'apply' || command === 'format') useV8Flags('one-edit');
  const flags = parseFlags(rest, { command });
  announceDownloads(flags);
  const root = resolve(flags.root ?? process.cwd());
  const { config } = loadUserConfig(flags.config, process.env, flagOverrides(flags));
  // Without --root, each request runs in its file's project root, found as the formatters find it.
  const handlerOptions = { defaultRoot: root, findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) };
  // Paths a person names (`doctor PATH`, `--stdin-filepath`) find their own project wherever the command runs.
  const namedOptions = { ...handlerOptions, namedPaths: true };
  switch (command) {
    case 'doctor': {
      const handler = createRequestHandler(namedOptions);
      try {
        const path = flags.positional[0];
        if (path !== undefined && !existsSync(resolve(path))) throw new FormatboxError('INVALID_REQUEST', `${shownPath(path)}: no such file or directory`);
        const report = (await handler.handle({ method: 'doctor', ...(path !== undefined ? { path } : {}) })) as DoctorReport;
        const agents = (await import('./init.js')).agentsSetUp();
        process.stdout.write(flags.json ? JSON.stringify({ ...report, agents }, null, 2) + '\n' : `${formatDoctor(report, flags.verbose)}\n\n${formatAgents(agents)}\n`);
        return 0;
      } finally {
        await handler.close();
      }
    }
    case 'apply':
      return runApply(handlerOptions);
    case 'serve':
      if (flags.socket) {
        const handler = createRequestHandler(handlerOptions);
        try {
          await serveSocket(resolve(flags.socket), handler);
          return 0;
        } finally {
          await handler.close();
        }
      }
      return runServe(handlerOptions);
    case 'format':
      return runFormatStdin(root, flags.stdinFilepath!, namedOptions);
    case 'daemon':
      process.stderr.write(`${COMMAND_HELP.daemon}\n`);
      return EXIT_USAGE;
    default:
      return unknownCommand(command);
  }
}

/** `formatbox help [COMMAND]`: the overview, or one command's usage. */
function helpCommand(topic: string | undefined): number {
  if (topic === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!Object.hasOwn(COMMAND_HELP, topic)) return unknownCommand(topic);
  process.stdout.write(`${COMMAND_HELP[topic]}\n`);
  return 0;
}

/** One line with the nearest command, as biome's "did you mean" (not the whole help). */
function unknownCommand(command: string): number {
  const near = closest(command, [...Object.keys(COMMAND_HELP), 'help', 'version']);
  process.stderr.write(`formatbox: unknown command ${shownText(JSON.stringify(command))}${near ? `; did you mean ${near}?` : ''}\nRun formatbox help for the commands.\n`);
  return EXIT_USAGE;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `apply --json`: one request, one receipt. A failed request prints `{error: {code, message}}` and exits by the table. */
async function runApply(options: HandlerOptions): Promise<number> {
  const handler = createRequestHandler(options);
  let request: unknown;
  try {
    try {
      request = JSON.parse(await readStdin());
    } catch (error) {
      throw new FormatboxError('INVALID_REQUEST', `stdin is not one JSON request: ${messageOf(error)}`);
    }
    const result = await handler.handle(request);
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } catch (error) {
    const reply = errorReply(undefined, error);
    process.stdout.write(JSON.stringify(reply) + '\n');
    return isFormatboxError(error) ? EXIT_CODE_BY_ERROR[error.code] : EXIT_INTERNAL;
  } finally {
    await handler.close();
  }
}

/**
 * `serve`: JSON lines. Requests are answered in order, one line each: the receipt with the request's
 * `id`, or `{id, error: {code, message}}`. A bad line never stops the server; end of input does.
 */
async function runServe(options: HandlerOptions): Promise<number> {
  const handler = createRequestHandler(options);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() !== '') await writeLine(await answerLine(line, handler));
    }
    return 0;
  } finally {
    await handler.close();
  }
}

function writeLine(value: unknown): Promise<void> {
  return new Promise((done) => process.stdout.write(JSON.stringify(value) + '\n', () => done()));
}

/** `format --stdin-filepath PATH` in this process. */
async function runFormatStdin(root: string, stdinFilepath: string, options: HandlerOptions): Promise<number> {
  const text = await readStdin();
  const handler = createRequestHandler(options);
  try {
    return writeStdinResult((await handler.handle(stdinRequest(root, stdinFilepath, text))) as Receipt, text);
  } finally {
    await handler.close();
  }
}

/** `daemon run`: the per-user daemon in the foreground (the thin client starts it detached). */
async function runDaemonCommand(flags: Flags): Promise<number> {
  const envIdle = Number(process.env.FORMATBOX_DAEMON_IDLE_MS);
  const idleMs = flags.idleMs ?? (Number.isFinite(envIdle) && envIdle > 0 ? envIdle : DEFAULT_IDLE_MS);
  if (!Number.isFinite(idleMs) || idleMs <= 0) throw new FormatboxError('INVALID_REQUEST', '--idle-ms needs a positive number');
  const maxRssMb = Number(process.env.FORMATBOX_DAEMON_MAX_RSS_MB);
  await runDaemon({ socket: resolve(flags.socket ?? daemonPaths().socket), version: formatboxVersion(), build: formatboxBuildId(), idleMs, ...(Number.isFinite(maxRssMb) && maxRssMb > 0 ? { maxRssMb } : {}) });
  return 0;
}

/**
 * The hook in this process: it always exits 0, whatever the input, flags or config (Claude Code
 * treats exit 2 as a blocking error on every edit). Problems go to stderr.
 */
async function runHookNeverFailing(rest: string[]): Promise<number> {
  try {
    useV8Flags('one-edit');
    const flags = parseFlags(rest, { command: 'hook', unknown: 'collect' });
    for (const option of flags.unknown) process.stderr.write(`formatbox: hook: ignoring unknown option ${option}\n`);
    const hook = hookOf(flags.positional[0]);
    if (!hook) throw new FormatboxError('INVALID_REQUEST', `usage: formatbox hook ${hookAgentNames().join('|')}`);
    const { config } = loadUserConfig(flags.config);
    const options = { defaultRoot: resolve(flags.root ?? process.cwd()), ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) };
    return await runHook(hook, options, flags.socket ?? process.env.FORMATBOX_SOCKET);
  } catch (error) {
    process.stderr.write(`formatbox: hook: ${messageOf(error)}${isFormatboxError(error) ? ` (${error.code})` : ''}\n`);
    return 0;
  }
}

/** With a socket that answers, the warm server formats; otherwise this process does (cold). */
async function runHook(hook: HookTranslation, options: HandlerOptions, socket: string | undefined): Promise<number> {
  const handler = (socket ? await connectHandler(resolve(socket)) : undefined) ?? createRequestHandler(options);
  try {
    let event: unknown;
    try {
      event = JSON.parse(await readStdin());
    } catch {
      return 0; // Not a hook event: say nothing, never fail the edit.
    }
    const projectDir = process.env.CLAUDE_PROJECT_DIR || undefined;
    const output = await hook(event, { handler, cwd: process.cwd(), ...(projectDir ? { projectDir } : {}), maxDiffChars: resolveLimits(options.config).maxDiffChars });
    if (output) process.stdout.write(JSON.stringify(output) + '\n');
    return 0;
  } finally {
    await handler.close();
  }
}

function formatAgents(agents: Array<{ agent: string; setup: string[] }>): string {
  const lines = ['agents:'];
  for (const { agent, setup } of agents) {
    if (setup.length === 0) lines.push(`  ${agent}: not set up (formatbox init ${agent})`);
    else for (const where of setup) lines.push(`  ${agent}: ${where}`);
  }
  return lines.join('\n');
}

/** Doctor's text: every reason and detail escaped (they may quote config or a tool's output: core/shown.ts). */
function formatDoctor(report: DoctorReport, verbose: boolean): string {
  return shownText(doctorLines(report, verbose).join('\n'), { multiline: true });
}

/**
 * The languages the project formats, each with its formatter and why; the languages it does not, one
 * line per reason (--verbose or --json: each language).
 */
function doctorLines(report: DoctorReport, verbose: boolean): string[] {
  const lines = [`formatbox doctor — ${report.root}${report.dir ? ` (for files in ${shownPath(report.dir)}/)` : ''} (trust: ${report.trust})`, '', 'languages:'];
  const listed = verbose ? report.languages : report.languages.filter((l) => l.formatter);
  const width = Math.max(0, ...listed.map((l) => doctorLanguageLabel(l).length));
  for (const l of listed) {
    const why = l.languageFrom ? `; ${l.languageFrom}` : '';
    lines.push(`  ${doctorLanguageLabel(l).padEnd(width)}  ${l.formatter ? `${l.formatter} — ${l.because ?? ''}${why}` : `not formatted (${l.skipped ?? 'unknown'}${why})`}`);
  }
  if (!verbose) {
    const byReason = new Map<string, string[]>();
    for (const l of report.languages) {
      if (l.formatter) continue;
      // The reason without its per-language detail, so languages skipped alike share a line.
      const reason = (l.skipped ?? 'unknown').replace(/: the project declares no formatter for .*$/, '');
      byReason.set(reason, [...(byReason.get(reason) ?? []), doctorLanguageLabel(l)]);
    }
    if (listed.length === 0) lines.push('  none: nothing in this project declares a formatter (--mode always formats with language defaults)');
    for (const [reason, labels] of byReason) lines.push(`  not formatted (${reason}): ${labels.length === 1 ? '1 language' : `${labels.length} languages`} — ${labels.join(', ')} (--verbose: each)`);
  }
  lines.push('', report.versions.length === 0 ? 'versions: the project pins no formatter version' : 'versions (pinned / where read / will run):');
  // Versions and sources are read from the repo: shown escaped.
  for (const v of report.versions) lines.push(`  ${v.formatter}${v.forFilesUnder !== undefined ? ` (files under ${shownPath(v.forFilesUnder)}/)` : ''}: ${shownPath(v.pinned)} / ${shownPath(v.pinnedIn)} / ${v.willRun ?? 'none'}${v.matches ? '' : ' (NOT the pinned version)'} — ${shownPath(v.detail)}`);
  lines.push('', `sandbox: ${report.sandbox.available ? 'available' : 'NOT available'} (${report.sandbox.kind}): ${report.sandbox.detail}`);
  // The sandbox's own row repeats the line above.
  for (const s of report.subprocess) if (s.name !== 'sandbox') lines.push(`  ${s.name}: ${s.available ? '' : 'unavailable: '}${s.detail}`);
  lines.push('', report.ignored.length === 0 ? 'ignored project config: none' : 'ignored project config:');
  // Names and items come from the repo: shown escaped, like every path (core/shown.ts).
  for (const item of report.ignored) lines.push(`  ${shownPath(item.file)}: ${shownPath(item.item)} — ${item.reason}`);
  if (report.wasm.length > 0) lines.push('', 'wasm modules named by config:');
  for (const m of report.wasm) lines.push(`  ${shownPath(m.namedBy)}: ${shownPath(m.path)} (${m.kind}) ${m.sha256 ? `sha256 ${m.sha256} ${m.bytes} bytes` : ''}${m.refused ? ` — not run: ${m.refused}` : ''}`);
  return lines;
}

quietOnEpipe();
exitWith(main(process.argv.slice(2)));
