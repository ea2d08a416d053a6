#!/usr/bin/env node
import { isFormatboxError } from '../core/errors.js';
import { EXIT_CODE_BY_ERROR, EXIT_USAGE } from './exit-codes.js';
import { runDemo } from './demo.js';
import type { DoctorReport } from '../node/index.js';

const USAGE = `formatbox — a sandboxed, WebAssembly-first formatter runtime for coding agents

usage:
  formatbox demo                 run the main job on an embedded example
  formatbox doctor [--json]      which formatter each language would use and why, sandbox status, ignored config
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo':
      return runDemo();
    case 'doctor': {
      const { createRuntime } = await import('../node/index.js');
      const runtime = createRuntime({ root: process.cwd() });
      try {
        const report = await runtime.doctor();
        process.stdout.write(rest.includes('--json') ? JSON.stringify(report, null, 2) + '\n' : formatDoctor(report) + '\n');
        return 0;
      } finally {
        await runtime.close();
      }
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return command === undefined ? EXIT_USAGE : 0;
    default:
      process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
      return EXIT_USAGE;
  }
}

function formatDoctor(report: DoctorReport): string {
  const lines = [`formatbox doctor — ${report.root} (trust: ${report.trust})`, '', 'languages:'];
  const width = Math.max(...report.languages.map((l) => l.language.length));
  for (const l of report.languages) {
    lines.push(`  ${l.language.padEnd(width)}  ${l.formatter ? `${l.formatter} — ${l.because ?? ''}` : `not formatted (${l.skipped ?? 'unknown'})`}`);
  }
  lines.push('', `sandbox: ${report.sandbox.available ? 'available' : 'NOT available'} (${report.sandbox.kind}): ${report.sandbox.detail}`);
  for (const s of report.subprocess) lines.push(`  ${s.name}: ${s.available ? '' : 'unavailable: '}${s.detail}`);
  lines.push('', report.ignored.length === 0 ? 'ignored project config: none' : 'ignored project config:');
  for (const item of report.ignored) lines.push(`  ${item.file}: ${item.item} — ${item.reason}`);
  return lines.join('\n');
}

main(process.argv.slice(2)).then(
  (code) => exitWhenFlushed(code),
  (error: unknown) => {
    if (isFormatboxError(error)) {
      process.stderr.write(`formatbox: ${error.message} (${error.code})\n`);
      exitWhenFlushed(EXIT_CODE_BY_ERROR[error.code]);
    } else {
      process.stderr.write(`formatbox: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
      exitWhenFlushed(70);
    }
  },
);

/** Large wasm modules make Node's teardown slow (0.5–0.7 s); exit once output is flushed. */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.exit(code));
}
