/**
 * `formatTree`'s native Biome pass: before the worker pool starts, the files Biome formats are checked
 * in one sandboxed run of formatbox's native Biome build (src/node/biome-native.ts); those it finds
 * formatted are answered, and with `--check` so are those it finds would change (only that
 * diagnostic); the rest go through the normal per-file path.
 *
 * A file is handed to native Biome only when the per-file path would format it with Biome under the
 * project's one root Biome config exactly as Biome's CLI reads it: no nested config, no `extends`, and
 * nothing formatbox left out of the config (plugins, a clamped `files.maxSize`). The choice is made by
 * the same functions the engine uses (`selectFormatter` on the same discovered config files).
 */
import { describePin, pinAllows, projectPins } from '../../config/pins.js';
import { BIOME_VERSION } from '../../formatters/biome/adapter.js';
import { BIOME_CONFIG_NAMES } from '../../formatters/biome/config.js';
import type { ProjectFiles, UserConfig } from '../../core/types.js';
import { messageOf } from '../../core/errors.js';
import { languageOfPath } from '../../config/select.js';
import { BIOME_LANGUAGES, DEFAULT_FORMATTER, loadProjectConfig, normaliseUserConfig, selectFormatter } from '../../config/index.js';
import type { ProjectConfig } from '../../config/project.js';
import type { NormalisedUserConfig } from '../../config/user.js';
import { loadDprintConfigs } from '../../formatters/dprint/config.js';
import type { Sandbox } from '../../core/sandbox.js';
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { isIgnoredBy, parseIgnoreFile, type IgnoreFile } from '../../config/ignore-file.js';
import { VCS_AND_DEPENDENCY_DIRS } from './list.js';
import { readSmallFile } from '../walk.js';
import { checkWithNativeBiome, type NativeBiome, type NativeCheck } from '../biome-native.js';
import { writeNatively, type NativeWrites } from './native-biome-write.js';

/** What the pass found, for `format` to use and report. */
export interface NativePass {
  /** Processed by native Biome and nothing said: formatted. */
  formatted: Set<string>;
  /** Flagged by native Biome (would change, parse error, …), with its first message. */
  flagged: Map<string, string>;
  /** Of `flagged`: native Biome's verdict is "would change" and may be the answer (`--check`); the per-file path decides the rest. */
  wouldChange: Set<string>;
  /** With `--write`: what native Biome wrote of `wouldChange` (`writeNatively`). */
  written?: NativeWrites;
  /** Candidates it did not process (its config ignores them): the per-file path decides. */
  notProcessed: number;
  /** Files handed to native Biome. */
  files: number;
  seconds: number;
  /** Wall clock (ms) when native Biome started: it read no file before. */
  startedAtMs: number;
  version: string;
}

/** The pass, or why it was not used (`undefined`: no file is Biome's to format). */
export type NativeOutcome = { used: NativePass } | { notUsed: string } | undefined;

export interface NativePassOptions {
  projectFiles: ProjectFiles;
  /** Lockfiles and installed package.json files (pins.ts): a project pinning another Biome is not the native build's to answer for. */
  pinFiles?: ProjectFiles;
  trust: 'trusted' | 'untrusted';
  config?: UserConfig;
  sandbox: () => Sandbox;
  biome: () => NativeBiome | { unavailable: string };
}

/** Adapter names the engine registers in every runtime (a user rule may name them). */
const ENGINE_ADAPTER_NAMES = [...new Set([...Object.values(DEFAULT_FORMATTER), 'editorconfig', 'dprint:markdown', 'dprint:json', 'dprint:dockerfile'])];

/** The project's config as the engine loads it, when native Biome may answer for it; else why not (`undefined`: no Biome config). */
function nativeBiomeProject(options: Pick<NativePassOptions, 'projectFiles' | 'pinFiles' | 'trust' | 'config'>): { project: ProjectConfig; user: NormalisedUserConfig } | { reason: string } | undefined {
  const loaded = loadProjectConfig(options.projectFiles, { trust: options.trust });
  const biome = loaded.biome;
  if (biome.length === 0) return undefined;
  const pins = projectPins({ ...(options.pinFiles ?? {}), ...options.projectFiles });
  const project: ProjectConfig = { ...loaded, pins: pins.root, pinsFor: (path) => pins.forPath(path) };
  const pin = pins.root.find((p) => p.formatter === 'biome');
  if (pin && !pinAllows(pin, BIOME_VERSION)) return { reason: `the project pins Biome ${describePin(pin)}; the native build is ${BIOME_VERSION}` };
  if (project.overBudget) return { reason: 'the project config is over budget' };
  let user: NormalisedUserConfig;
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
  return { project, user };
}

/** Of `files`, those in a language Biome formats (a superset of the candidates, known before selection). */
function biomeLanguageFiles(files: readonly string[], user: NormalisedUserConfig): string[] {
  return files.filter((path) => BIOME_LANGUAGES.has(languageOfPath(path, user.languages) ?? ''));
}

