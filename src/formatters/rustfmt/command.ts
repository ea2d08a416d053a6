/**
 * rustfmt as a data spec on top of `command.ts`: a stdin→stdout filter, run through the sandbox.
 * Settings come from config.ts (index.ts `settings`) as `{ edition, configText? }` (Cargo.toml's edition, the nearest
 * rustfmt.toml read as data). The config text is handed over as a read-only file in the scratch
 * space and passed with `--config-path` (an empty one when the project has none, so rustfmt never
 * finds a config file by itself); the result equals rustfmt run on the file in the project.
 *
 * `binary` must be the real toolchain binary, never the rustup proxy (which reads the repo's
 * rust-toolchain file and can be redirected to any binary); the Node side resolves it.
 */
import type { AdapterRequest } from '../../core/types.js';
import type { CommandSpec, PreparedArgs } from '../command.js';

export interface RustfmtLocation {
  /** Absolute path of the real rustfmt binary. */
  binary: string;
  /** What it needs from outside /usr (the binary, its libraries), bound read-only. Absent for a system rustfmt under /usr. */
  readOnlyPaths?: readonly string[];
}

const EDITIONS = new Set(['2015', '2018', '2021', '2024']);

export function rustfmtSpec(location: RustfmtLocation): CommandSpec {
  return {
    name: 'rustfmt',
    languages: ['rust'],
    argv: [location.binary, '--emit', 'stdout', '--color', 'never'],
    mode: 'stdin',
    ...(location.readOnlyPaths ? { readOnlyPaths: location.readOnlyPaths } : {}),
    prepare: rustfmtArgs,
    errorMessage: rustfmtError,
    async version(run) {
      const out = await run([location.binary, '--version']);
      // "rustfmt 1.9.0-stable (59807616e1 2026-04-14)"
      return /rustfmt\s+(\S+)/.exec(out ?? '')?.[1] ?? 'unknown';
    },
  };
}

/**
 * `--edition` from settings (default 2021), and `--config-path` to the sanitised rustfmt.toml text,
 * or to an empty file when there is none, so rustfmt never picks up a config file by itself.
 */
export function rustfmtArgs(request: AdapterRequest): PreparedArgs {
  const edition = request.settings.edition === undefined ? '2021' : String(request.settings.edition);
  if (!EDITIONS.has(edition)) return { error: `unknown Rust edition ${JSON.stringify(edition)}` };
  const configText = typeof request.settings.configText === 'string' ? request.settings.configText : '';
  return {
    args: ['--edition', edition, '--config-path', '{data:rustfmt.toml}'],
    data: [{ name: 'rustfmt.toml', content: new TextEncoder().encode(configText) }],
  };
}

/** rustfmt's first `error…` line, with the `--> <stdin>:line:col` location when it gives one. */
export function rustfmtError(stderr: string, stdout: string, exitCode: number): string {
  const lines = stderr.split('\n');
  const index = lines.findIndex((l) => /^error/.test(l.trim()));
  if (index < 0) {
    const first = [...lines, ...stdout.split('\n')].map((l) => l.trim()).find((l) => l !== '');
    return (first ?? `exit ${exitCode}`).slice(0, 300);
  }
  const message = lines[index]!.trim();
  const at = lines.slice(index + 1, index + 4).map((l) => /-->\s*<stdin>:(\d+:\d+)/.exec(l)?.[1]).find(Boolean);
  return `${message}${at ? ` at ${at}` : ''}`.slice(0, 300);
}
