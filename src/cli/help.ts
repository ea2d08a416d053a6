/**
 * `formatbox <command> --help`: one usage text per command, and `formatbox --help` (USAGE) made from
 * their usage lines. The common options and the exit codes are rendered from their tables
 * (flags.ts, exit-codes.ts), so no text repeats another.
 */
import { exitCodesHelp } from './exit-codes.js';
import { commonOptionsHelp } from './flags.js';

const COMMON = commonOptionsHelp();

export const COMMAND_HELP: Readonly<Record<string, string>> = {
  apply: `usage: formatbox apply --json

One request {root?, path, input, prior?} on stdin, one receipt (JSON) on stdout. Without "prior"
formatbox performs the edit; with "prior" (null for a new file) the caller already wrote the file.
The per-user daemon does the work (started on first use) unless --no-daemon.

${COMMON}`,
  serve: `usage: formatbox serve [--socket PATH]

JSON lines: one request per line on stdin, one receipt per line on stdout; the wasm stays warm.
With --socket, on a Unix socket (mode 0600) instead, in a directory of yours with mode 0700 (it must
exist); only clients that prove they run as you (a per-user secret beside the socket) are answered.

${COMMON}`,
  format: `usage: formatbox format [-c|-w|-l] [-u] [--json] [--verbose] [--threads N] [--no-cache] [--no-native] [--ignore-path FILE] [PATHS…]
       formatbox format --stdin-filepath PATH

Checks files and directories (default: the working directory) and reports what would change
(-c/--check, the default; exit 1), or formats them in place (-w/--write). -l/--list-different prints
only the paths of files that differ. Each path finds its own project (the nearest VCS root, else the
nearest formatter config), wherever the command runs. Files that were or would be reformatted are
listed on stdout; a file's problem goes to stderr as "error: PATH: MESSAGE"; one summary line ends
the run (--verbose: timings, threads, cache, native Biome, what was not walked; --log-level
silent|error|warn|log|debug). A named path that does not exist is reported and the rest still run
(exit 2). A file named on its own that nothing formats is said (-u/--ignore-unknown: silently).
A file over its time budget (--timeout-ms) is formatted again, alone, with three times it before it
counts as timed out. Colour on a terminal, none with NO_COLOR, --no-color or a pipe.
--json prints one line per file; under --check a file that would change says "would-change", and a
final {"summary": …} line ends the output.
Directories are walked honouring .gitignore files at every level, .git/info/exclude and each
--ignore-path FILE (gitignore syntax, patterns relative to the root); no symlink is followed out of
the root. --threads N: worker threads (default one per 250 files to format, at most one per
core). A cache of files known formatted (keyed by content, formatter and effective config) skips
them; --no-cache turns it off. Files Biome formats under one root biome.json are checked first by
formatbox's own native Biome build, once, in the OS sandbox; the files it does not find formatted go
on to Biome's wasm build. --no-native turns that off. Named files (no --json and none of these
options) go through the per-user daemon.
--stdin-filepath PATH (also --stdin-file-path) formats stdin as if it were PATH and prints the
result, as prettier and biome do; exit 2 when it cannot be formatted (syntax error).
Every option takes its value as --x VALUE or --x=VALUE.

${COMMON}`,
  hook: `usage: formatbox hook claude-code|codex|copilot|gemini|cline|qwen [--socket PATH] [--http-port N]

Claude Code's PreToolUse and PostToolUse hook for Edit and Write (and MultiEdit, in versions that
have it), or Codex's PostToolUse hook for its apply_patch. It reads the event on stdin. Before the
write (acceptEdits and bypassPermissions modes) it prints hookSpecificOutput.updatedInput, the edit
rewritten to write the formatted file; after the write it prints additionalContext when the
formatter changed the file. copilot, gemini and cline: their pre-tool hooks rewrite an edit to write
the formatted text, their post-tool hooks format what passed through; qwen: its PostToolUse hook
(docs/agents-hook-clis.md). It always exits 0: problems go to stderr. On a SessionStart event it starts the daemon,
which then serves Claude Code's http hook on 127.0.0.1:N for the session ($FORMATBOX_HOOK_SECRET).
The per-user daemon formats (started on first use); with --socket (or
$FORMATBOX_SOCKET) a server started with serve --socket does, when its socket is yours (0600, in a
0700 directory of yours) and it proves it runs as you; otherwise the hook formats in its process.

${COMMON}`,
  daemon: `usage: formatbox daemon status|stop|run [--json]

The per-user daemon that apply, hook and format --stdin-filepath start on first use. Its socket is
in $XDG_RUNTIME_DIR/formatbox (else <tmpdir>/formatbox-<uid>), a directory that must be yours with
mode 0700. It exits after 15 minutes without a request ($FORMATBOX_DAEMON_IDLE_MS, or run --idle-ms).
  status   is one running, its version, pid, uptime (exit 1 when none); --json: every field
  stop     stop it
  run      run it in the foreground (what the clients start)`,
  mcp: `usage: formatbox mcp [--root DIR]

An MCP server on stdio with the tools edit, multi_edit, write, apply_patch, format and doctor. The
root is the client's first root (roots/list), else --root, else each file's project root (the
nearest VCS root, else the nearest formatter config).

${COMMON}`,
  doctor: `usage: formatbox doctor [--json] [PATH]

Which formatter each language would use for files in PATH (a directory or file; default: the working
directory) and why, as format would decide in PATH's project; sandbox status, ignored config; and
which agents (Claude Code, Codex, opencode, Cursor) are set up to use formatbox, where and how.

${COMMON}`,
  init: `usage: formatbox init claude-code|codex|opencode|cursor|copilot|gemini|cline|qwen [--user|--project] [--dry-run] [--bin CMD]
       formatbox init claude-code [--command] [--port N] [--mcp]

Writes the setup the agent needs, merged into its config files: nothing the user set is replaced,
each change is shown as a diff, and a second run changes nothing. See docs/agents.md.`,
  demo: `usage: formatbox demo

Runs the main job on an embedded example.`,
};

