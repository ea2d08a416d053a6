/** Temporary file trees for the CLI tests, removed when the test file ends. */
import { after } from 'node:test';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTree } from '../write-tree.js';

const bases: string[] = [];
after(() => bases.forEach((b) => rmSync(b, { recursive: true, force: true })));

/** A new directory (real path) holding `files` (see `writeTree`). */
export function tempTree(prefix: string, files: Record<string, string>): string {
  const base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  bases.push(base);
  writeTree(base, files);
  return base;
}
