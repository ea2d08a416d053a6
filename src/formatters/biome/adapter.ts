/**
 * Biome through its web wasm build (`@biomejs/wasm-web`), in every runtime including Node, so one
 * Biome version formats everywhere. The host gives the compiled module (or bytes/URL); nothing is
 * instantiated until the first `format`.
 *
 * One Workspace per adapter. `updateSettings` *merges* into a project's settings (a key left out keeps
 * its old value), so each distinct configuration gets its own project, opened and configured once and
 * looked up by the configuration's JSON. Each call opens, formats and closes one file.
 */
import type { AdapterRequest, AdapterResult, ConfigSource, FormatterAdapter, FormatterInfo, WasmSource } from '../../core/types.js';
import { messageOf } from '../../core/errors.js';
import { compileWasm, lazy } from '../../core/wasm.js';
// The glue is this build's: a module of another build (or another file at its URL) is a WASM_LOAD_FAILED naming both, not a wasm-bindgen TypeError.
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { BIOME_LANGUAGES } from './index.js';
import { firstLine, isPlainObject, lineColumnAt } from '../shared.js';
import { byteToUtf16Offset, utf16ToByteOffset } from '../../core/text.js';
import { BIOME_PACKAGE_EXTENDS_VERSIONS } from './resolve.js';

/**
 * The version of `@biomejs/wasm-web` this adapter is built and tested against. The wasm exposes no
 * version call; a test checks this constant against the installed package so it cannot drift.
 */
export const BIOME_VERSION = '2.4.15';

/**
 * A config that needed package resolution (`extends` naming a package) is formatted only by a Biome
 * whose resolution formatbox follows (resolve.ts): another version might resolve it to another file.
 */
export function packageExtendsRefusal(version: string, sources: readonly ConfigSource[] | undefined): string | undefined {
  const resolved = sources?.find((source) => source.package !== undefined);
  if (!resolved || BIOME_PACKAGE_EXTENDS_VERSIONS.includes(version)) return undefined;
  return `extends ${JSON.stringify(resolved.package)} names a package, resolved to ${resolved.file} the way Biome ${BIOME_PACKAGE_EXTENDS_VERSIONS.join(', ')} resolves it; Biome ${version}'s resolution is not verified, so formatbox does not format with it`;
}

export interface BiomeFormatterOptions {
  /** The `biome_wasm_bg.wasm` of `@biomejs/wasm-web` (a compiled Module, bytes, a URL, or a loader). */
  wasm?: WasmSource;
  /**
   * Another Biome build, already instantiated: the bindings of `@biomejs/wasm-nodejs` (or wasm-web)
   * at the version a project pins, from the verified store. Then `wasm` is not used, and `version` names it.
   */
  bindings?: () => Promise<BiomeBindings>;
  /** Reported by `info()`. Defaults to `BIOME_VERSION`; set it only if the host ships another build. */
  version?: string;
}

export { BIOME_LANGUAGES };

/** Virtual directories the projects live in (`/project-0`, …); request paths are joined onto one. */
const PROJECT_DIR_PREFIX = '/project-';

/** Distinct configurations kept at once; past this the workspace is recreated (Biome cannot close a project). */
const MAX_PROJECTS = 16;

/** Biome's default `files.maxSize`. */
const DEFAULT_MAX_SIZE = 1024 * 1024;

/** Configuration keys that point at other files or code; the wasm workspace must never see them. */
const DROPPED_KEYS = ['extends', 'plugins', '$schema'];

type BiomeModule = typeof import('@biomejs/wasm-web');
/**
 * Another Biome wasm build's bindings, as the host loaded them: its workspace and memory file system
 * (the same API across 2.x builds). Structural on purpose: formatbox's public types must not pull in a
 * wasm package's declarations (they need `lib: esnext`, and the package is not a dependency).
 */
export interface BiomeBindings {
  Workspace: abstract new (...args: never[]) => object;
  MemoryFileSystem: abstract new (...args: never[]) => object;
}
/** What this adapter uses of a Biome build, typed as the shipped build's. */
type LoadedBiome = Pick<BiomeModule, 'Workspace' | 'MemoryFileSystem'>;
type Workspace = InstanceType<BiomeModule['Workspace']>;

/** A project configured with one configuration, or the error Biome gave for that configuration. */
type Project = { projectKey: number; directory: string } | { error: string };

