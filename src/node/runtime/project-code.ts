/**
 * What a runtime does with a formatter setup that is code in untrusted mode: the project's own
 * Prettier in the OS sandbox (project-toolchain/), or a refusal that says why (the user's
 * `projectCode: 'refuse'`, no OS sandbox here). Trusted mode never gets here: Prettier loads it in-process.
 */
import type { EngineOptions } from '../../engine/engine.js';
import { PRETTIER_CONFIG_NAMES } from '../../formatters/prettier/config.js';
import { baseOf } from '../../config/paths.js';
import { projectCodeUnavailable, projectPrettierAdapter, projectPrettierInstalled } from '../project-toolchain/index.js';
import { freshCloneAdapter, hasPackageLock } from '../project-toolchain/fresh-clone.js';
import type { RuntimeState } from './state.js';

/** What the worker's cached config resolution reads: a change to one starts a new worker. */
const CONFIG_NAMES: ReadonlySet<string> = new Set([...PRETTIER_CONFIG_NAMES, '.editorconfig']);

/** Why project code does not run sandboxed for this runtime, or undefined when it does. */
export function projectCodeRefusal(state: RuntimeState): string | undefined {
  const policy = state.options.projectCode ?? state.options.config?.projectCode ?? 'sandbox';
  if (policy === 'refuse') return `the ${state.options.projectCode ? 'runtime option' : 'user config'} says "projectCode": "refuse"`;
  return projectCodeUnavailable();
}

export function projectCodeFor(state: RuntimeState): EngineOptions['projectCode'] {
  const refused = projectCodeRefusal(state);
  if (refused) return () => ({ refused });
  const adapterWith = (modulesDir: string | undefined) =>
    projectPrettierAdapter({
      root: state.rootReal,
      timeoutMs: state.limits.timeoutMs,
      // A batch (`format`) with several threads runs as many sandboxed workers of the toolchain.
      parallel: state.options.workers ?? 1,
      configFiles: () => Object.keys(state.discovered.files).filter((path) => CONFIG_NAMES.has(baseOf(path))),
      ...(modulesDir ? { modulesDir } : {}),
    });
  const prettier = adapterWith(state.options.projectModulesDir);
  // A fresh clone: the toolchain its package-lock.json names, fetched into the store on first use.
  let fromLockfile: ReturnType<typeof freshCloneAdapter> | undefined;
  return (formatter) => {
    const missing = projectCodeMissing(state, formatter);
    if (missing) return { refused: missing };
    if (projectPrettierInstalled(state.rootReal, state.options.projectModulesDir)) return prettier;
    return (fromLockfile ??= freshCloneAdapter(state.rootReal, adapterWith, prettier));
  };
}

/** What the project lacks for its code to run sandboxed for `formatter`, or undefined. */
export function projectCodeMissing(state: RuntimeState, formatter: string): string | undefined {
  if (formatter !== 'prettier') return `only Prettier's project code runs in the sandbox, not ${formatter}'s`;
  if (projectPrettierInstalled(state.rootReal, state.options.projectModulesDir)) return undefined;
  // A fresh clone: the toolchain its package-lock.json names is fetched on first use.
  if (!state.options.projectModulesDir && hasPackageLock(state.rootReal)) return undefined;
  return 'the project has no Prettier installed (node_modules/prettier), and no package-lock.json to fetch it from';
}
