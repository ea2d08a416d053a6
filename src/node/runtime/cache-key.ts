/** The key under which `formatbox format`'s cache (format-cache.ts) knows a file formatted. */
import type { Engine } from '../../engine/engine.js';
import type { FormatterInfo, IgnoredItem } from '../../core/types.js';
import type { FormatCache } from '../format-cache.js';
import { nodeSha256 } from '../hash.js';

interface CachedIdentity {
  key: (bytes: Uint8Array) => string;
  info: FormatterInfo;
  label: string;
  /** Config items ignored for this file: a cached receipt names them as a formatted one does. */
  ignored?: IgnoredItem[];
}

/**
 * The cache key of a file for the formatter and config it would get now; undefined when it would not
 * be formatted. The effective config is the selection after the config budget and clamps (the engine
 * gives none for a config over budget): formatter, language, settings (line endings included), the
 * settings directory and the config files as written (an adapter may pass their text to the tool).
 */
export async function cacheKeyOf(eng: Engine, cache: FormatCache, path: string): Promise<CachedIdentity | undefined> {
  const found = await eng.formatterFor(path);
  if (!found || found.info.version === 'unknown') return undefined;
  const { selection, info } = found;
  const sources = selection.configSources?.map((source) => [source.file, digestOfText(source.text)]) ?? null;
  const config = { formatter: selection.formatter, language: selection.language, settings: selection.settings, settingsDir: selection.settingsDir ?? null, sources };
  const ignored = selection.ignored.length > 0 ? selection.ignored : undefined;
  return { key: (bytes) => cache.key(bytes, { path, formatter: info, config }), info, label: `${info.name} ${info.version}, ${info.via}`, ...(ignored ? { ignored } : {}) };
}

/** sha256 of config texts, once per text (every file under one config shares it). */
const textDigests = new Map<string, string>();
function digestOfText(text: string): string {
  let digest = textDigests.get(text);
  if (digest === undefined) {
    digest = nodeSha256(text);
    if (textDigests.size >= 64) textDigests.clear(); // bounded: config texts may be large
    textDigests.set(text, digest);
  }
  return digest;
}
