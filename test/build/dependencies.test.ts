// The Node bundles load, from node_modules, only packages the package declares as dependencies:
// whatever is a dev dependency (the MCP SDK, the Svelte and XML plugins, which are bundled into
// their own lazy entries) must be in dist/ itself, or an install from the tarball breaks. Scans the
// real build's static imports and `import()`s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; optionalDependencies?: Record<string, string> };

/** `@scope/name` or `name` of a bare specifier. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

test('every package a Node bundle imports is a dependency (dev dependencies are bundled)', { timeout: 300_000 }, async () => {
  const { buildNode } = (await import(join(root, 'build.mjs'))) as { buildNode: (outdir: string) => Promise<void> };
  const dir = mkdtempSync(join(tmpdir(), 'fb-deps-'));
  try {
    await buildNode(join(dir, 'dist'));
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})]);
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const undeclared: string[] = [];
    const seen = new Set<string>();
    for (const name of readdirSync(join(dir, 'dist')).filter((n) => n.endsWith('.js'))) {
      const code = readFileSync(join(dir, 'dist', name), 'utf8');
      // Static imports, bare imports, and import() calls (not JSDoc's {import('x').T}).
      const specifiers = [...code.matchAll(/^import\s[^;]*?from\s*["']([^"']+)["']/gm), ...code.matchAll(/^import\s*["']([^"']+)["']/gm), ...code.matchAll(/(?<![{|<\w.])import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
      for (const specifier of specifiers) {
        if (specifier.startsWith('.') || specifier.startsWith('/') || builtins.has(specifier) || builtins.has(specifier.split('/')[0]!)) continue;
        const owner = packageOf(specifier);
        seen.add(owner);
        if (!declared.has(owner)) undeclared.push(`${name}: ${specifier}`);
      }
    }
    assert.deepEqual(undeclared, [], 'imported from node_modules but not a dependency');
    assert.ok(seen.has('prettier'), `the scan saw the externals (${[...seen].join(', ')})`);
    for (const dev of ['@modelcontextprotocol/sdk', 'svelte', 'prettier-plugin-svelte', '@prettier/plugin-xml']) assert.equal(declared.has(dev), false, `${dev} is not a dependency`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
