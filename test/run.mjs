#!/usr/bin/env node
// Runs every test/**/*.test.ts through node:test with tsx as the TypeScript loader.
// Usage: npm test [-- substring …]   (only files whose path contains one of the substrings)
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2);

function collect(dir) {
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(full).isDirectory()) found.push(...collect(full));
    else if (name.endsWith('.test.ts')) found.push(relative(root, full));
  }
  return found;
}

const files = collect(join(root, 'test')).filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files matched', filters);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
