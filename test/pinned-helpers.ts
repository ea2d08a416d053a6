// Helpers of the pinned-version tests: the real corpus they format, and a fetch from the real
// registry that only a machine without it may skip (CI reaches the registry).
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeTree } from './write-tree.js';
import { fileURLToPath } from 'node:url';
import type { FormatterStore, StoredPackage } from '../src/node/formatter-store/store.js';

const repo = fileURLToPath(new URL('..', import.meta.url));

function sources(dir: string, extension: string, limit: number): string[] {
  const out: string[] = [];
  const walk = (current: string): void => {
    for (const name of readdirSync(current).sort()) {
      if (out.length >= limit) return;
      const full = join(current, name);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else if (name.endsWith(extension) && !name.endsWith('.d.ts') && stat.size < 16 * 1024) out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** Real TS (rxjs's sources) and JS (the MCP SDK's ESM build) files from installed packages, under 16 KiB each. */
export const PINNED_CORPUS: readonly string[] = [...sources(join(repo, 'node_modules/rxjs/src'), '.ts', 140), ...sources(join(repo, 'node_modules/@modelcontextprotocol/sdk/dist/esm'), '.js', 90)];

/** Real Markdown: the READMEs of installed packages, under 16 KiB each (prose and embedded code change between Prettier versions). */
export const PINNED_MARKDOWN: readonly string[] = readdirSync(join(repo, 'node_modules'))
  .sort()
  .map((name) => join(repo, 'node_modules', name, 'README.md'))
  .filter((file) => {
    try {
      return statSync(file).size < 16 * 1024;
    } catch {
      return false;
    }
  })
  .slice(0, 40);

/** `store.fetch`, or undefined after skipping `t` when the registry is not reachable outside CI. */
export async function fetchOrSkip(t: { skip: (message: string) => void }, store: FormatterStore, name: string, version: string): Promise<StoredPackage | undefined> {
  try {
    return await store.fetch(name, version);
  } catch (error) {
    if (process.env.CI) throw error;
    t.skip(`the npm registry is not reachable here: ${(error as Error).message}`);
    return undefined;
  }
}

/** The same project three times under `base`: for formatbox at the pin, for the pinned tool's own CLI, and for formatbox with its shipped build. */
export function threeCopies(base: string, layout: Record<string, string>): { ours: string; theirs: string; withShipped: string } {
  const copies = { ours: join(base, 'ours'), theirs: join(base, 'theirs'), withShipped: join(base, 'shipped') };
  writeTree(copies.ours, layout);
  cpSync(copies.ours, copies.theirs, { recursive: true });
  cpSync(copies.ours, copies.withShipped, { recursive: true });
  return copies;
}
