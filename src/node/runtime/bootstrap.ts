/**
 * The engine of a runtime, started on its first call: temp files of a killed process swept, config
 * discovered and pins read, the worker pool's adapters, the sandboxed subprocess formatters, the
 * project's own wasm (`{wasi}`, dprint plugins) and the pinned-version store wired into one engine.
 * A start that fails is tried again on the next call.
 */
import { createEngine, type Engine } from '../../engine/engine.js';
import { FormatboxError } from '../../core/errors.js';
import type { FormatterAdapter, FormatterChoice } from '../../core/types.js';
import type { VersionPin } from '../../config/pins.js';
import { loadDprintConfigs } from '../../formatters/dprint/config.js';
import { sweepTree } from '../fs/sweep.js';
import { nodeSha256 } from '../hash.js';
import { localDprintRules, projectDprintAdapterFor, projectWasiAdapterFor } from '../project-wasm.js';
import { createSubprocessFormatters } from '../subprocess.js';
import { detectSandbox } from '../sandbox/index.js';
import { readProjectConfig } from './config-refresh.js';
import { projectCodeFor } from './project-code.js';
import type { RuntimeState } from './state.js';

export function engineOf(state: RuntimeState): Promise<Engine> {
  if (state.closed) return Promise.reject(new FormatboxError('INVALID_REQUEST', 'the runtime is closed'));
  state.engineReady ??= startEngine(state).catch((error: unknown) => {
    state.engineReady = undefined;
    throw error;
  });
  return state.engineReady;
}

async function startEngine(state: RuntimeState): Promise<Engine> {
  const { rootReal, trust, limits, pool, pinned, options } = state;
  // Temp files of a process that died mid-write (SIGKILL) are removed on the next start.
  sweepTree(rootReal, undefined, state.swept);
  const [project, adapters] = await Promise.all([readProjectConfig(state), pool.adapters()]);
  // Subprocess formatters run on this thread: the work happens in the sandboxed process.
  const sub = createSubprocessFormatters({
    sandbox: detectSandbox(),
    root: rootReal,
    trust,
    timeoutMs: limits.timeoutMs,
    ...(options.approve ? { approve: options.approve } : {}),
  });
  state.subprocess = sub;
  const wasiFor = projectWasiAdapterFor({ pool, rootReal });
  const dprintFor = projectDprintAdapterFor({ pool, rootReal, ...(options.config?.wasmPins ? { pins: options.config.wasmPins } : {}) });
  // .wasm plugins a dprint.json lists inside the repo: asked (in the worker) which files they take.
  const dprintConfigs = loadDprintConfigs(project.files, []);
  const local = dprintConfigs.some((c) => c.localPlugins.length > 0)
    ? await localDprintRules(pool, rootReal, dprintConfigs, options.config?.wasmPins)
    : { rules: {}, plugins: [] };
  state.localPlugins = local.plugins;
  const config = Object.keys(local.rules).length > 0 ? { ...options.config, formatters: { ...(options.config?.formatters ?? {}), ...local.rules } } : options.config;
  return createEngine({
    formatters: [...adapters, ...sub.adapters],
    ...(config ? { config } : {}),
    projectFiles: project.files,
    unread: project.unread,
    pinFiles: project.pinFiles,
    sha256: nodeSha256,
    trust,
    limits,
    ...(trust === 'untrusted' ? { projectCode: projectCodeFor(state) } : {}),
    ...(pinned ? { pinnedAdapter: (formatter: string, pin: VersionPin) => pinned.adapterFor(formatter, pin, { root: rootReal, trusted: trust === 'trusted' }) } : {}),
    adapterFor: (choice: FormatterChoice, language: string): FormatterAdapter | undefined => wasiFor(choice, language) ?? dprintFor(choice, language) ?? sub.adapterFor(choice, language),
  });
}
