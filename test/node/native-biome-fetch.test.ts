// formatbox's own native Biome (the project-wide pass's fast first check) is not in the default
// install: `formatbox format` fetches the official `@biomejs/cli-<platform>` build of its Biome
// version into the formatter store on first use, verified against the registry's integrity, and
// runs it only in the sandbox. Here: fetched from the real registry into a private store and asked
// its version in the real sandbox; found again without a fetch; a tampered binary is not used; an
// unreachable registry is an answer that says why, and the next run does not wait on it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fetchNativeBiomeIfAbsent, findNativeBiome } from '../../src/node/biome-native.js';
import { checkNativeBiome, nativeBiomePackage } from '../../src/node/pinned-biome-native.js';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { detectSandbox } from '../../src/node/sandbox/index.js';
import { closedPort } from '../closed-port.js';

function tempDir(t: { after: (fn: () => void) => void }, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A module URL from which no `@biomejs/cli-*` package resolves: formatbox installed without it. */
function bareInstall(t: { after: (fn: () => void) => void }): string {
  const dir = tempDir(t, 'fb-bare-');
  writeFileSync(join(dir, 'entry.js'), '');
  return pathToFileURL(join(dir, 'entry.js')).href;
}

const platform = nativeBiomePackage();
/** formatbox's Biome version: its wasm build's, pinned exactly. */
const BIOME_VERSION = (JSON.parse(readFileSync(new URL('../../node_modules/@biomejs/wasm-web/package.json', import.meta.url), 'utf8')) as { version: string }).version;


test('not installed: fetched once from the registry into the store, verified, and it is the version it should be (in the sandbox)', { skip: platform ? false : `formatbox fetches no native Biome for ${process.platform}-${process.arch}`, timeout: 180_000 }, async (t) => {
  const from = bareInstall(t);
  const store = createFormatterStore({ dir: tempDir(t, 'fb-native-store-') });
  const before = findNativeBiome(from, store);
  assert.ok('unavailable' in before);
  assert.match(before.unavailable, /is installed \(@biomejs\/cli-linux-[a-z0-9]+@\d+\.\d+\.\d+\) or fetched yet \(`formatbox format` fetches it on first use\)/);

  const fetched = await fetchNativeBiomeIfAbsent({ from, store });
  assert.ok(fetched, 'there was something to fetch');
  if ('unavailable' in fetched) {
    if (process.env.CI) assert.fail(fetched.unavailable);
    t.skip(`the npm registry is not reachable here: ${fetched.unavailable}`);
    return;
  }
  assert.equal(fetched.version, BIOME_VERSION);
  assert.ok(fetched.binary.startsWith(store.dir), fetched.binary);
  assert.ok((statSync(fetched.binary).mode & 0o111) !== 0, 'stored executable');
  const stored = store.lookup(platform!, BIOME_VERSION);
  assert.ok(stored && /^sha512-/.test(stored.integrity));

  // Found again without a fetch (a fresh store object: verified from disk).
  const again = createFormatterStore({ dir: store.dir });
  assert.equal(await fetchNativeBiomeIfAbsent({ from, store: again }), undefined, 'nothing left to fetch');
  assert.deepEqual(findNativeBiome(from, again), fetched);

  const sandbox = detectSandbox();
  if (sandbox.unavailable) {
    if (process.env.CI) assert.fail(sandbox.unavailable);
    t.diagnostic(`the version check in the sandbox is skipped: ${sandbox.unavailable}`);
  } else {
    assert.equal(await checkNativeBiome(sandbox, fetched), undefined);
  }

  // A tampered binary is not used: the store removes the entry, and it is absent again.
  const bytes = readFileSync(fetched.binary);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
  writeFileSync(fetched.binary, bytes);
  const tampered = findNativeBiome(from, createFormatterStore({ dir: store.dir }));
  assert.ok('unavailable' in tampered, 'a changed binary is refused');
  assert.equal(existsSync(fetched.binary), false, 'and removed, so the next fetch writes a whole new entry');
});

test('unreachable registry: the answer says it could not be fetched, and the next run within the hour does not try again', { skip: platform ? false : `formatbox fetches no native Biome for ${process.platform}-${process.arch}`, timeout: 60_000 }, async (t) => {
  const from = bareInstall(t);
  const dir = tempDir(t, 'fb-native-offline-');
  // A loopback port nothing listens on: refused at once, as an offline machine's registry is.
  const registry = `http://127.0.0.1:${await closedPort()}/`;
  const offline = createFormatterStore({ dir, env: { HOME: dir, npm_config_registry: registry } });
  const first = await fetchNativeBiomeIfAbsent({ from, store: offline });
  assert.ok(first && 'unavailable' in first);
  assert.match(first.unavailable, new RegExp(`native Biome ${BIOME_VERSION.replace(/\./g, '\\.')} is not installed and could not be fetched \\(http://127\\.0\\.0\\.1:\\d+/@biomejs%2fcli-linux-[a-z0-9]+: unreachable \\(.*ECONNREFUSED`));
  const second = await fetchNativeBiomeIfAbsent({ from, store: createFormatterStore({ dir, env: { HOME: dir, npm_config_registry: registry } }) });
  assert.ok(second && 'unavailable' in second);
  assert.match(second.unavailable, /could not be fetched at \d{4}-\d\d-\d\dT.*the next try is an hour after that, or install @biomejs\/cli-linux-[a-z0-9]+@/);
  assert.ok('unavailable' in findNativeBiome(from, offline));
});
