/**
 * The benchmarks' JS/TS corpus: files from this repository's node_modules (nobody here wrote them),
 * sorted by path, up to 100 KB each, no minified bundles, no paths with whitespace; paths relative to
 * node_modules.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function nodeModulesSources(nodeModules: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = join(dir, name);
      let st;
      try {
        st = statSync(full);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (name !== '.cache' && name !== '.bin') walk(full);
      } else if (/\.(ts|tsx|js|mjs|cjs)$/.test(name) && !/\.min\.js$/.test(name) && !/\s/.test(name) && st.size <= 100_000 && st.size > 0) {
        found.push(relative(nodeModules, full));
      }
    }
  };
  walk(nodeModules);
  return found;
}
