/**
 * Where a dprint project pins its plugins: the version in each plugin URL of the root dprint config
 * (`https://plugins.dprint.dev/markdown-0.17.8.wasm`), or the installed npm package a plugin path
 * names (`./node_modules/@dprint/json/plugin.wasm`). One pin per plugin formatbox ships, named as
 * the plugin names itself (`dprint-plugin-markdown`), since each has its own version.
 */
import semverValid from 'semver/functions/valid.js';
import { isRecord, parseData } from '../../config/data.js';
import { parseJson, semverAllows } from '../../config/npm-pins.js';
import type { PinFiles, PinReader, VersionPin } from '../../config/pins.js';
import { DPRINT_CONFIG_NAMES, DPRINT_PLUGINS } from './config.js';

const PLUGIN_NAMES = DPRINT_PLUGINS.join('|');
const PLUGIN_URL = new RegExp(`^https://plugins\\.dprint\\.dev/(${PLUGIN_NAMES})-(\\d+\\.\\d+\\.\\d+)\\.wasm(?:@([0-9a-f]{64}))?$`, 'i');
const NPM_PLUGIN_PATH = new RegExp(`(?:^|/)node_modules/@dprint/(${PLUGIN_NAMES})/plugin\\.wasm$`);

export const dprintPin: PinReader = {
  sourceFiles: DPRINT_PLUGINS.map((name) => `node_modules/@dprint/${name}/package.json`),
  // The TOML plugin is the `toml` formatter's adapter.
  adapters: Object.fromEntries(DPRINT_PLUGINS.map((name) => [`dprint-plugin-${name}`, name === 'toml' ? 'toml' : `dprint:${name}`])),
  read: readDprintPins,
  allows: semverAllows,
};

function readDprintPins(files: PinFiles): VersionPin[] {
  const file = DPRINT_CONFIG_NAMES.find((name) => typeof files[name] === 'string');
  if (!file) return [];
  const parsed = parseData(files[file] as string, 'jsonc');
  if (!parsed.ok || !isRecord(parsed.value) || !Array.isArray(parsed.value.plugins)) return [];
  const pins: VersionPin[] = [];
  for (const entry of parsed.value.plugins) {
    if (typeof entry !== 'string') continue;
    const pin = pinOf(files, file, entry);
    if (pin && !pins.some((p) => p.formatter === pin.formatter)) pins.push(pin);
  }
  return pins;
}

function pinOf(files: PinFiles, file: string, entry: string): VersionPin | undefined {
  const url = PLUGIN_URL.exec(entry);
  if (url && semverValid(url[2]!)) return { formatter: `dprint-plugin-${url[1]!.toLowerCase()}`, spec: url[2]!, exact: true, source: `${file} plugins`, ...(url[3] ? { sha256: url[3].toLowerCase() } : {}) };
  const npm = NPM_PLUGIN_PATH.exec(entry);
  if (!npm) return undefined;
  const installedPath = `node_modules/@dprint/${npm[1]}/package.json`;
  const installed = parseJson(files[installedPath]);
  if (!isRecord(installed) || installed.name !== `@dprint/${npm[1]}` || typeof installed.version !== 'string' || !semverValid(installed.version)) return undefined;
  return { formatter: `dprint-plugin-${npm[1]}`, spec: semverValid(installed.version)!, exact: true, source: installedPath };
}
