// The per-user store of pinned formatter versions, against the real npm registry (CI reaches it):
// fetched and verified against dist.integrity, stored whole, a tampered entry detected and fetched
// again. Tarballs that break the rules (a path escape, a link) are built here and served from a
// loopback registry for those cases only; an unreachable registry is a refusal that says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';
import { readPackageTarball } from '../../src/node/formatter-store/tar.js';
import { userRegistryFor } from '../../src/node/formatter-store/registry.js';
import { isFormatboxError } from '../../src/core/errors.js';
import { fetchOrSkip } from '../pinned-helpers.js';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'fb-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A ustar archive of the given entries (type '0' file, '2' symlink, '1' hard link). */
function tarball(entries: Array<{ name: string; body?: string; type?: string; link?: string }>): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    header.write(entry.type ?? '0', 156);
    if (entry.link) header.write(entry.link, 157, 100);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A loopback registry serving one version of `prettier` with the given tarball (and its true integrity). */
async function loopbackRegistry(t: { after: (fn: () => void) => void }, tgz: Buffer): Promise<string> {
  const server: Server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (request.url === '/prettier') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ name: 'prettier', 'dist-tags': { latest: '3.3.3' }, versions: { '3.3.3': { dist: { tarball: `${base}/prettier/-/prettier-3.3.3.tgz`, integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}` } } } }));
    } else if (request.url === '/prettier/-/prettier-3.3.3.tgz') response.end(tgz);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
}

async function refusal(run: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await run();
  } catch (error) {
    assert.ok(isFormatboxError(error) && error.code === 'FORMATTER_FETCH', String(error));
    assert.match(error.message, message);
    return;
  }
  assert.fail('expected a FORMATTER_FETCH refusal');
}

const registryEnv = (url: string): NodeJS.ProcessEnv => ({ HOME: '/nonexistent', npm_config_registry: url });

test('prettier 3.3.3 from the real registry: verified, stored, reused; a tampered entry is detected and fetched again', async (t) => {
  const dir = tempDir(t);
  const env = { ...process.env };
  delete env.npm_command;
  delete env.npm_lifecycle_event;
  delete env.npm_execpath;
  const store = createFormatterStore({ dir, env });
  assert.equal(store.lookup('prettier', '3.3.3'), undefined);
  const stored = await fetchOrSkip(t, store, 'prettier', '3.3.3');
  if (!stored) return;
  assert.equal(JSON.parse(readFileSync(join(stored.dir, 'package.json'), 'utf8')).version, '3.3.3');
  assert.ok(existsSync(join(stored.dir, 'standalone.mjs')));
  assert.match(stored.integrity, /^sha512-/);
  assert.deepEqual(readdirSync(dir).filter((name) => !name.startsWith('.')), ['prettier@3.3.3'], 'no temp directory left behind (beside the store key and ledger)');
  assert.deepEqual(store.state('prettier', '3.3.3'), { state: 'ready', stored });

  // A second store (another process, another root) reuses the entry after verifying it.
  const again = createFormatterStore({ dir, env: { HOME: '/nonexistent', npm_config_registry: 'http://127.0.0.1:9/' } });
  assert.deepEqual(again.lookup('prettier', '3.3.3'), stored);

  // Someone changes a file of the entry: the next lookup refuses the entry, and a fetch replaces it.
  writeFileSync(join(stored.dir, 'standalone.mjs'), 'globalThis.pwned = true;\n');
  const third = createFormatterStore({ dir, env });
  assert.equal(third.lookup('prettier', '3.3.3'), undefined);
  assert.equal(existsSync(join(dir, 'prettier@3.3.3')), false, 'the tampered entry is removed');
  const refetched = await third.fetch('prettier', '3.3.3');
  assert.doesNotMatch(readFileSync(join(refetched.dir, 'standalone.mjs'), 'utf8'), /pwned/);
  // A file added to an entry is tampering too.
  writeFileSync(join(refetched.dir, 'extra.js'), '');
  assert.equal(createFormatterStore({ dir, env }).lookup('prettier', '3.3.3'), undefined);
});

test('a tarball with a path escape, a link or an absolute path is refused whole, and nothing is stored', async (t) => {
  for (const [entries, message] of [
    [[{ name: 'package/package.json', body: '{}' }, { name: 'package/../../escape.js', body: 'x' }], /leaves the package/],
    [[{ name: 'package/package.json', body: '{}' }, { name: 'package/link', type: '2', link: '/etc/passwd' }], /symbolic link/],
    [[{ name: 'package/package.json', body: '{}' }, { name: 'package/hard', type: '1', link: 'package/package.json' }], /hard link/],
    [[{ name: '/abs/package.json', body: '{}' }], /absolute path/],
  ] as const) {
    const dir = tempDir(t);
    const url = await loopbackRegistry(t, tarball(entries as never));
    const store = createFormatterStore({ dir, env: registryEnv(url) });
    await refusal(() => store.fetch('prettier', '3.3.3'), message);
    assert.deepEqual(existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('.')) : [], []);
    assert.equal(store.state('prettier', '3.3.3').state, 'failed');
  }
});

test('an integrity mismatch is refused; so is a package or version the repository could name', async (t) => {
  const good = tarball([{ name: 'package/package.json', body: '{"version":"3.3.3"}' }]);
  const server: Server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (request.url === '/prettier') response.end(JSON.stringify({ versions: { '3.3.3': { dist: { tarball: `${base}/t.tgz`, integrity: `sha512-${createHash('sha512').update('something else').digest('base64')}` } } } }));
    else response.end(good);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const store = createFormatterStore({ dir: tempDir(t), env: registryEnv(`http://127.0.0.1:${(server.address() as { port: number }).port}`) });
  await refusal(() => store.fetch('prettier', '3.3.3'), /not the registry's dist.integrity/);
  await refusal(() => store.fetch('left-pad', '1.3.0'), /does not fetch the package/);
  await refusal(() => store.fetch('prettier', '../../x'), /not an exact version/);
  await refusal(() => store.fetch('prettier', '^3.3.0'), /not an exact version/);
});

test('an unreachable registry is a refusal that names it', async (t) => {
  const store = createFormatterStore({ dir: tempDir(t), env: registryEnv('http://127.0.0.1:9/') });
  await refusal(() => store.fetch('prettier', '3.3.3'), /127\.0\.0\.1:9\/prettier: unreachable/);
});

test("the registry comes from the user's npm config, never the project's; under npm the environment is not believed", (t) => {
  const home = tempDir(t);
  writeFileSync(join(home, '.npmrc'), 'registry=https://npm.example.com/base\n@biomejs:registry=https://biome.example.com/\n');
  assert.deepEqual(userRegistryFor('prettier', { HOME: home }), { url: 'https://npm.example.com/base/', source: '~/.npmrc', secrets: [] });
  assert.deepEqual(userRegistryFor('@biomejs/wasm-nodejs', { HOME: home }), { url: 'https://biome.example.com/', source: '~/.npmrc', secrets: [] });
  assert.deepEqual(userRegistryFor('prettier', { HOME: home, npm_config_registry: 'https://env.example.com' }), { url: 'https://env.example.com/', source: 'environment', secrets: [] });
  // npx in a repository copies the repository's .npmrc into npm_config_*: not believed.
  assert.deepEqual(userRegistryFor('prettier', { HOME: home, npm_config_registry: 'https://repo.example.com', npm_command: 'exec' }), { url: 'https://npm.example.com/base/', source: '~/.npmrc', secrets: [] });
  // The working directory's .npmrc is not read.
  const cwdNpmrc = join(process.cwd(), '.npmrc');
  assert.equal(existsSync(cwdNpmrc), false);
  assert.equal(userRegistryFor('prettier', { HOME: '/nonexistent' }).source.includes('.npmrc'), false);
});

test("the tar reader keeps files and directories, without npm's package/ prefix", () => {
  const files = readPackageTarball(tarball([{ name: 'package/package.json', body: '{"name":"x"}' }, { name: 'package/lib/a.js', body: 'a' }]));
  assert.deepEqual(files.map((f) => f.path), ['package.json', 'lib/a.js']);
});

test("an entry's files are hashed until their identities have settled, then known by them; any change to a file is hashed again and caught", async (t) => {
  const dir = tempDir(t);
  const url = await loopbackRegistry(t, tarball([{ name: 'package/package.json', body: '{"name":"prettier","version":"3.3.3"}' }, { name: 'package/index.js', body: 'module.exports = 1;\n' }]));
  const how: string[] = [];
  const open = () => createFormatterStore({ dir, env: registryEnv(url), onVerified: (_entry, verified) => how.push(verified) });
  const stored = await open().fetch('prettier', '3.3.3');
  const entry = join(dir, 'prettier@3.3.3');
  // Just written: hashed, and not recorded (a write in the same clock tick could leave a ctime equal).
  assert.deepEqual(open().lookup('prettier', '3.3.3'), stored);
  assert.equal(existsSync(join(entry, '.formatbox-verified.json')), false);
  await new Promise((resolve) => setTimeout(resolve, 2100));
  how.length = 0;
  assert.deepEqual(open().lookup('prettier', '3.3.3'), stored);
  assert.deepEqual(how, ['hashed'], 'settled: hashed once more, and recorded');
  assert.ok(existsSync(join(entry, '.formatbox-verified.json')));
  assert.deepEqual(open().lookup('prettier', '3.3.3'), stored);
  assert.deepEqual(how, ['hashed', 'identity'], 'then known by its identities, not hashed');
  // The same number of bytes, other bytes: the ctime moved, so the entry is hashed again, and refused.
  writeFileSync(join(stored.dir, 'index.js'), 'module.exports = 2;\n');
  assert.equal(open().lookup('prettier', '3.3.3'), undefined);
  assert.deepEqual(how, ['hashed', 'identity'], 'not taken as verified');
  assert.equal(existsSync(entry), false, 'the tampered entry is removed, its record with it');
});