interface State {
  biome: LoadedBiome;
  workspace: Workspace;
  /** Keyed by the configuration's JSON. */
  projects: Map<string, Project>;
  opened: number;
  /** Biome's verdict on each config file text checked so far (undefined: accepted). */
  checked: Map<string, string | undefined>;
}

const BIOME_FILE_NAMES = ['biome.json', 'biome.jsonc', '.biome.json', '.biome.jsonc'];

/**
 * How Biome's CLI parses a `.js` file whose package.json says `"type": "commonjs"`: a script (import
 * and export are syntax errors), still with JSX, as it parses any `.js` file.
 */
const COMMONJS_SCRIPT = { Js: { embedding_kind: 'None', language: 'javaScript', module_kind: 'script', variant: 'jsx', version: 'eSNext' } } as const;

/** Config texts whose verdicts are remembered. */
const MAX_CHECKED = 256;

/**
 * Runs Biome's own configuration loader (parse and deserialize, as `biome format` does) on one config
 * file in a memory file system. Returns `file:line:column: message` when Biome rejects it.
 */
function configErrorOf(current: State, source: ConfigSource): string | undefined {
  const key = `${source.file}\0${source.text}`;
  if (current.checked.has(key)) return current.checked.get(key);
  const name = source.file.slice(source.file.lastIndexOf('/') + 1);
  // An `extends` target may have any name; Biome reads it as JSONC, as it reads biome.jsonc.
  const base = BIOME_FILE_NAMES.includes(name) ? name : 'biome.jsonc';
  const files = new current.biome.MemoryFileSystem();
  let verdict: string | undefined;
  let workspace: Workspace | undefined;
  try {
    const encoder = new TextEncoder();
    // A nested config (`root: false`) needs a root above it; an empty one stands in.
    files.insert('/check/biome.json', encoder.encode('{}'));
    files.insert(`/check/config/${base}`, encoder.encode(source.text));
    workspace = current.biome.Workspace.withFileSystem(files);
    workspace.openProject({ path: '/check/config', openUninitialized: false });
  } catch (error) {
    verdict = describeConfigDiagnostic(source.file, messageOf(error));
  } finally {
    workspace?.free();
    files.free();
  }
  if (current.checked.size >= MAX_CHECKED) current.checked.clear();
  current.checked.set(key, verdict);
  return verdict;
}

/**
 * Biome's printed diagnostic (`× message`, then a code frame `> 3 │ …` with a caret line) as
 * `file:line:column: message`.
 */
export function describeConfigDiagnostic(file: string, printed: string): string {
  const lines = printed.split('\n');
  const message = lines.find((line) => /^\s*×\s/.test(line))?.replace(/^\s*×\s*/, '').trim() ?? firstLine(printed);
  let position = '';
  const frame = lines.findIndex((line) => /^\s*>\s*\d+\s*│/.test(line));
  if (frame !== -1) {
    const lineNumber = /^\s*>\s*(\d+)/.exec(lines[frame] as string)?.[1];
    const caret = lines.slice(frame + 1).find((line) => /│\s*\^/.test(line));
    const column = caret ? caret.indexOf('^') - caret.indexOf('│') - 1 : undefined;
    position = `:${lineNumber}${column !== undefined && column > 0 ? `:${column}` : ''}`;
  }
  return `invalid project config: ${file}${position}: ${message}`;
}

interface Diagnostic {
  description?: string;
  location?: { span?: [number, number] | null };
}

