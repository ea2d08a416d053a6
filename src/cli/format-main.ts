/**
 * `formatbox format PATHS…` (the project-wide mode) as its own bundle (dist/cli-format-main.js): the
 * bin loads it without the rest of the CLI, and formatTree loads the runtime only for a file that
 * neither the cache nor native Biome answers, so a run they answer parses a fraction of the code.
 */
import { resolve } from 'node:path';
import { parseFlags } from './flags.js';
import { existingPaths } from './format-args.js';
import { announceDownloads } from './downloads.js';
import { EXIT_FORMAT_FAILED } from './exit-codes.js';
import { runFormat } from './format.js';
import { loadUserConfig } from '../node/service/user-config.js';
import { flagOverrides } from '../node/service/user-config-path.js';
import { exitWith } from './exit-with.js';
import { useV8Flags } from './v8-flags.js';

/** The bin's entry into this bundle: runs `format` and exits by the exit-code table (this bundle's FormatboxError). */
export function runFormatMain(args: string[]): void {
  exitWith(formatCommand(args));
}

/** `format` without `--stdin-filepath`: parses its options and runs the walk. */
export async function formatCommand(args: string[]): Promise<number> {
  useV8Flags('project-wide');
  const flags = parseFlags(args, { command: 'format' });
  announceDownloads(flags);
  const root = resolve(flags.root ?? process.cwd());
  const { config } = loadUserConfig(flags.config, process.env, flagOverrides(flags));
  // Without --root, each file is formatted in its own project root, found as the formatters find it.
  const handlerOptions = { defaultRoot: root, findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) };
  const { paths, missing } = existingPaths(flags);
  if (paths.length === 0) return EXIT_FORMAT_FAILED;
  // No mode: report, never write (biome format's default); -l lists without writing unless -w.
  const code = await runFormat(root, { ...flags, positional: paths, check: flags.check || !flags.write }, handlerOptions);
  return missing > 0 ? Math.max(code, EXIT_FORMAT_FAILED) : code;
}
