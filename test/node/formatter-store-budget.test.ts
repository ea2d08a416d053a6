// The store's own budgets, through its API: entries beyond the on-disk budget are evicted least
// recently used first (never one the process uses), and a fetch larger than what is left of today's
// byte budget is stopped and counted. Tarballs are built here and served by a loopback registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createFormatterStore } from '../../src/node/formatter-store/store.js';

/** A one-file ustar package (`package/index.js` of `bytes` bytes). */
function tarball(version: string, bytes: number): Buffer {
  const body = Buffer.concat([Buffer.from(`// prettier ${version}\n`), randomBytes(bytes)]); // incompressible: the tarball is as large as its file
  const header = Buffer.alloc(512);
  header.write('package/index.js', 0, 100);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return gzipSync(Buffer.concat([header, body, Buffer.alloc((512 - (body.length % 512)) % 512), Buffer.alloc(1024)]));
}

async function registry(t: { after: (fn: () => void) => void }, versions: Record<string, Buffer>): Promise<string> {
  const server: Server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (request.url === '/prettier') {
      const listed = Object.fromEntries(Object.entries(versions).map(([v, tgz]) => [v, { dist: { tarball: `${base}/prettier/-/prettier-${v}.tgz`, integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}` } }]));
      response.end(JSON.stringify({ name: 'prettier', versions: listed }));
      return;
    }
    const match = /prettier-(.+)\.tgz$/.exec(request.url ?? '');
    const tgz = match ? versions[match[1]!] : undefined;
    if (tgz) response.end(tgz);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
}

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'fb-store-budget-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('over the on-disk budget, the least recently used entry is evicted; an entry this process uses is kept', async (t) => {
  const url = await registry(t, { '3.0.0': tarball('3.0.0', 100_000), '3.0.1': tarball('3.0.1', 100_000), '3.0.2': tarball('3.0.2', 100_000) });
  const dir = tempDir(t);
  const open = () => createFormatterStore({ dir, env: { HOME: '/nonexistent', npm_config_registry: url }, limits: { maxStoreBytes: 250_000 } });
  await open().fetch('prettier', '3.0.0');
  await new Promise((resolve) => setTimeout(resolve, 20));
  await open().fetch('prettier', '3.0.1');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // A later process: stores a third, which is over 250 kB: 3.0.0, used least recently, goes.
  const third = open();
  await third.fetch('prettier', '3.0.2');
  assert.equal(existsSync(join(dir, 'prettier@3.0.0')), false, 'the least recently used entry is evicted');
  assert.ok(existsSync(join(dir, 'prettier@3.0.1')));
  assert.ok(existsSync(join(dir, 'prettier@3.0.2')));
  const ledger = JSON.parse(readFileSync(join(dir, '.ledger.json'), 'utf8')) as { entries: Record<string, unknown> };
  assert.deepEqual(Object.keys(ledger.entries).sort(), ['prettier@3.0.1', 'prettier@3.0.2']);
  // The process that stored 3.0.2 keeps it even over budget: an entry is never pulled from under a running worker.
  assert.ok(third.lookup('prettier', '3.0.2'));
});

test("a tarball larger than what is left of today's byte budget is stopped, says so, and what was downloaded counts", async (t) => {
  const url = await registry(t, { '3.0.0': tarball('3.0.0', 400_000) });
  const dir = tempDir(t);
  const store = createFormatterStore({ dir, env: { HOME: '/nonexistent', npm_config_registry: url }, limits: { maxBytesPerDay: 50_000 } });
  await assert.rejects(store.fetch('prettier', '3.0.0'), /the download budget: it is larger than the \d+ KiB left of today's budget \(49 KiB a day\)/);
  assert.equal(existsSync(join(dir, 'prettier@3.0.0')), false);
  await assert.rejects(createFormatterStore({ dir, env: { HOME: '/nonexistent', npm_config_registry: url }, limits: { maxBytesPerDay: 50_000 } }).fetch('prettier', '3.0.0'), /the download budget: 49 KiB of formatters were fetched today, the most formatbox fetches a day \(49 KiB\)/);
});
