/**
 * The V8 flags each kind of CLI process runs with, set in one place (`useV8Flags`). V8 flags are
 * per process, so a process's format workers share them. None changes what any code computes, only
 * when and how V8 compiles it.
 * - One edit per process (`apply`, `hook`, `format --stdin-filepath`, and their in-process
 *   fallbacks): `--liftoff-only`. V8's optimising tier would compile the large formatter modules
 *   (Biome is 35 MB) again in the background for code that runs once; the baseline tier alone
 *   starts about 30% sooner (bench cli-serve).
 * - The project-wide `format` (bench project, 2,000 files, 2 cores): `--liftoff-only` too (wasm's
 *   optimising tier cost more compile time than it won), and a later, leaner TurboFan for JS:
 *   Prettier's workers spent ~3.5 s of a core each on TurboFan's background compiles, which two
 *   workers on two cores cannot spare. Tiering up ~12× later and inlining less took a run from
 *   ~8.5 s to ~6.5 s of wall time and ~16 s to ~12 s of CPU.
 */
import { setFlagsFromString } from 'node:v8';

export const ONE_EDIT_V8_FLAGS: readonly string[] = ['--liftoff-only'];
export const FORMAT_V8_FLAGS: readonly string[] = [...ONE_EDIT_V8_FLAGS, '--interrupt-budget=800000', '--max-inlined-bytecode-size-cumulative=200'];

/** Sets the flags of a one-edit or project-wide process (a daemon or server sets none: it stays warm and optimises). */
export function useV8Flags(kind: 'one-edit' | 'project-wide'): void {
  for (const flag of kind === 'project-wide' ? FORMAT_V8_FLAGS : ONE_EDIT_V8_FLAGS) setFlagsFromString(flag);
}