export function biomeFormatter(options: BiomeFormatterOptions): FormatterAdapter {
  const version = options.version ?? BIOME_VERSION;

  /** The loaded state, if any, so `dispose()` never triggers a load. */
  let live: State | undefined;
  const state = lazy(async (): Promise<State> => {
    if (options.bindings) {
      const biome = (await options.bindings()) as unknown as LoadedBiome;
      live = { biome, workspace: new biome.Workspace(), projects: new Map(), opened: 0, checked: new Map() };
      return live;
    }
    if (!options.wasm) throw new Error('biomeFormatter needs wasm or bindings');
    const [module, biome] = await Promise.all([compileWasm(options.wasm, 'Biome', version === BIOME_VERSION ? BUILTIN_WASM_IDENTITY.biome : undefined), import('@biomejs/wasm-web')]);
    // wasm-bindgen keeps one instance per JS module: a second adapter reuses the first instance.
    // Async instantiation: Chromium's main thread refuses a synchronous one for modules over 8 MB.
    await biome.default({ module_or_path: module });
    live = { biome, workspace: new biome.Workspace(), projects: new Map(), opened: 0, checked: new Map() };
    return live;
  });

  /**
   * The project for this configuration, opened and configured on first use. Its workspace directory
   * is the config file's own directory (`settingsDir`), which Biome's globs are relative to.
   */
  function projectFor(current: State, settings: unknown, settingsDir: string): Project {
    const configuration = sanitiseConfiguration(settings);
    const key = JSON.stringify([settingsDir, configuration]);
    const known = current.projects.get(key);
    if (known) return known;
    if (current.projects.size >= MAX_PROJECTS) {
      current.workspace.free();
      current.workspace = new current.biome.Workspace();
      current.projects.clear();
    }
    const directory = `${PROJECT_DIR_PREFIX}${current.opened++}`;
    const workspaceDirectory = settingsDir ? `${directory}/${settingsDir}` : directory;
    let project: Project;
    try {
      const { projectKey } = current.workspace.openProject({ path: workspaceDirectory, openUninitialized: true });
      current.workspace.updateSettings({ projectKey, configuration, workspaceDirectory });
      project = { projectKey, directory };
    } catch (error) {
      project = { error: `invalid Biome configuration: ${firstLine(messageOf(error)) || 'rejected without a message'}` };
    }
    current.projects.set(key, project);
    return project;
  }

  return {
    name: 'biome',
    via: 'wasm',
    languages: BIOME_LANGUAGES,
    supportsRange: true,

    info(): Promise<FormatterInfo> {
      return Promise.resolve({ name: 'biome', version, via: 'wasm' });
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const current = await state.get();
      const unverified = packageExtendsRefusal(version, request.configSources);
      if (unverified) return { kind: 'error', message: unverified, config: true };
      // Biome's own loader reads the config files first: what it rejects, formatbox refuses.
      for (const source of request.configSources ?? []) {
        const rejected = configErrorOf(current, source);
        if (rejected) return { kind: 'error', message: rejected, config: true };
      }
      const project = projectFor(current, request.settings, relativePath(request.settingsDir ?? ''));
      if ('error' in project) return { kind: 'error', message: project.error, config: true };
      const { workspace } = current;
      const { projectKey } = project;
      const path = `${project.directory}/${relativePath(request.path)}`;

      let support: string | undefined;
      try {
        support = workspace.fileFeatures({ projectKey, path, features: ['format'] }).featuresSupported.format;
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      }
      if (support !== 'supported') return { kind: 'unsupported', reason: unsupportedReason(support) };
      // Biome refuses files above `files.maxSize` only when asked to format them ("was ignored"); say why up front.
      const maxBytes = maxSizeOf(request.settings);
      if (request.text.length > maxBytes / 3) {
        const bytes = utf16ToByteOffset(request.text, request.text.length);
        if (bytes > maxBytes) {
          return { kind: 'unsupported', reason: `larger than Biome's files.maxSize (${bytes} > ${maxBytes} bytes)` };
        }
      }

      try {
        workspace.openFile({ projectKey, path, content: { type: 'fromClient', content: request.text, version: 0 }, ...(request.commonjsScript ? { documentFileSource: COMMONJS_SCRIPT } : {}) });
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      }
      try {
        if (request.range) return formatRange(workspace, projectKey, path, request.text, request.range);
        const printed = workspace.formatFile({ projectKey, path }) as { code: string };
        // Biome prints its own `lineEnding` (lf by default; `auto` is LF outside Windows).
        return { kind: 'ok', text: printed.code, lineEnding: 'output' };
      } catch (error) {
        return { kind: 'error', message: describeFailure(workspace, projectKey, path, request.text, error) };
      } finally {
        try {
          workspace.closeFile({ projectKey, path });
        } catch {
          // Closing a file that failed to open cleanly is not worth surfacing.
        }
      }
    },

    async preload() {
      await state.get();
    },


    dispose() {
      live?.workspace.free();
      live = undefined;
      state.reset();
    },
  };
}

