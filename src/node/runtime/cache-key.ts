/** The key under which `formatbox format`'s cache (format-cache.ts) knows a file formatted. */
import type { Engine } from '../../engine/engine.js';
import type { FormatterInfo, IgnoredItem } from '../../core/types.js';
import { formatCacheKey, type FormatCache } from '../format-cache.js';

interface CachedIdentity {
  key: (bytes: Uint8Array) => string;
  info: FormatterInfo;
  label: string;
  /** Config items ignored for this file: a cached receipt names them as a formatted one does. */
  ignored?: IgnoredItem[];
}

/**
 * The cache key of a file for the formatter and config it would get now (format-cache.ts); undefined
 * when it would not be formatted. `text` is the file's content (a name without an extension may be
 * shell by its shebang).
 */
export async function cacheKeyOf(eng: Engine, cache: FormatCache, path: string, text: string): Promise<CachedIdentity | undefined> {
  const found = await eng.formatterFor(path, text);
  if (!found || found.info.version === 'unknown') return undefined;
  const { selection, info } = found;
  const ignored = selection.ignored.length > 0 ? selection.ignored : undefined;
  return { key: (bytes) => formatCacheKey(cache, bytes, path, { formatter: info, selection }), info, label: `${info.name} ${info.version}, ${info.via}`, ...(ignored ? { ignored } : {}) };
}
