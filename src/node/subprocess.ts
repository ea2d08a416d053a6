/**
 * The sandboxed subprocess formatters for the Node runtime: built-in rustfmt, the native gofmt,
 * black and clang-format when installed, and user commands (`{command}` choices). Everything runs
 * through the given `Sandbox`; with the `none` sandbox every one of them answers `refused`.
 *
 * Commands named by the repo's own config (a choice carrying `project: {file, sha256}`) are refused
 * in untrusted mode, unless the embedding program passes `approve(command)` and the user says yes;
 * the answer is remembered per command and config-file hash.
 *
 *   const sub = createSubprocessFormatters({ sandbox: detectSandbox(), root });
 *   createEngine({ formatters: [...inProcess, ...sub.adapters], adapterFor: sub.adapterFor, … });
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AdapterRequest, FormatterAdapter, FormatterChoice } from '../core/types.js';
import type { Sandbox } from '../core/sandbox.js';
import { commandFormatter, hasFilePlaceholder, type CommandSpec } from '../formatters/command.js';
import { rustfmtSpec } from '../formatters/rustfmt/command.js';
import { splitCommand } from '../config/user.js';
import { resolveRustfmt, resolveSystemTool, resolveUserBinary, type Resolution, type ResolveEnv } from './sandbox/tools.js';

/** A command named by the repo's own config: where it came from, for approval. */
interface ProjectCommandChoice {
  command: string | string[];
  project: { file: string; sha256: string };
}

export interface ApprovalRequest {
  /** The argv as configured (placeholders unexpanded). */
  command: string[];
  /** Project-relative config file that names it, and that file's sha256. */
  file: string;
  sha256: string;
  /** What approving means, for the prompt. */
  message: string;
}

interface SubprocessOptions {
  sandbox: Sandbox;
  /** Absolute project root: bound read-only; the formatter's working dir is the file's directory in it. */
  root: string;
  /** Default 'untrusted': repo-named commands need `approve`. 'trusted' runs them (still sandboxed). */
  trust?: 'untrusted' | 'trusted';
  /** Asked once per repo-named command and config hash; the answer is remembered. */
  approve?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /** Per run. Default 10000. */
  timeoutMs?: number;
  /** Address-space limit of each formatter process. Default 4 GiB (`DEFAULT_MAX_MEMORY_BYTES`). */
  maxMemoryBytes?: number;
  /** Where to look for binaries; default `process.env` and the user's home. */
  resolve?: ResolveEnv;
}

export interface SubprocessStatus {
  name: string;
  available: boolean;
  /** Where the binary is, or why it is missing/refused. */
  detail: string;
}

export interface SubprocessFormatters {
  /** rustfmt (always listed; answers skipped/refused with the reason when it cannot run) and the installed native tools. */
  adapters: FormatterAdapter[];
  /** For the engine: `{command}` choices (user or repo), and the native names. */
  adapterFor(choice: FormatterChoice, language?: string): FormatterAdapter | undefined;
  /** For doctor(): the sandbox, each built-in subprocess formatter, and repo commands seen so far. */
  status(): SubprocessStatus[];
}

/** Adapter names of the native tools (the plain names belong to the in-process builds). */
const NATIVE_NAMES = { gofmt: 'gofmt-native', black: 'black', clangFormat: 'clang-format-native' } as const;