/** A project-relative POSIX path without leading `/`, `./` or trailing `/`. */
function relativePath(path: string): string {
  return path.replace(/^(\.\/|\/)+/, '').replace(/\/+$/, '').replace(/^\.$/, '');
}

/** The biome.json object as the workspace should see it: a plain object without code/file pointers. */
function sanitiseConfiguration(settings: unknown): Record<string, unknown> {
  if (!isPlainObject(settings)) return {};
  const configuration = { ...settings };
  for (const key of DROPPED_KEYS) delete configuration[key];
  // `overrides[].plugins` too: a plugin path the workspace cannot read makes updateSettings throw an empty error.
  if (Array.isArray(configuration.overrides)) {
    configuration.overrides = configuration.overrides.map((override: unknown) => {
      if (!isPlainObject(override) || !('plugins' in override)) return override;
      const { plugins: _plugins, ...rest } = override;
      return rest;
    });
  }
  // This workspace only formats. With the linter or assist on, Biome builds a semantic model of
  // every file it opens (a third of the time of openFile), which formatting never reads.
  // A value that is not an object is left for Biome to reject, as before.
  for (const key of ['linter', 'assist']) {
    const section = configuration[key];
    if (section === undefined || isPlainObject(section)) configuration[key] = { ...(section ?? {}), enabled: false };
  }
  return configuration;
}

/** Biome's `files.maxSize` (bytes), 1 MiB when the configuration leaves it out. */
function maxSizeOf(settings: unknown): number {
  const files = isPlainObject(settings) ? settings.files : undefined;
  const maxSize = isPlainObject(files) ? files.maxSize : undefined;
  return typeof maxSize === 'number' && maxSize > 0 ? maxSize : DEFAULT_MAX_SIZE;
}

function unsupportedReason(support: string | undefined): string {
  switch (support) {
    case 'ignored':
      return 'ignored by project config';
    case 'featureNotEnabled':
      return 'formatting is turned off for this file by project config';
    case 'protected':
      return 'Biome never formats this file (protected)';
    case 'fileNotSupported':
      return 'Biome does not format this kind of file';
    default:
      return `Biome cannot format this file (${support ?? 'unknown'})`;
  }
}

/**
 * Formats `utf16Range` only. Biome's ranges are UTF-8 byte offsets: convert on the way in, and
 * splice its answer (the formatted code for the byte range it chose) back on the way out.
 */
function formatRange(
  workspace: Workspace,
  projectKey: number,
  path: string,
  text: string,
  range: { utf16Start: number; utf16End: number },
): AdapterResult {
  const byteStart = utf16ToByteOffset(text, range.utf16Start);
  const byteEnd = utf16ToByteOffset(text, range.utf16End);
  const printed = workspace.formatRange({ projectKey, path, range: [byteStart, byteEnd] }) as {
    code: string;
    range?: [number, number] | null;
  };
  if (!printed.range) return { kind: 'ok', text };
  const utf16ReplacedStart = byteToUtf16Offset(text, printed.range[0]);
  const utf16ReplacedEnd = byteToUtf16Offset(text, printed.range[1]);
  return { kind: 'ok', text: text.slice(0, utf16ReplacedStart) + printed.code + text.slice(utf16ReplacedEnd) };
}

/**
 * Biome's format error says only "formatting aborted due to parsing errors"; the parse diagnostics
 * say what and where. Returns the earliest one as `message (line:column)`, else Biome's own message.
 */
function describeFailure(workspace: Workspace, projectKey: number, path: string, text: string, error: unknown): string {
  const fallback = firstLine(messageOf(error));
  try {
    const pulled = workspace.pullDiagnostics({
      projectKey,
      path,
      categories: ['syntax'],
      only: [],
      skip: [],
    }) as { diagnostics?: Diagnostic[] };
    let first: { description: string; byteStart: number } | undefined;
    for (const diagnostic of pulled.diagnostics ?? []) {
      const span = diagnostic.location?.span;
      if (!span || typeof diagnostic.description !== 'string') continue;
      if (!first || span[0] < first.byteStart) first = { description: diagnostic.description, byteStart: span[0] };
    }
    if (!first) return fallback;
    const { line, column } = lineColumnAt(text, byteToUtf16Offset(text, first.byteStart));
    return `${firstLine(first.description)} (${line}:${column})`;
  } catch {
    return fallback;
  }
}
