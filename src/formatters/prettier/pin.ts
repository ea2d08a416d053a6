/** Where a project pins Prettier: as an npm package; a Prettier config alone means any Prettier 3. */
import { npmNestedReader, npmPin, npmPinSourceFiles, parseJson, semverAllows } from '../../config/npm-pins.js';
import { isRecord } from '../../config/data.js';
import type { PinReader } from '../../config/pins.js';
import { PRETTIER_CONFIG_NAMES } from './config.js';

/** The config files whose presence alone implies Prettier 3 (package.json counts only with a "prettier" key). */
const IMPLYING_CONFIG_FILES = PRETTIER_CONFIG_NAMES.filter((name) => name !== 'package.json' && name !== 'package.yaml');

export const prettierPin: PinReader = {
  sourceFiles: npmPinSourceFiles('prettier'),
  read: (files) =>
    npmPin(files, {
      formatter: 'prettier',
      packageName: 'prettier',
      implied(files) {
        const manifest = parseJson(files['package.json']);
        const config = IMPLYING_CONFIG_FILES.find((file) => files[file] !== undefined) ?? (isRecord(manifest) && 'prettier' in manifest ? 'package.json "prettier"' : undefined);
        return config ? { formatter: 'prettier', spec: '3', exact: false, source: config, implied: true } : undefined;
      },
    }),
  // A workspace package with its own Prettier: the one prettier-vscode resolves from the file's directory.
  ...npmNestedReader({ formatter: 'prettier', packageName: 'prettier' }),
  allows: semverAllows,
  buildNeeded: (version) => `prettier ${version}: its standalone.mjs and plugins/*.mjs (prettierFormatter({modules}))`,
};