/** What each command is for, in one line of `formatbox --help`. */
const SUMMARIES: Readonly<Record<string, string>> = {
  apply: 'one request {root?, path, input, prior?} on stdin → one receipt (JSON) on stdout',
  serve: 'JSON lines: one request per line → one receipt per line; wasm stays warm',
  format: 'report what would change in files and directories (--check, the default) or format them (--write)',
  hook: 'PostToolUse hook for Claude Code (Edit, Write, MultiEdit) or Codex (apply_patch)',
  daemon: 'the per-user daemon that apply, hook and --stdin-filepath start on first use',
  mcp: 'an MCP server on stdio: edit, multi_edit, write, apply_patch, format, doctor',
  doctor: 'which formatter each language would use in PATH and why, sandbox, ignored config, agents set up',
  init: 'set up claude-code, codex, opencode or cursor (merges into its config, shows the diff)',
  demo: 'run the main job on an embedded example',
};

/** `formatbox --help`: every command's usage lines with what it is for, the common options, the exit codes. */
export const USAGE = [
  'formatbox — a sandboxed, WebAssembly-first formatter runtime for coding agents',
  '',
  'usage:',
  ...Object.entries(COMMAND_HELP).flatMap(([command, text]) => [
    ...text.split('\n').filter((line) => /^(usage: | {7})formatbox /.test(line)).map((line) => `  ${line.replace(/^usage: |^ {7}/, '')}`),
    `      ${SUMMARIES[command] ?? ''}`,
  ]),
  '  formatbox --version; formatbox help [COMMAND] (or COMMAND --help): that command\'s usage',
  '',
  COMMON,
  '',
  exitCodesHelp(),
  '',
].join('\n');
