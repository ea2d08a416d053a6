/**
 * go.mod's `toolchain` line, else its `go` line (a minimum language version). Both are shown by
 * doctor only: gofmt's output does not depend on either, so every version is allowed.
 */
import type { PinFiles, PinReader, VersionPin } from '../../config/pins.js';

export const gofmtPin: PinReader = {
  sourceFiles: [],
  read: readGoPin,
  allows: () => true,
};

function readGoPin(files: PinFiles): VersionPin | undefined {
  const text = files['go.mod'];
  if (typeof text !== 'string') return undefined;
  const toolchain = /^toolchain\s+go([0-9][0-9A-Za-z.]*)\s*$/m.exec(text);
  if (toolchain) return { formatter: 'gofmt', spec: toolchain[1]!, exact: true, source: 'go.mod toolchain', informational: true };
  const go = /^go\s+([0-9][0-9A-Za-z.]*)\s*$/m.exec(text);
  if (go) return { formatter: 'gofmt', spec: go[1]!, exact: false, source: 'go.mod go line', informational: true };
  return undefined;
}
