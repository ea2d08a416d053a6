/**
 * Trusted mode only (`createRuntime({ trust: 'trusted' })`, the user's explicit choice): the project's
 * own Prettier (formatbox's when it has none) resolves the project's config and plugins, from the
 * project root, exactly as the Prettier CLI run there would — JS/TS
 * config files, `package.json` string configs, `plugins` of every form, `.editorconfig`.
 * This runs code from the repository. It is never used in untrusted mode.
 */
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isInside } from './fs/paths.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo } from '../core/types.js';
import { messageOf } from '../core/errors.js';
import { PRETTIER_LANGUAGES, PRETTIER_RANGE_LANGUAGES } from '../formatters/prettier/adapter.js';

type PrettierModule = typeof import('prettier');

interface TrustedPrettierOptions {
  /** Prettier's config cache; default false so config edits are picked up on the next call. */
  useCache?: boolean;
}

export function trustedPrettierFormatter(root: string, options: TrustedPrettierOptions = {}): FormatterAdapter {
  const absoluteRoot = resolve(root);
  let loaded: Promise<PrettierModule> | undefined;
  const prettier = (): Promise<PrettierModule> => (loaded ??= projectPrettier(absoluteRoot));

  return {
    name: 'prettier',
    via: 'js',
    languages: PRETTIER_LANGUAGES,
    supportsRange: true,
    rangeLanguages: PRETTIER_RANGE_LANGUAGES,

    async info(): Promise<FormatterInfo> {
      return { name: 'prettier', version: (await prettier()).version, via: 'js' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const p = await prettier();
      const file = resolve(absoluteRoot, request.path);
      if (!isInside(file, absoluteRoot)) return { kind: 'refused', reason: `${request.path} is outside the project root` };
      try {
        const config = (await p.resolveConfig(file, { editorconfig: true, useCache: options.useCache ?? false })) ?? {};
        const { overrides: _overrides, ...rest } = config as Record<string, unknown>;
        if (Array.isArray(rest.plugins)) rest.plugins = rest.plugins.map((plugin: unknown) => fromProject(plugin, absoluteRoot));
        const formatOptions: Record<string, unknown> = {
          ...rest,
          filepath: file,
          // LF in, LF out (the engine restores the file's own endings) unless the project asks otherwise.
          endOfLine: rest.endOfLine === 'crlf' || rest.endOfLine === 'cr' ? rest.endOfLine : 'lf',
        };
        if (request.range) {
          formatOptions.rangeStart = request.range.utf16Start;
          formatOptions.rangeEnd = request.range.utf16End;
        }
        const info = await p.getFileInfo(file, { resolveConfig: false, plugins: (rest.plugins as string[] | undefined) ?? [] });
        if (!info.inferredParser && rest.parser === undefined) return { kind: 'unsupported', reason: `no Prettier parser for ${request.path}` };
        return { kind: 'ok', text: await p.format(request.text, formatOptions) };
      } catch (error) {
        const loc = (error as { loc?: { start?: { line?: number; column?: number } } } | null)?.loc?.start;
        const message = messageOf(error).split('\n')[0] ?? 'prettier failed';
        return { kind: 'error', message: loc?.line !== undefined && !/\(\d+:\d+\)\s*$/.test(message) ? `${message} (${loc.line}:${loc.column ?? 0})` : message };
      }
    },

    dispose() {
      loaded = undefined;
    },
  };
}

/**
 * The project's own Prettier (its version, which its plugins are built against), as the CLI run in
 * the root would load it; formatbox's own when the project has none installed.
 */
async function projectPrettier(root: string): Promise<PrettierModule> {
  try {
    const manifest = createRequire(join(root, 'noop.js')).resolve('prettier/package.json');
    const module = (await import(pathToFileURL(join(dirname(manifest), 'index.mjs')).href)) as PrettierModule;
    if (typeof module.format === 'function' && typeof module.resolveConfig === 'function') return module;
  } catch {
    // not installed in the project (or not Prettier 3): formatbox's own
  }
  return import('prettier');
}

/**
 * A plugin named by package is found from the project root, as the Prettier CLI run in the root finds
 * it (Prettier itself looks from `process.cwd()`, which is not the project in an embedding program).
 * Paths (Prettier made a config's `./x` absolute already) and URLs go through unchanged, and so does a
 * name the root does not resolve: Prettier then reports it missing as it would.
 */
function fromProject(plugin: unknown, root: string): unknown {
  if (typeof plugin !== 'string' || isAbsolute(plugin) || plugin.startsWith('.') || /^[a-z][a-z\d+.-]*:/i.test(plugin)) return plugin;
  try {
    return createRequire(join(root, 'noop.js')).resolve(plugin);
  } catch {
    return plugin;
  }
}

/**
 * Worker entry for trusted mode: the runtime loads this module in its formatter worker as
 * `trusted-prettier.js?root=<absolute root>`, so the project's Prettier config and plugins run off the
 * main thread, under the same timeout and memory watch as every other formatter.
 */
export function createAdapters(): FormatterAdapter[] {
  const root = new URL(import.meta.url).searchParams.get('root');
  if (!root) throw new Error('trusted-prettier: the module URL carries no ?root=');
  return [trustedPrettierFormatter(root)];
}

/** The module URL the runtime hands to its worker pool for trusted mode. */
export function trustedPrettierModuleUrl(root: string): string {
  const here = import.meta.url;
  const file = here.endsWith('.ts') ? './trusted-prettier.ts' : './trusted-prettier.js';
  const url = new URL(file, here);
  url.searchParams.set('root', resolve(root));
  return url.href;
}
