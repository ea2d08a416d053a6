/**
 * `formatbox format PATHS…` (the project-wide mode) as its own bundle (dist/cli-format-main.js): the
 * bin loads it without the rest of the CLI, and formatTree loads the runtime only for a file that
 * neither the cache nor native Biome answers, so a run they answer parses a fraction of the code.
 */
import { resolve } from 'node:path';
import { parseFlags } from './flags.js';
import { checkFormatArgs } from './format-args.js';
import { runFormat } from './format.js';
import { loadUserConfig } from '../node/service/user-config.js';
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
  const root = resolve(flags.root ?? process.cwd());
  const { config } = loadUserConfig(flags.config);
  // Without --root, each file is formatted in its own project root, found as the formatters find it.
  const handlerOptions = { defaultRoot: root, findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) };
  return checkFormatArgs(flags) ?? runFormat(root, flags, handlerOptions);
}
