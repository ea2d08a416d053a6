/** gofmt (Go): declared by go.mod, formatted by a TinyGo wasm build of go/format. */
import { dirOf, isUnder, nearest } from '../../config/paths.js';
import type { FormatterModule } from '../module.js';
import { gofmtPin } from './pin.js';
import { loadGoModules, type GoModule } from './config.js';

export interface GofmtPart {
  go: GoModule[];
}

export const gofmt: FormatterModule<GofmtPart, object, 'gofmt'> = {
  id: 'gofmt',
  displayName: 'gofmt',
  adapterNames: ['gofmt'],
  languages: ['go'],
  configFiles: ['go.mod'],
  defaults: { go: 'gofmt' },
  pin: gofmtPin,
  wasm: [{ name: 'gofmt', package: '@wasm-fmt/gofmt', source: 'gofmt.wasm', file: 'gofmt.wasm' }],
  project: {
    empty: () => ({ go: [] }),
    load: (part, files, { ignored }) => part.go.push(...loadGoModules(files, ignored)),
  },
  declares(project, path, language) {
    if (language !== 'go') return undefined;
    const mod = nearest(project.go, path);
    return mod ? { formatter: 'gofmt', because: `${mod.file} declares Go (gofmt)` } : undefined;
  },
  settings: (project, _adapter, path) => ({ settings: {}, ignored: project.ignored.filter((i) => i.file.endsWith('go.mod') && isUnder(dirOf(i.file), path)) }),
};