export function createSubprocessFormatters(options: SubprocessOptions): SubprocessFormatters {
  const { sandbox, root } = options;
  const trust = options.trust ?? 'untrusted';
  const commandOptions = {
    sandbox,
    root,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.maxMemoryBytes ? { maxMemoryBytes: options.maxMemoryBytes } : {}),
  };
  const statuses: SubprocessStatus[] = [];
  const projectCommands = new Map<string, SubprocessStatus>();
  const answers = new Map<string, Promise<boolean>>();

  const adapters: FormatterAdapter[] = [];
  const rustfmt = resolveRustfmt(options.resolve);
  if ('missing' in rustfmt) {
    adapters.push(missingAdapter('rustfmt', ['rust'], rustfmt.missing, sandbox));
    statuses.push({ name: 'rustfmt', available: false, detail: rustfmt.missing });
  } else {
    adapters.push(commandFormatter(rustfmtSpec({ binary: rustfmt.binary, ...(rustfmt.readOnlyPaths ? { readOnlyPaths: rustfmt.readOnlyPaths } : {}) }), commandOptions));
    statuses.push({ name: 'rustfmt', available: !sandbox.unavailable, detail: `${rustfmt.binary} (${rustfmt.source})${sandbox.unavailable ? `; refused: ${sandbox.unavailable}` : ''}` });
  }

  const natives: Array<[string, Resolution, (tool: Extract<Resolution, { binary: string }>) => CommandSpec]> = [
    [NATIVE_NAMES.gofmt, resolveSystemTool('gofmt', options.resolve), gofmtSpec],
    [NATIVE_NAMES.black, resolveSystemTool('black', options.resolve), (tool) => blackSpec(tool, root)],
    [NATIVE_NAMES.clangFormat, resolveSystemTool('clang-format', options.resolve), (tool) => clangFormatSpec(tool, root)],
  ];
  for (const [name, tool, spec] of natives) {
    if ('missing' in tool) {
      statuses.push({ name, available: false, detail: tool.missing });
      continue;
    }
    adapters.push(commandFormatter(spec(tool), commandOptions));
    statuses.push({ name, available: !sandbox.unavailable, detail: `${tool.binary}${sandbox.unavailable ? `; refused: ${sandbox.unavailable}` : ''}` });
  }
  const byName = new Map(adapters.map((a) => [a.name, a]));

  function approvalGate(argv: string[], project: ProjectCommandChoice['project'], status: SubprocessStatus): () => Promise<string | undefined> {
    return async () => {
      if (trust === 'trusted') return undefined;
      if (!options.approve) {
        return `command from the repo's ${project.file} is not run in untrusted mode (no approval callback)`;
      }
      const key = `${project.sha256}\0${JSON.stringify(argv)}`;
      let answer = answers.get(key);
      if (!answer) {
        const message = `${project.file} asks formatbox to run ${JSON.stringify(argv.join(' '))} as a formatter (inside the OS sandbox: no network, read-only project). Allow it?`;
        answer = Promise.resolve()
          .then(() => options.approve!({ command: argv, file: project.file, sha256: project.sha256, message }))
          .then((yes) => yes === true, () => false);
        answers.set(key, answer);
      }
      const yes = await answer;
      status.available = yes;
      status.detail = yes ? `approved: ${argv.join(' ')} from ${project.file}` : `declined: ${argv.join(' ')} from ${project.file}`;
      return yes ? undefined : `the user declined the command from the repo's ${project.file}`;
    };
  }

  function commandAdapter(choice: { command: string | string[] }, language: string | undefined): FormatterAdapter {
    const argv = typeof choice.command === 'string' ? splitCommand(choice.command) : [...choice.command];
    const project = isProjectChoice(choice) ? choice.project : undefined;
    const label = argv.join(' ');
    const name = basename(argv[0] ?? 'command');
    const languages = language ? [language] : [];
    let status: SubprocessStatus | undefined;
    if (project) {
      status = { name: `${label} (${project.file})`, available: false, detail: '' };
      projectCommands.set(`${project.file}\0${label}`, status);
      if (trust !== 'trusted' && !options.approve) status.detail = `refused: command from the repo's ${project.file}; untrusted mode runs none (pass approve() to ask the user)`;
      else status.detail = trust === 'trusted' ? 'trusted mode: runs in the sandbox' : 'asks the user before the first run';
      if (trust === 'trusted') status.available = !sandbox.unavailable;
    }
    if (argv.length === 0) return missingAdapter(name, languages, 'empty command', sandbox);
    const binary = resolveUserBinary(argv[0]!, root, { ...options.resolve, allowInRoot: trust === 'trusted' });
    if ('missing' in binary) {
      if (status) status.detail = binary.missing;
      return missingAdapter(name, languages, binary.missing, sandbox);
    }
    const spec: CommandSpec = {
      name,
      languages,
      argv: [binary.binary, ...argv.slice(1)],
      mode: hasFilePlaceholder(argv) ? 'file' : 'stdin',
      ...(binary.readOnlyPaths ? { readOnlyPaths: binary.readOnlyPaths } : {}),
      version: async () => 'user command',
      ...(project && status ? { gate: approvalGate(argv, project, status) } : {}),
    };
    return commandFormatter(spec, commandOptions);
  }

  return {
    adapters,
    adapterFor(choice, language) {
      if (typeof choice === 'string') return byName.get(choice);
      if ('command' in choice) {
        // A bare native name ("black", "gofmt-native") from the user config means the built-in spec
        // (the right stdin flags), not a command without arguments.
        const argv = typeof choice.command === 'string' ? choice.command.trim().split(/\s+/) : choice.command;
        const native = argv.length === 1 && !isProjectChoice(choice) ? byName.get(argv[0]!) : undefined;
        return native ?? commandAdapter(choice, language);
      }
      return undefined;
    },
    status() {
      return [
        { name: 'sandbox', available: !sandbox.unavailable, detail: sandbox.describe() },
        ...statuses,
        ...projectCommands.values(),
      ];
    },
  };
}