function selectedForBiome(files: readonly string[], project: ProjectConfig, user: NormalisedUserConfig): string[] {
  return files.filter((path) => {
    const selection = selectFormatter(project, user, path);
    return selection.kind === 'format' && selection.formatter === 'biome' && (selection.settingsDir ?? '') === '' && nativeVersionAllowed(project, path);
  });
}

/** A file in a package that pins its own Biome (another version than the native build) goes through the per-file path. */
function nativeVersionAllowed(project: ProjectConfig, path: string): boolean {
  const pin = project.pinsFor?.(path).find((p) => p.formatter === 'biome');
  return !pin || pinAllows(pin, BIOME_VERSION);
}

/** Files selected per turn of the event loop while native Biome starts (the sandbox's start-up needs the loop). */
const SELECTED_PER_TURN = 128;

/** `selectedForBiome`, yielding to the event loop between slices. */
async function selectedForBiomeYielding(files: readonly string[], project: ProjectConfig, user: NormalisedUserConfig): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < files.length; i += SELECTED_PER_TURN) {
    await new Promise((resolve) => setImmediate(resolve));
    out.push(...selectedForBiome(files.slice(i, i + SELECTED_PER_TURN), project, user));
  }
  return out;
}

/**
 * The files of `files` (project-relative) that the per-file path would format with Biome under the
 * project's single root config, or why none may be handed to native Biome.
 */
export function nativeBiomeCandidates(files: readonly string[], options: Pick<NativePassOptions, 'projectFiles' | 'pinFiles' | 'trust' | 'config'>): string[] | { reason: string } {
  const eligible = nativeBiomeProject(options);
  if (!eligible) return [];
  if ('reason' in eligible) return eligible;
  return selectedForBiome(files, eligible.project, eligible.user);
}

/** A native run started on the files in Biome's languages; `finishNativeBiomePass` reads it for some of them. */
export interface NativeRun {
  running: Promise<NativeCheck>;
  project: ProjectConfig;
  user: NormalisedUserConfig;
  version: string;
}

/**
 * Starts native Biome on `targetsFor(project)` (paths relative to the root), so that it runs while
 * the rest of the run's set-up goes on. Returns the final outcome instead when it cannot start
 * (`undefined`: the project has no Biome config, or nothing to walk).
 */
export function startNativeBiomePass(
  rootReal: string,
  options: NativePassOptions,
  targetsFor: (project: ProjectConfig, user: NormalisedUserConfig) => string[],
  guessed?: GuessedNativeRun,
): NativeRun | NativeOutcome {
  const started = startOrAdopt(rootReal, options, targetsFor, guessed);
  if (guessed && !(started && 'running' in started && started.running === guessed.running)) guessed.stop.abort();
  return started;
}

function startOrAdopt(rootReal: string, options: NativePassOptions, targetsFor: (project: ProjectConfig, user: NormalisedUserConfig) => string[], guessed: GuessedNativeRun | undefined): NativeRun | NativeOutcome {
  const eligible = nativeBiomeProject(options);
  if (!eligible) return undefined;
  if ('reason' in eligible) return { notUsed: eligible.reason };
  const targets = targetsFor(eligible.project, eligible.user);
  if (targets.length === 0) return undefined;
  const biome = options.biome();
  if ('unavailable' in biome) return { notUsed: biome.unavailable };
  // The guess is kept only when it is the run this would start: the same binary on the same targets.
  const running = guessed && guessed.binary === biome.binary && sameList(guessed.targets, targets) ? guessed.running : checkWithNativeBiome(options.sandbox(), biome, rootReal, targets);
  return { running, project: eligible.project, user: eligible.user, version: biome.version };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** Native Biome started before the project's config was discovered; `startNativeBiomePass` adopts it or stops it. */
export interface GuessedNativeRun {
  binary: string;
  targets: string[];
  running: Promise<NativeCheck>;
  stop: AbortController;
}

/** Root `.gitignore` files larger than this are not read for a guess (the discovered one decides). */
const MAX_GUESS_GITIGNORE_BYTES = 256 * 1024;

/**
 * Starts native Biome before config discovery (which walks every directory for config files) when
 * the root has a Biome config file, on the targets `earlyTargets` gives from the root `.gitignore`
 * alone. Only a guess: `startNativeBiomePass` keeps it when the discovered project qualifies and
 * gives the same targets, and stops it otherwise. `undefined`: nothing was started.
 */
export function guessNativeBiomePass(rootReal: string, namedRel: readonly string[], options: Pick<NativePassOptions, 'sandbox' | 'biome'>): GuessedNativeRun | undefined {
  if (!BIOME_CONFIG_NAMES.some((name) => isPlainFile(join(rootReal, name)))) return undefined;
  const gitignore: IgnoreFile[] = [];
  const gitignorePath = join(rootReal, '.gitignore');
  if (isPlainFile(gitignorePath)) {
    // Read as discovery reads files (no FIFO, no final symlink, bounded): swapped for a FIFO after
    // the check above, it is refused instead of blocking the run.
    const text = readSmallFile(gitignorePath, MAX_GUESS_GITIGNORE_BYTES);
    if (typeof text !== 'string') return undefined;
    gitignore.push(parseIgnoreFile(text, '.gitignore', '', []));
  }
  const targets = earlyTargets(rootReal, namedRel, gitignore);
  if (targets.length === 0) return undefined;
  const biome = options.biome();
  if ('unavailable' in biome) return undefined;
  const sandbox = options.sandbox();
  if (sandbox.unavailable) return undefined;
  const stop = new AbortController();
  return { binary: biome.binary, targets, running: checkWithNativeBiome(sandbox, biome, rootReal, targets, { signal: stop.signal }), stop };
}

function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * What native Biome walks when it starts before formatbox's own walk: each named file, and the
 * entries of each named directory that formatbox's walk would enter for Biome (every directory but
 * version control and node_modules, as Biome's own walk; nothing the root's .gitignore lists, no symlink). Biome may still walk files formatbox
 * does not list (deeper ignores); their verdicts are never used.
 */
