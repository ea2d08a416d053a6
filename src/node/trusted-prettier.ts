/**
 * Trusted mode only (`createRuntime({ trust: 'trusted' })`, the user's explicit choice): Prettier's
 * Node API resolves the project's config and plugins exactly as the Prettier CLI would — JS/TS
 * config files, `package.json` string configs, `plugins` of every form, `.editorconfig`.
 * This runs code from the repository. It is never used in untrusted mode.
 */
import { resolve } from 'node:path';
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
  const prettier = (): Promise<PrettierModule> => (loaded ??= import('prettier'));

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
