/**
 * `npm run bench`: every benchmark, one after another, each in its own process so one's warm
 * wasm or heap does not help or hurt the next. Each compares against its anchors in the same run
 * (bare formatter call, unsandboxed rustfmt, jsdiff, the other TOML candidates, the native Biome
 * CLI per edit, native Biome and Prettier on a whole project) and prints ratios; absolute times on
 * shared machines are noisy.
 *
 * Each records its measurements with `recordResult` (report.ts) in bench/results.json; at the end
 * this writes bench/results.md (table) and bench/results.svg (chart), which docs and the README link.
 *
 *   npm run bench [-- name … [options for them]] [-- --quick]
 *   names: runtime-latency, reconcile-diff, sandbox-overhead, toml-choice, wasi-choice, sql-choice,
 *          php-choice, cli-serve, per-edit,
 *          delivery, footprint, config-watch, daemon-bounds, agents, agent-plugins, wasm-strip, write-floor, pinned-versions,
 *          project-toolchain,
 *          project (then project-scale: `--sizes 2000,10000,30000`, `--tools biome,prettier`,
 *          `--states unformatted,formatted`)
 *   --quick: fewer runs and a smaller project, benchmarks without a quick mode left out (< 60 s);
 *            their records are marked "(quick)".
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { renderReport, RESULTS_DIR } from './report.js';

interface Bench {
  args: string[];
  /** Run after `args`, in its own process (with the same extra options). */
  then?: string[];
  /** Arguments for --quick; without them the benchmark is left out of a quick run. */
  quick?: string[];
}

const BENCHES: Record<string, Bench> = {
  'runtime-latency': { args: ['test/bench/runtime-latency.ts', '100'], quick: ['test/bench/runtime-latency.ts', '8'] },
  'reconcile-diff': { args: ['test/bench/reconcile-diff.ts'] },
  'sandbox-overhead': { args: ['test/bench/sandbox-overhead.ts', '--rounds', '5'] },
  'toml-choice': { args: ['test/bench/toml-choice.ts', '--runs', '5', '--budget-ms', '60000'] },
  'wasi-choice': { args: ['test/bench/wasi-choice.ts', '--runs', '50'] },
  'sql-choice': { args: ['test/bench/sql-choice.ts'] },
  'php-choice': { args: ['test/bench/php-choice.ts'] },
  'cli-serve': { args: ['test/bench/cli-serve.ts', '20'], quick: ['test/bench/cli-serve.ts', '2'] },
  delivery: { args: ['test/bench/delivery.ts', '--runs', '10'] },
  footprint: { args: ['test/bench/footprint.ts', '--runs', '5'] },
  'per-edit': { args: ['test/bench/per-edit.ts', '20'] },
  'config-watch': { args: ['test/bench/config-watch.ts', '20000'] },
  'daemon-bounds': { args: ['test/bench/daemon-bounds.ts', '--roots', '1000', '--configs', '20'], quick: ['test/bench/daemon-bounds.ts', '--roots', '20', '--configs', '20'] },
  project: { args: ['test/bench/project.ts'], quick: ['test/bench/project.ts', '--quick', '--files', '80'], then: ['test/bench/project-scale.ts'] },
  agents: { args: ['test/bench/agents.ts', '12'], quick: ['test/bench/agents.ts', '4'] },
  'agent-plugins': { args: ['test/bench/agent-plugins.ts', '20'], quick: ['test/bench/agent-plugins.ts', '5'] },
  'wasm-strip': { args: ['test/bench/wasm-strip.ts'] },
  'write-floor': { args: ['test/bench/write-floor.ts', '--rounds', '5'], quick: ['test/bench/write-floor.ts', '--files', '300', '--rounds', '1'] },
  'pinned-versions': { args: ['test/bench/pinned-versions.ts', '30'], quick: ['test/bench/pinned-versions.ts', '5'] },
  'project-toolchain': { args: ['test/bench/project-toolchain.ts', '--rounds', '20', '--files', '120'], quick: ['test/bench/project-toolchain.ts', '--rounds', '6', '--files', '40'] },
};

const root = fileURLToPath(new URL('../..', import.meta.url));
const quick = process.argv.includes('--quick');
// Names come first; options after them (other than --quick) go to the benchmarks named, e.g.
// `npm run bench -- project --sizes 2000,10000`.
const firstOption = process.argv.slice(2).findIndex((a) => a.startsWith('-') && a !== '--quick');
const wanted = process.argv.slice(2, firstOption < 0 ? undefined : 2 + firstOption).filter((a) => !a.startsWith('-'));
const passed = firstOption < 0 ? [] : process.argv.slice(2 + firstOption).filter((a) => a !== '--quick');
const started = performance.now();
let failed = 0;
for (const [name, bench] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const args = quick ? bench.quick : bench.args;
  if (!args) {
    console.log(`\n## ${name}: no quick mode, left out (its last full results stay in the report)`);
    continue;
  }
  console.log(`\n## ${name}   (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
  for (const part of quick || !bench.then ? [args] : [args, bench.then]) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', ...part, ...passed], { cwd: root, stdio: 'inherit', env: { ...process.env, ...(quick ? { FORMATBOX_BENCH_QUICK: '1' } : {}) } });
    if (run.status !== 0) {
      failed++;
      console.log(`(${name} exited with ${run.status ?? run.signal})`);
    }
  }
}
renderReport();
console.log(`\nreport: ${RESULTS_DIR}/results.json, results.md, results.svg (${((performance.now() - started) / 1000).toFixed(0)} s)`);
process.exit(failed === 0 ? 0 : 1);
