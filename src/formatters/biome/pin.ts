/** Where a project pins Biome: as an npm package, else the `$schema` URL of its root config. */
import semverValid from 'semver/functions/valid.js';
import { npmNestedReader, npmPin, npmPinSourceFiles, semverAllows } from '../../config/npm-pins.js';
import type { PinFiles, PinReader } from '../../config/pins.js';
import { BIOME_CONFIG_NAMES } from './config.js';

export const biomePin: PinReader = {
  sourceFiles: npmPinSourceFiles('@biomejs/biome'),
  read: (files) =>
    npmPin(files, {
      formatter: 'biome',
      packageName: '@biomejs/biome',
      ownExact(files) {
        const schema = biomeSchemaVersion(files);
        return schema && { version: schema.version, source: `${schema.file} $schema` };
      },
    }),
  // A workspace package that lists or installs its own @biomejs/biome: the binary its scripts run.
  // A nested biome.json (`"root": false`) alone pins nothing: Biome runs the root's binary over it,
  // and its `$schema` only names a schema for editors.
  ...npmNestedReader({ formatter: 'biome', packageName: '@biomejs/biome' }),
  allows: semverAllows,
  buildNeeded: (version) => `@biomejs/wasm-web or @biomejs/wasm-nodejs ${version} (biomeFormatter({bindings})), or its native CLI in a sandbox`,
};

/** `https://biomejs.dev/schemas/2.6.8/schema.json` in the root Biome config. */
function biomeSchemaVersion(files: PinFiles): { version: string; file: string } | undefined {
  for (const file of BIOME_CONFIG_NAMES) {
    const text = files[file];
    if (typeof text !== 'string') continue;
    const match = /"\$schema"\s*:\s*"https:\/\/(?:next\.)?biomejs\.dev\/schemas\/([^/"]+)\/schema\.json"/.exec(text.slice(0, 64 * 1024));
    const version = match ? semverValid(match[1]!) : null;
    if (version) return { version, file };
  }
  return undefined;
}
