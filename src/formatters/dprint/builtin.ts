import type { BuiltinFactory } from '../module.js';
import type { WasmSource } from '../../core/types.js';
import { dprintPluginFormatter } from './adapter.js';
import { DPRINT_PLUGIN_LANGUAGES } from './config.js';

/** Chosen by a project's dprint.json or the user's `{dprint: 'markdown' | 'json'}`; by default only for Dockerfiles. */
export const builtins: BuiltinFactory = (wasm) => [
  ...(wasm['dprint-markdown'] ? [dprintPluginFormatter({ wasm: wasm['dprint-markdown'], name: 'dprint:markdown', section: 'markdown', languages: DPRINT_PLUGIN_LANGUAGES.markdown, embedded: embeddedWasm(wasm) })] : []),
  ...(wasm['dprint-json'] ? [dprintPluginFormatter({ wasm: wasm['dprint-json'], name: 'dprint:json', section: 'json', languages: DPRINT_PLUGIN_LANGUAGES.json })] : []),
  ...(wasm['dprint-dockerfile'] ? [dprintPluginFormatter({ wasm: wasm['dprint-dockerfile'], name: 'dprint:dockerfile', section: 'dockerfile', languages: DPRINT_PLUGIN_LANGUAGES.dockerfile })] : []),
];

/** The shipped plugins that format Markdown's code blocks when a project lists them, by dprint.json section. */
function embeddedWasm(wasm: Parameters<BuiltinFactory>[0]): Record<string, WasmSource> {
  const bySection: Record<string, WasmSource | undefined> = { markdown: wasm['dprint-markdown'], json: wasm['dprint-json'], dockerfile: wasm['dprint-dockerfile'], toml: wasm.toml };
  return Object.fromEntries(Object.entries(bySection).filter((entry): entry is [string, WasmSource] => entry[1] !== undefined));
}
