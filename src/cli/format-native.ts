/**
 * `format`'s native Biome pass: before the worker pool starts, the files Biome formats are checked
 * in one sandboxed run of formatbox's native Biome build (src/node/biome-native.ts); those it finds
 * formatted are answered, the rest go through the normal per-file path.
 *
 * A file is handed to native Biome only when the per-file path would format it with Biome under the
 * project's one root Biome config exactly as Biome's CLI reads it: no nested config, no `extends`, and
 * nothing formatbox left out of the config (plugins, a clamped `files.maxSize`). The choice is made by
 * the same functions the engine uses (`selectFormatter` on the same discovered config files).
 */
import type { ProjectFiles, UserConfig } from '../core/types.js';
import { messageOf } from '../core/errors.js';
import { DEFAULT_FORMATTER, loadProjectConfig, normaliseUserConfig, selectFormatter } from '../config/index.js';
import { loadDprintConfigs } from '../config/dprint.js';
import type { Sandbox } from '../core/sandbox.js';
import { checkWithNativeBiome, type NativeBiome } from '../node/biome-native.js';

/** What the pass found, for `format` to use and report. */
export interface NativePass {
  /** Processed by native Biome and nothing said: formatted. */
  formatted: Set<string>;
  /** Flagged by native Biome (would change, parse error, …), with its first message: the per-file path decides. */
  flagged: Map<string, string>;
  /** Candidates it did not process (its config ignores them): the per-file path decides. */
  notProcessed: number;
  /** Files handed to native Biome. */
  files: number;
  seconds: number;
  version: string;
}

/** The pass, or why it was not used (`undefined`: no file is Biome's to format). */
export type NativeOutcome = { used: NativePass } | { notUsed: string } | undefined;

export interface NativePassOptions {
  projectFiles: ProjectFiles;
  trust: 'trusted' | 'untrusted';
  config?: UserConfig;
  sandbox: () => Sandbox;
  biome: () => NativeBiome | { unavailable: string };
}

/** Adapter names the engine registers in every runtime (a user rule may name them). */
const ENGINE_ADAPTER_NAMES = [...new Set([...Object.values(DEFAULT_FORMATTER), 'editorconfig', 'dprint:markdown', 'dprint:json', 'dprint:dockerfile'])];

/**
 * The files of `files` (project-relative) that the per-file path would format with Biome under the
 * project's single root config, or why none may be handed to native Biome.
 */
export function nativeBiomeCandidates(files: readonly string[], options: Pick<NativePassOptions, 'projectFiles' | 'trust' | 'config'>): string[] | { reason: string } {
  const project = loadProjectConfig(options.projectFiles, { trust: options.trust });
  const biome = project.biome;
  if (biome.length === 0) return [];
  if (project.overBudget) return { reason: 'the project config is over budget' };
  let user;
  try {
    user = normaliseUserConfig(options.config, { adapterNames: ENGINE_ADAPTER_NAMES });
  } catch (error) {
    return { reason: `the user config: ${messageOf(error)}` };
  }
  if (loadDprintConfigs(options.projectFiles, []).some((c) => c.localPlugins.length > 0)) return { reason: 'the project lists its own dprint plugins' };
  const [only] = biome;
  if (biome.length > 1 || !only || only.dir !== '') return { reason: 'the project has nested Biome configs' };
  if (only.nested || only.extendsRoot || only.extended || only.error || only.text === null) return { reason: `${only.file} extends other files or could not be read` };
  if (only.ignored.length > 0) return { reason: `formatbox leaves part of ${only.file} out (${only.ignored[0]!.item})` };
  return files.filter((path) => {
    const selection = selectFormatter(project, user, path);
    return selection.kind === 'format' && selection.formatter === 'biome' && (selection.settingsDir ?? '') === '';
  });
}

/** Runs the pass over the candidates among `files`; `undefined` when no file is Biome's. */
export async function runNativeBiomePass(rootReal: string, files: readonly string[], options: NativePassOptions): Promise<NativeOutcome> {
  const candidates = nativeBiomeCandidates(files, options);
  if (!Array.isArray(candidates)) return { notUsed: candidates.reason };
  if (candidates.length === 0) return undefined;
  const biome = options.biome();
  if ('unavailable' in biome) return { notUsed: biome.unavailable };
  const checked = await checkWithNativeBiome(options.sandbox(), biome, rootReal, walkTargets(candidates), new Set(candidates));
  if (checked.kind === 'not-used') return { notUsed: checked.reason };
  return { used: { formatted: new Set(checked.formatted), flagged: checked.flagged, notProcessed: checked.notProcessed.length, files: candidates.length, seconds: checked.ms / 1000, version: biome.version } };
}

/**
 * What to hand Biome to walk: below the deepest directory holding every candidate, each entry that
 * holds one. Files Biome walks that are not candidates (formatbox's walk left them out) are ignored.
 */
export function walkTargets(candidates: readonly string[]): string[] {
  const dirs = candidates.map((path) => path.split('/').slice(0, -1));
  let common = dirs[0] ?? [];
  for (const dir of dirs) {
    let n = 0;
    while (n < common.length && n < dir.length && common[n] === dir[n]) n++;
    common = common.slice(0, n);
  }
  const targets = new Set(candidates.map((path) => path.split('/').slice(0, common.length + 1).join('/')));
  return [...targets].sort();
}

/** Native Biome said the file would change and the per-file path found it formatted: neither is taken on trust. */
export function disagreement(flaggedMessage: string | undefined, status: string): string | undefined {
  if (flaggedMessage === undefined || status !== 'unchanged' || !flaggedMessage.startsWith('format: Formatter would have printed')) return undefined;
  return "Biome's native build would change this file and its wasm build would not; it was left as it is";
}
