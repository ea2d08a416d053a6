/**
 * `formatbox format PATHS…` (the project-wide mode) as its own bundle (dist/cli-format-main.js): the
 * bin loads it without the rest of the CLI, and format.ts loads the runtime only for a file that
 * neither the cache nor native Biome answers, so a run they answer parses a fraction of the code.
 */
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { parseFlags } from './flags.js';
import { checkFormatArgs } from './format-args.js';
import { runFormat, takeFormatOptions } from './format.js';
import { loadUserConfig } from './user-config.js';
import { exitWith } from './exit-with.js';

/** The bin's entry into this bundle: runs `format` and exits by the exit-code table (this bundle's FormatboxError). */
export function runFormatMain(args: string[]): void {
  exitWith(formatCommand(args));
}

/** `format` without `--stdin-filepath`: parses its options and runs the walk. */
export async function formatCommand(args: string[]): Promise<number> {
  // V8 flags are per process, so the format workers share them. On 2,000 files:
  // - wasm: the optimising tier's compile cost more than it won;
  // - JS (Prettier): TurboFan's background compiles took ~3.5 s of a core per worker, which two
  //   workers on two cores cannot spare; tiering up ~12× later cut a run from ~8.5 s to ~6.0 s of
  //   wall time and ~16 s to ~11 s of CPU (bench project). Neither flag changes what code computes.
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--interrupt-budget=800000');
  const formatOnly = takeFormatOptions(args);
  const flags = parseFlags(formatOnly.args);
  const root = resolve(flags.root ?? process.cwd());
  const { config } = loadUserConfig(flags.config);
  // Without --root, each file is formatted in its own project root, found as the formatters find it.
  const handlerOptions = { defaultRoot: root, findRoot: flags.root === undefined, ...(config ? { config } : {}), ...(flags.trusted ? { trust: 'trusted' as const } : {}) };
  return checkFormatArgs(flags) ?? runFormat(root, flags, handlerOptions, formatOnly.options);
}
