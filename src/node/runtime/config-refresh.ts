/**
 * Config and pins as they are on disk now. Discovery and the pin files are read at the start and again
 * whenever the config watch (config-watch.ts) says a config file along a file's path, or a pin file,
 * changed; a config file written through the runtime itself is always picked up.
 */
import type { Engine } from '../../engine/engine.js';
import type { IgnoredItem, ProjectFiles } from '../../core/types.js';
import { CONFIG_FILE_NAMES } from '../../config/index.js';
import { discoverProjectFiles } from '../discover.js';
import { readPinFiles } from '../pin-files.js';
import type { RuntimeState } from './state.js';

const CONFIG_NAMES = new Set(CONFIG_FILE_NAMES);

export function isConfigFile(path: string): boolean {
  return CONFIG_NAMES.has(path.slice(path.lastIndexOf('/') + 1));
}

/**
 * Discovers the config files and reads the pin files, and makes them the known state: recorded for
 * doctor and taken by the config watch. Returns what the engine is given.
 */
export async function readProjectConfig(state: RuntimeState): Promise<{ files: ProjectFiles; unread: IgnoredItem[]; pinFiles: ProjectFiles }> {
  const discovered = await discoverProjectFiles(state.rootReal, { refuseHardLinks: state.trust === 'untrusted' });
  const pins = readPinFiles(state.rootReal, discovered.files);
  state.discovered = { files: discovered.files, ignored: discovered.ignored };
  state.pinIgnored = pins.ignored;
  state.configWatch.reset(discovered.files, pins, discovered.absent);
  return { files: discovered.files, unread: unreadByDiscovery(discovered.ignored), pinFiles: pins.files };
}

/** Whether config or pins the engine holds are stale for a format of `path` (always false with `watchConfig: false`). */
export function configChanged(state: RuntimeState, path: string): boolean {
  return state.watchConfig && state.configWatch.changed(path);
}

/**
 * Before each format: when a project config file was written here, or a config file along the file's
 * path or a pin file changed, appeared or disappeared on disk (git, an editor, `sed`, an install),
 * selection must see the new config and pins.
 */
export async function refreshConfigIfNeeded(state: RuntimeState, eng: Engine, paths: string[]): Promise<void> {
  if (paths.some(isConfigFile) || paths.some((path) => configChanged(state, path))) await refreshConfig(state, eng);
}

export async function refreshConfig(state: RuntimeState, eng: Engine): Promise<void> {
  const { files, unread, pinFiles } = await readProjectConfig(state);
  eng.setProjectFiles(files, { unread, pinFiles });
}

/** Of discovery's ignored items, those that mean config may be missing: a stopped search, a config file not read. */
function unreadByDiscovery(ignored: IgnoredItem[]): IgnoredItem[] {
  return ignored.filter((item) => item.item === 'config search' || item.reason.startsWith('not read') || item.reason.startsWith('larger than') || item.reason.startsWith('could not be opened') || item.reason === 'not a regular file');
}
