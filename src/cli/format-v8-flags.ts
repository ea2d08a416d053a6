/**
 * V8 flags of the project-wide `format` process. V8 flags are per process, so its format workers
 * share them. Neither changes what any code computes, only when and how V8 compiles it. On 2,000
 * files (bench project, 2 cores):
 * - `--liftoff-only`: wasm's optimising tier cost more compile time than it won.
 * - a later, leaner TurboFan for JS: Prettier's workers spent ~3.5 s of a core each on TurboFan's
 *   background compiles, which two workers on two cores cannot spare. Tiering up ~12× later and
 *   inlining less took a run from ~8.5 s to ~6.5 s of wall time and ~16 s to ~12 s of CPU.
 */
export const FORMAT_V8_FLAGS: readonly string[] = ['--liftoff-only', '--interrupt-budget=800000', '--max-inlined-bytecode-size-cumulative=200'];
