/** Temporary file trees for the CLI tests, removed when the test file ends. */
import { after } from 'node:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const bases: string[] = [];
after(() => bases.forEach((b) => rmSync(b, { recursive: true, force: true })));

/** A new directory (real path) holding `files` (relative path → text). */
export function tempTree(prefix: string, files: Record<string, string>): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  bases.push(base);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), text);
  }
  return base;
}