export function earlyTargets(rootReal: string, namedRel: readonly string[], gitignore: readonly IgnoreFile[]): string[] {
  const targets = new Set<string>();
  for (const rel of namedRel) {
    const abs = rel === '' ? rootReal : join(rootReal, rel);
    let entries: Dirent[];
    try {
      const stat = lstatSync(abs);
      if (stat.isFile()) targets.add(rel);
      if (!stat.isDirectory()) continue;
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      continue; // missing: the listing reports it
    }
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isFile() && !isIgnoredBy(gitignore, path)) targets.add(path);
      else if (entry.isDirectory() && !VCS_AND_DEPENDENCY_DIRS.has(entry.name) && !isIgnoredBy(gitignore, `${path}/.formatbox-probe`)) targets.add(path);
    }
  }
  return [...targets].sort();
}

/** The pass's answer for `files` (a subset of those it was started on): only the files the per-file path gives Biome take it. */
export async function finishNativeBiomePass(run: NativeRun, files: readonly string[]): Promise<NativeOutcome> {
  const candidates = await selectedForBiomeYielding(biomeLanguageFiles(files, run.user), run.project, run.user);
  const checked = await run.running;
  if (candidates.length === 0) return undefined;
  if (checked.kind === 'not-used') return { notUsed: checked.reason };
  const pass: NativePass = { formatted: new Set(), flagged: new Map(), wouldChange: new Set(), notProcessed: 0, files: candidates.length, seconds: checked.ms / 1000, startedAtMs: checked.startedAtMs, version: run.version };
  for (const path of candidates) {
    const message = checked.flagged.get(path);
    if (message !== undefined) {
      pass.flagged.set(path, message);
      if (checked.wouldChange.has(path)) pass.wouldChange.add(path);
    } else if (checked.processed.has(path)) pass.formatted.add(path);
    else pass.notProcessed++;
  }
  return { used: pass };
}

/** Starts and finishes the pass over `files`, walking only the directories that hold them. */
export async function runNativeBiomePass(rootReal: string, files: readonly string[], options: NativePassOptions): Promise<NativeOutcome> {
  const run = startNativeBiomePass(rootReal, options, (_project, user) => walkTargets(biomeLanguageFiles(files, user)));
  return run && 'running' in run ? finishNativeBiomePass(run, files) : run;
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
  if (flaggedMessage === undefined || status !== 'unchanged' || !flaggedMessage.startsWith('format: ')) return undefined;
  return "Biome's native build would change this file and its wasm build would not; it was left as it is";
}

/**
 * A write's native pass: one `biome format --write` run on a scratch copy of the files of `files`
 * the per-file path gives Biome (native-biome-write.ts), instead of a check and then a write. Its
 * verdicts as a check's: formatted, "would change" (fixed; written unless the write failed or its
 * bytes could not be taken), flagged (the per-file path decides).
 */
export async function runNativeBiomeWritePass(rootReal: string, files: readonly string[], options: NativePassOptions): Promise<NativeOutcome> {
  const eligible = nativeBiomeProject(options);
  if (!eligible) return undefined;
  if ('reason' in eligible) return { notUsed: eligible.reason };
  const candidates = selectedForBiome(biomeLanguageFiles(files, eligible.user), eligible.project, eligible.user);
  if (candidates.length === 0) return undefined;
  const biome = options.biome();
  if ('unavailable' in biome) return { notUsed: biome.unavailable };
  const writes = await writeNatively(rootReal, candidates, options);
  const judged = writes.formatted.size + writes.fixed.size + writes.flagged.size;
  if (writes.notUsed !== undefined && judged === 0) return { notUsed: writes.notUsed };
  const flagged = new Map(writes.flagged);
  for (const path of writes.fixed) flagged.set(path, 'format: fixed by native Biome');
  const pass: NativePass = { formatted: writes.formatted, flagged, wouldChange: writes.fixed, written: writes, notProcessed: candidates.length - judged, files: candidates.length, seconds: writes.seconds, startedAtMs: writes.startedAtMs, version: biome.version };
  return { used: pass };
}
