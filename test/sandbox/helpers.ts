/** Shared setup for the sandbox tests: the real bwrap sandbox, the real rustfmt, and skip rules. */
import { mkdtempSync, realpathSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { detectSandbox } from '../../src/node/sandbox/index.js';
import { resolveRustfmt } from '../../src/node/sandbox/tools.js';
import type { Sandbox } from '../../src/core/sandbox.js';

export const sandbox: Sandbox = detectSandbox();
export const rustfmt = resolveRustfmt();

/**
 * Why these tests cannot run here, or undefined. Outside CI a missing tool skips (and says so);
 * in CI nothing is skipped: the test fails instead.
 */
export function missing(needs: { rustfmt?: boolean } = {}): string | undefined {
  const why = sandbox.unavailable ?? (needs.rustfmt && 'missing' in rustfmt ? rustfmt.missing : undefined);
  if (!why) return undefined;
  if (process.env.CI) throw new Error(`CI must run the sandbox tests: ${why}`);
  console.log(`# skipped: ${why}`);
  return why;
}

/** A temporary project directory with the given files; removed by the returned cleanup. */
export function tempProject(files: Record<string, string>): { root: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'fb-sandbox-test-')));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
