/**
 * Biome 1.x through its own wasm build (`@biomejs/wasm-nodejs` 1.x), for projects that pin it. The
 * 1.x workspace has no memory file system and no config loader: settings go in as data
 * (`registerProjectFolder`, then `updateSettings`), paths are `{path, kind, was_written}`, parameters
 * are snake_case. What Biome 1.x's CLI does with a config is reproduced where it can be checked, and
 * refused with the reason where it cannot:
 * - the config files are judged as the 1.x CLI judges them: `.json` is strict JSON (a comment or a
 *   trailing comma stops it), `.jsonc` allows both; a key the version's own configuration schema does
 *   not have stops it (the schema is read from the build's `biome_wasm.d.ts`); a value its
 *   deserializer rejects stops it. Each is a refusal, as the CLI formats nothing then.
 * - Biome 1.x reads one config, the root's: a nested biome.json (which Biome 2 applies) is refused.
 * - `formatter.useEditorconfig` is refused: formatbox maps `.editorconfig` as Biome 2 reads it.
 * - `extends` naming a package is followed only for a bare package name resolved to the root of that
 *   package, which Biome 1.x and 2.x resolve alike; anything else is refused.
 * One workspace per distinct configuration: `updateSettings` merges into what a workspace holds.
 */
import type { AdapterRequest, AdapterResult, ConfigSource, FormatterAdapter, FormatterInfo } from '../../core/types.js';
import { messageOf } from '../../core/errors.js';
import { lazy } from '../../core/wasm.js';
import { isRecord, parseData } from '../../config/data.js';
import { BIOME_LANGUAGES } from './index.js';
import { firstLine, isPlainObject } from '../shared.js';
import { byteToUtf16Offset, utf16ToByteOffset } from '../../core/text.js';

/** The 1.x bindings as the host loaded them (structural: the package is not a dependency). */
export interface BiomeV1Bindings {
  Workspace: abstract new () => object;
}

export interface BiomeV1FormatterOptions {
  version: string;
  bindings: () => Promise<BiomeV1Bindings>;
  /** The build's `biome_wasm.d.ts`: its configuration schema, for the unknown-key check. */
  declarations: () => Promise<string>;
}

interface V1Path {
  path: string;
  kind: string[];
  was_written: boolean;
}
interface V1Workspace {
  free(): void;
  registerProjectFolder(params: { path?: string; setAsCurrentWorkspace: boolean }): unknown;
  updateSettings(params: { configuration: unknown; gitignore_matches: string[]; workspace_directory?: string }): void;
  fileFeatures(params: { path: V1Path; features: string[] }): { features_supported: Map<string, string> | Record<string, string> };
  openFile(params: { path: V1Path; content: string; version: number }): void;
  formatFile(params: { path: V1Path }): { code: string };
  formatRange(params: { path: V1Path; range: [number, number] }): { code: string; range?: [number, number] | null };
  closeFile(params: { path: V1Path }): void;
}

/** The configuration schema: interface name → property → type, and array aliases (`type Overrides = OverridePattern[]`). */
export interface BiomeV1Schema {
  interfaces: Map<string, Map<string, string>>;
  arrays: Map<string, string>;
}

