import type { BuiltinFactory } from '../module.js';
import { dprintPluginFormatter } from './adapter.js';

/** Chosen by a project's dprint.json or the user's `{dprint: 'markdown' | 'json'}`; by default only for Dockerfiles. */
export const builtins: BuiltinFactory = (wasm) => [
  ...(wasm['dprint-markdown'] ? [dprintPluginFormatter({ wasm: wasm['dprint-markdown'], name: 'dprint:markdown', section: 'markdown', languages: ['markdown'] })] : []),
  ...(wasm['dprint-json'] ? [dprintPluginFormatter({ wasm: wasm['dprint-json'], name: 'dprint:json', section: 'json', languages: ['json', 'jsonc'] })] : []),
  ...(wasm['dprint-dockerfile'] ? [dprintPluginFormatter({ wasm: wasm['dprint-dockerfile'], name: 'dprint:dockerfile', section: 'dockerfile', languages: ['dockerfile'] })] : []),
];
