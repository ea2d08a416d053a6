/**
 * Which `.js` files are CommonJS scripts by their package's `package.json` `"type"`: Biome's CLI
 * parses a `.js` file as a script when the nearest package.json says `"type": "commonjs"` (import and
 * export are then syntax errors), and as a module otherwise, a package.json without `type` included
 * (checked against Biome 2.4.15's CLI; `.jsx`, `.ts`, `.mjs` and `.cjs` are decided by extension alone).
 * package.json is read leniently, as Biome reads it: a trailing comma does not hide the field. One
 * nested deeper than config data may be (DATA_LIMITS.maxDepth) is not parsed (the parser recurses):
 * it says nothing about its type.
 */
import { parse as parseJsonc } from 'jsonc-parser';
import { baseOf, dirOf } from './paths.js';
import { bracketDepth, DATA_LIMITS, isRecord } from './data.js';

export interface PackageModuleType {
  dir: string;
  file: string;
  commonjs: boolean;
}

/** Every package.json in `files`, deepest first, with whether it says `"type": "commonjs"`. */
export function loadPackageModuleTypes(files: Readonly<Record<string, string | null>>): PackageModuleType[] {
  const out: PackageModuleType[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (baseOf(file) !== 'package.json' || typeof text !== 'string') continue;
    const value: unknown = bracketDepth(text) > DATA_LIMITS.maxDepth ? undefined : parseJsonc(text, [], { allowTrailingComma: true, disallowComments: false });
    out.push({ dir: dirOf(file), file, commonjs: isRecord(value) && value.type === 'commonjs' });
  }
  return out.sort((a, b) => b.dir.length - a.dir.length);
}

/** True when Biome's CLI would parse `path` as a CommonJS script. */
export function isCommonjsScript(types: readonly PackageModuleType[], path: string): boolean {
  if (!/\.js$/.test(path)) return false;
  const nearest = types.find((t) => t.dir === '' || path.startsWith(`${t.dir}/`));
  return nearest?.commonjs ?? false;
}