function isProjectChoice(choice: object): choice is ProjectCommandChoice {
  const project = (choice as { project?: unknown }).project;
  return typeof project === 'object' && project !== null && typeof (project as { file?: unknown }).file === 'string' && typeof (project as { sha256?: unknown }).sha256 === 'string';
}

/**
 * An adapter that explains why it cannot run: `refused` when there is no sandbox (that reason comes
 * first: no subprocess formatter runs without one), else `unsupported` (the receipt says `skipped`).
 */
function missingAdapter(name: string, languages: readonly string[], reason: string, sandbox: Sandbox): FormatterAdapter {
  return {
    name,
    via: 'sandbox',
    languages,
    supportsRange: false,
    info: async () => ({ name, version: 'unavailable', via: 'sandbox' }),
    format: async () => (sandbox.unavailable ? { kind: 'refused', reason: sandbox.unavailable } : { kind: 'unsupported', reason }),
  };
}

type Tool = Extract<Resolution, { binary: string }>;

function gofmtSpec(tool: Tool): CommandSpec {
  return {
    name: NATIVE_NAMES.gofmt,
    languages: ['go'],
    argv: [tool.binary],
    mode: 'stdin',
    ...(tool.readOnlyPaths ? { readOnlyPaths: tool.readOnlyPaths } : {}),
    // gofmt has no --version; GOROOT/VERSION names the release (read as data, nothing runs).
    async version() {
      for (const dir of [dirname(dirname(tool.binary)), dirname(dirname(dirname(tool.binary)))]) {
        try {
          return readFileSync(join(dir, 'VERSION'), 'utf8').split('\n')[0]!.trim();
        } catch {
          // try the next layout
        }
      }
      return 'unknown';
    },
  };
}

function blackSpec(tool: Tool, root: string): CommandSpec {
  return {
    name: NATIVE_NAMES.black,
    languages: ['python'],
    argv: [tool.binary, '--quiet', '-'],
    mode: 'stdin',
    ...(tool.readOnlyPaths ? { readOnlyPaths: tool.readOnlyPaths } : {}),
    // The project path lets black find pyproject.toml ([tool.black]) in the read-only project.
    prepare: (request: AdapterRequest) => ({ args: ['--stdin-filename', join(root, request.path)] }),
    errorMessage: (stderr, stdout, code) => {
      const line = stderr.split('\n').find((l) => /^error:/.test(l)) ?? stderr.split('\n').find((l) => l.trim() !== '') ?? stdout.trim().split('\n')[0];
      return (line?.trim() || `exit ${code}`).replace(/^error: cannot format -: /, '').slice(0, 300);
    },
    async version(run) {
      return /black,?\s+(?:version\s+)?(\S+)/.exec((await run([tool.binary, '--version'])) ?? '')?.[1] ?? 'unknown';
    },
  };
}

function clangFormatSpec(tool: Tool, root: string): CommandSpec {
  return {
    name: NATIVE_NAMES.clangFormat,
    languages: ['c', 'cpp', 'java', 'proto', 'csharp'],
    argv: [tool.binary],
    mode: 'stdin',
    ...(tool.readOnlyPaths ? { readOnlyPaths: tool.readOnlyPaths } : {}),
    prepare: (request: AdapterRequest) => {
      const style = typeof request.settings.style === 'string' ? request.settings.style : 'file';
      return { args: [`--assume-filename=${join(root, request.path)}`, `--style=${style}`] };
    },
    async version(run) {
      return /version\s+(\S+)/.exec((await run([tool.binary, '--version'])) ?? '')?.[1] ?? 'unknown';
    },
  };
}
