/**
 * go.mod declares gofmt. A `toolchain` line is listed as ignored: it never redirects which binary
 * runs and never triggers a download (gofmt runs as wasm).
 */
import type { IgnoredItem } from '../../core/types.js';
import { truncate } from '../../config/data.js';
import { baseOf, dirOf } from '../../config/paths.js';

export interface GoModule {
  dir: string;
  file: string;
}

export function loadGoModules(files: Record<string, string | null>, ignored: IgnoredItem[]): GoModule[] {
  const out: GoModule[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (baseOf(file) !== 'go.mod') continue;
    out.push({ dir: dirOf(file), file });
    const toolchain = /^\s*toolchain\s+(\S+)/m.exec(text ?? '');
    if (toolchain) ignored.push({ file, item: `toolchain ${truncate(toolchain[1] ?? '')}`, reason: 'toolchain lines never redirect which binary runs or trigger a download (gofmt runs as wasm)' });
  }
  return out;
}