/** Reads the configuration interfaces out of a 1.x build's `biome_wasm.d.ts`. */
export function parseBiomeV1Schema(declarations: string): BiomeV1Schema {
  const interfaces = new Map<string, Map<string, string>>();
  for (const match of declarations.matchAll(/^interface (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const properties = new Map<string, string>();
    for (const property of (match[2] as string).matchAll(/^\t("[^"]+"|[\w$]+)\??: ([^;]+);$/gm)) {
      properties.set((property[1] as string).replace(/^"|"$/g, ''), (property[2] as string).trim());
    }
    interfaces.set(match[1] as string, properties);
  }
  const arrays = new Map<string, string>();
  for (const match of declarations.matchAll(/^type (\w+) = (\w+)\[\];$/gm)) arrays.set(match[1] as string, match[2] as string);
  return { interfaces, arrays };
}

/** The first key of `value` (a config at `typeName`) the schema does not have, as a dotted path. */
export function unknownBiomeV1Key(schema: BiomeV1Schema, typeName: string, value: unknown, at = ''): string | undefined {
  const type = typeName.replace(/\s*\|\s*null$/, '');
  const element = type.endsWith('[]') ? type.slice(0, -2) : schema.arrays.get(type);
  if (element !== undefined) {
    if (!Array.isArray(value)) return undefined;
    for (const [index, item] of value.entries()) {
      const found = unknownBiomeV1Key(schema, element, item, `${at}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  const properties = schema.interfaces.get(type);
  // A union, an enum or a scalar: its values are the deserializer's to judge.
  if (!properties || !isRecord(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const path = at ? `${at}.${key}` : key;
    const propertyType = properties.get(key);
    if (propertyType === undefined) return path;
    const found = unknownBiomeV1Key(schema, propertyType, item, path);
    if (found) return found;
  }
  return undefined;
}

const PROJECT_DIR_PREFIX = '/project-';
const MAX_PROJECTS = 16;
const MAX_CHECKED = 256;
const HANDLEABLE = ['Handleable'];

type Project = { workspace: V1Workspace; directory: string } | { error: string };

/** Why a 1.x Biome cannot honour this request's config as its CLI would, if it cannot. */
export function biomeV1Refusal(version: string, request: Pick<AdapterRequest, 'settings' | 'settingsDir' | 'configSources'>): string | undefined {
  if (request.settingsDir && request.settingsDir !== '.') {
    return `${request.settingsDir}/ has its own Biome config; Biome ${version} reads only the root config and formatbox does not yet apply 1.x's single config to files under a nested one`;
  }
  const settings = isRecord(request.settings) ? request.settings : {};
  if (isRecord(settings.formatter) && settings.formatter.useEditorconfig === true) {
    return `formatter.useEditorconfig: formatbox reads .editorconfig as Biome 2 does, not as Biome ${version} does`;
  }
  for (const source of request.configSources ?? []) {
    if (source.package === undefined) continue;
    const bare = /^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/i.test(source.package) && !/\.jsonc?$/.test(source.package);
    const atPackageRoot = new RegExp(`(^|/)node_modules/${source.package.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/biome\\.jsonc?$`).test(source.file);
    if (!bare || !atPackageRoot) {
      return `extends ${JSON.stringify(source.package)} resolved to ${source.file}; Biome ${version} resolves package extends differently from Biome 2 except for a package's own root biome.json, so formatbox does not format with it`;
    }
  }
  return undefined;
}

export function biomeV1Formatter(options: BiomeV1FormatterOptions): FormatterAdapter {
  const { version } = options;
  let live: { Workspace: new () => V1Workspace; schema: BiomeV1Schema; projects: Map<string, Project>; opened: number; checked: Map<string, string | undefined> } | undefined;
  const state = lazy(async () => {
    const [bindings, declarations] = await Promise.all([options.bindings(), options.declarations()]);
    live = { Workspace: bindings.Workspace as unknown as new () => V1Workspace, schema: parseBiomeV1Schema(declarations), projects: new Map(), opened: 0, checked: new Map() };
    if (!live.schema.interfaces.has('PartialConfiguration')) throw new Error(`Biome ${version}'s declarations have no PartialConfiguration`);
    return live;
  });

  /** A workspace holding `configuration` for a project in `directory`, or Biome's error for it. */
  function openProject(Workspace: new () => V1Workspace, configuration: unknown, directory: string): Project {
    const workspace = new Workspace();
    try {
      workspace.registerProjectFolder({ path: directory, setAsCurrentWorkspace: true });
      workspace.updateSettings({ configuration, gitignore_matches: [], workspace_directory: directory });
      return { workspace, directory };
    } catch (error) {
      workspace.free();
      return { error: firstLine(messageOf(error)).replace(/^(Error:\s*)+/, '') || 'rejected without a message' };
    }
  }

  /** The 1.x CLI's verdict on one config file: syntax by its extension, unknown keys, values. */
  function configErrorOf(current: NonNullable<typeof live>, source: ConfigSource): string | undefined {
    const key = `${source.file}\0${source.text}`;
    if (current.checked.has(key)) return current.checked.get(key);
    let verdict: string | undefined;
    const strict = !source.file.endsWith('.jsonc');
    let value: unknown;
    if (strict) {
      try {
        value = JSON.parse(source.text);
      } catch (error) {
        verdict = `Biome ${version} reads ${source.file.slice(source.file.lastIndexOf('/') + 1)} as JSON, without comments or trailing commas: ${firstLine(messageOf(error)).replace(/, ".*$/, '')}`;
      }
    } else {
      const parsed = parseData(source.text, 'jsonc');
      if (parsed.ok) value = parsed.value;
      else verdict = parsed.reason;
    }
    if (verdict === undefined) {
      const unknown = unknownBiomeV1Key(current.schema, 'PartialConfiguration', value);
      if (unknown) verdict = `Found an unknown key \`${unknown}\` (Biome ${version}'s configuration has no such key)`;
    }
    if (verdict === undefined) {
      const { extends: _extends, $schema: _schema, ...rest } = isRecord(value) ? value : {};
      const project = openProject(current.Workspace, rest, '/check');
      if ('error' in project) verdict = project.error;
      else project.workspace.free();
    }
    const described = verdict === undefined ? undefined : `invalid project config: ${source.file}: ${verdict}`;
    if (current.checked.size >= MAX_CHECKED) current.checked.clear();
    current.checked.set(key, described);
    return described;
  }

  function projectFor(current: NonNullable<typeof live>, settings: unknown): Project {
    const configuration = formattingOnly(settings);
    const key = JSON.stringify(configuration);
    const known = current.projects.get(key);
    if (known) return known;
    if (current.projects.size >= MAX_PROJECTS) {
      const [oldestKey, oldest] = current.projects.entries().next().value as [string, Project];
      current.projects.delete(oldestKey);
      if ('workspace' in oldest) oldest.workspace.free();
    }
    const project = openProject(current.Workspace, configuration, `${PROJECT_DIR_PREFIX}${current.opened++}`);
    current.projects.set(key, 'error' in project ? { error: `invalid Biome configuration: ${project.error}` } : project);
    return current.projects.get(key) as Project;
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
      for (const source of request.configSources ?? []) {
        const rejected = configErrorOf(current, source);
        if (rejected) return { kind: 'error', message: rejected, config: true };
      }
      const refusal = biomeV1Refusal(version, request);
      if (refusal) return { kind: 'error', message: refusal, config: true };
      const project = projectFor(current, request.settings);
      if ('error' in project) return { kind: 'error', message: project.error, config: true };
      const { workspace } = project;
      const path: V1Path = { path: `${project.directory}/${request.path.replace(/^(\.\/|\/)+/, '')}`, kind: HANDLEABLE, was_written: false };
      let support: string | undefined;
      try {
        const features = workspace.fileFeatures({ path, features: ['Format'] }).features_supported;
        support = features instanceof Map ? features.get('Format') : features.Format;
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      }
      if (support !== 'Supported') return { kind: 'unsupported', reason: unsupportedReason(support ?? 'unknown') };
      try {
        workspace.openFile({ path, content: request.text, version: 0 });
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      }
      try {
        if (request.range) {
          const byteStart = utf16ToByteOffset(request.text, request.range.utf16Start);
          const byteEnd = utf16ToByteOffset(request.text, request.range.utf16End);
          const printed = workspace.formatRange({ path, range: [byteStart, byteEnd] });
          if (!printed.range) return { kind: 'ok', text: request.text };
          const start = byteToUtf16Offset(request.text, printed.range[0]);
          const end = byteToUtf16Offset(request.text, printed.range[1]);
          return { kind: 'ok', text: request.text.slice(0, start) + printed.code + request.text.slice(end) };
        }
        return { kind: 'ok', text: workspace.formatFile({ path }).code, lineEnding: 'output' };
      } catch (error) {
        return { kind: 'error', message: firstLine(messageOf(error)) };
      } finally {
        try {
          workspace.closeFile({ path });
        } catch {
          // Closing a file that failed to open cleanly is not worth surfacing.
        }
      }
    },

    async preload() {
      await state.get();
    },

    dispose() {
      for (const project of live?.projects.values() ?? []) if ('workspace' in project) project.workspace.free();
      live = undefined;
      state.reset();
    },
  };
}

/** The configuration as the workspace should see it: formatting only (the linter and import sorting off), no pointers to other files. */
function formattingOnly(settings: unknown): Record<string, unknown> {
  if (!isPlainObject(settings)) return {};
  const { extends: _extends, $schema: _schema, root: _root, ...configuration } = settings;
  for (const key of ['linter', 'organizeImports']) {
    const section = configuration[key];
    if (section === undefined || isPlainObject(section)) configuration[key] = { ...(section ?? {}), enabled: false };
  }
  return configuration;
}

function unsupportedReason(support: string): string {
  switch (support) {
    case 'Ignored':
      return 'ignored by project config';
    case 'FeatureNotEnabled':
      return 'formatting is turned off for this file by project config';
    case 'Protected':
      return 'Biome never formats this file (protected)';
    case 'FileNotSupported':
      return 'Biome does not format this kind of file';
    default:
      return `Biome cannot format this file (${support})`;
  }
}
