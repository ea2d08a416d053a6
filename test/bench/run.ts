/**
 * `npm run bench`: every benchmark, one after another, each in its own process so one's warm
 * wasm or heap does not help or hurt the next. Each compares against its anchors in the same run
 * (bare formatter call, unsandboxed rustfmt, jsdiff, the other TOML candidates, the native Biome
 * CLI per edit) and prints ratios;
 * absolute times on shared machines are noisy.
 *
 *   npm run bench [-- name …]      names: runtime-latency, reconcile-diff, sandbox-overhead, toml-choice, wasi-choice, sql-choice, php-choice, cli-serve, per-edit, delivery, config-watch
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const BENCHES: Record<string, string[]> = {
  'runtime-latency': ['test/bench/runtime-latency.ts', '40'],
  'reconcile-diff': ['test/bench/reconcile-diff.ts'],
  'sandbox-overhead': ['test/bench/sandbox-overhead.ts', '--rounds', '5'],
  'toml-choice': ['test/bench/toml-choice.ts', '--runs', '5', '--budget-ms', '60000'],
  'wasi-choice': ['test/bench/wasi-choice.ts', '--runs', '50'],
  'sql-choice': ['test/bench/sql-choice.ts'],
  'php-choice': ['test/bench/php-choice.ts'],
  'cli-serve': ['test/bench/cli-serve.ts', '20'],
  delivery: ['test/bench/delivery.ts', '--runs', '10'],
  'per-edit': ['test/bench/per-edit.ts', '20'],
  'config-watch': ['test/bench/config-watch.ts', '20000'],
};

const root = fileURLToPath(new URL('../..', import.meta.url));
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
let failed = 0;
for (const [name, args] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n## ${name}   (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.log(`(${name} exited with ${run.status ?? run.signal})`);
  }
}
process.exit(failed === 0 ? 0 : 1);
