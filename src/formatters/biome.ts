/**
 * Biome through its web wasm build (`@biomejs/wasm-web`), in every runtime including Node, so one
 * Biome version formats everywhere. The host gives the compiled module (or bytes/URL); nothing is
 * instantiated until the first `format`.
 *
 * One Workspace and one project per adapter. Settings are pushed with `updateSettings` only when the
 * configuration object changes; each call opens, formats and closes one file.
 */
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../core/types.js';
import { messageOf } from '../core/errors.js';
import { compileWasm, lazy } from '../core/wasm.js';
import { firstLine, isPlainObject, lineColumnAt, utf16OffsetToUtf8Offset, utf8OffsetToUtf16Offset } from './shared.js';

/**
 * The version of `@biomejs/wasm-web` this adapter is built and tested against. The wasm exposes no
 * version call; a test checks this constant against the installed package so it cannot drift.
 */
export const BIOME_VERSION = '2.4.15';

export interface BiomeFormatterOptions {
  /** The `biome_wasm_bg.wasm` of `@biomejs/wasm-web` (a compiled Module, bytes, a URL, or a loader). */
  wasm: WasmSource;
  /** Reported by `info()`. Defaults to `BIOME_VERSION`; set it only if the host ships another build. */
  version?: string;
}

/** Language ids this adapter formats (see src/core/languages.ts). */
export const BIOME_LANGUAGES = ['javascript', 'typescript', 'json', 'jsonc', 'css', 'graphql'] as const;

/** The virtual directory the project lives in; request paths are joined onto it. */
const PROJECT_DIR = '/project';

/** Configuration keys that point at other files or code; the wasm workspace must never see them. */
const DROPPED_KEYS = ['extends', 'plugins', '$schema'];

type BiomeModule = typeof import('@biomejs/wasm-web');
type Workspace = InstanceType<BiomeModule['Workspace']>;

interface Project {
  workspace: Workspace;
  projectKey: number;
  /** JSON of the configuration last given to `updateSettings`, to skip repeating it. */
  settingsKey: string | undefined;
}

interface Diagnostic {
  description?: string;
  location?: { span?: [number, number] | null };
}

export function biomeFormatter(options: BiomeFormatterOptions): FormatterAdapter {
  const version = options.version ?? BIOME_VERSION;

  const project = lazy(async (): Promise<Project> => {
    const [module, biome] = await Promise.all([compileWasm(options.wasm, 'Biome'), import('@biomejs/wasm-web')]);
    // wasm-bindgen keeps one instance per JS module: a second adapter reuses the first instance.
    biome.initSync({ module });
    const workspace = new biome.Workspace();
    const { projectKey } = workspace.openProject({ path: PROJECT_DIR, openUninitialized: true });
    return { workspace, projectKey, settingsKey: undefined };
  });

  return {
    name: 'biome',
    via: 'wasm',
    languages: BIOME_LANGUAGES,
    supportsRange: true,

    info(): Promise<FormatterInfo> {
      return Promise.resolve({ name: 'biome', version, via: 'wasm' });
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const current = await project.get();
      const { workspace, projectKey } = current;

      const configuration = sanitiseConfiguration(request.settings);
      const settingsKey = JSON.stringify(configuration);
      if (settingsKey !== current.settingsKey) {
        try {
          workspace.updateSettings({ projectKey, configuration, workspaceDirectory: PROJECT_DIR });
          current.settingsKey = settingsKey;
        } catch (error) {
          current.settingsKey = undefined;
          return { kind: 'error', message: `invalid Biome configuration: ${firstLine(messageOf(error))}` };
        }
      }

      const path = projectPath(request.path);
      let support: string | undefined;
      try {
        support = workspace.fileFeatures({ projectKey, path, features: ['format'] }).featuresSupported.format;
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      }
      if (support !== 'supported') return { kind: 'unsupported', reason: unsupportedReason(support) };

      try {
        workspace.openFile({ projectKey, path, content: { type: 'fromClient', content: request.text, version: 0 } });
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      }
      try {
        if (request.range) return formatRange(workspace, projectKey, path, request.text, request.range);
        const printed = workspace.formatFile({ projectKey, path }) as { code: string };
        return { kind: 'ok', text: printed.code };
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

    async dispose() {
      const pending = project;
      let current: Project | undefined;
      try {
        current = await pending.get();
      } catch {
        current = undefined;
      }
      pending.reset();
      current?.workspace.free();
    },
  };
}

/** A project-relative POSIX path placed inside the virtual project directory. */
function projectPath(path: string): string {
  const relative = path.replace(/^(\.\/|\/)+/, '');
  return `${PROJECT_DIR}/${relative}`;
}

/** The biome.json object as the workspace should see it: a plain object without code/file pointers. */
function sanitiseConfiguration(settings: unknown): Record<string, unknown> {
  if (!isPlainObject(settings)) return {};
  const configuration = { ...settings };
  for (const key of DROPPED_KEYS) delete configuration[key];
  return configuration;
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
  const byteStart = utf16OffsetToUtf8Offset(text, range.utf16Start);
  const byteEnd = utf16OffsetToUtf8Offset(text, range.utf16End);
  const printed = workspace.formatRange({ projectKey, path, range: [byteStart, byteEnd] }) as {
    code: string;
    range?: [number, number] | null;
  };
  if (!printed.range) return { kind: 'ok', text };
  const utf16ReplacedStart = utf8OffsetToUtf16Offset(text, printed.range[0]);
  const utf16ReplacedEnd = utf8OffsetToUtf16Offset(text, printed.range[1]);
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
    const { line, column } = lineColumnAt(text, utf8OffsetToUtf16Offset(text, first.byteStart));
    return `${firstLine(first.description)} (${line}:${column})`;
  } catch {
    return fallback;
  }
}
