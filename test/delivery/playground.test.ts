// `npm run playground` in real headless Chromium: the built page, its module Web Worker engine and
// its service worker. A script makes an edit and checks the receipt against Node's for the same
// request; then the server goes away and the reloaded page still formats (offline after first load).
// The status sits apart from the heading, a failure is styled apart, and an error clears the last
// result. A screenshot is kept as a test artifact (path printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { chromium } from 'playwright-core';
import { createEngine } from '../../src/index.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { buildPlayground, servePlayground } from '../../examples/playground/build.mjs';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) || process.env['CI'] ? false : `no Chromium at ${CHROMIUM}`;
if (skip) console.log(`# skipping the playground run: ${skip}`);

const PROJECT = { '.prettierrc': '{ "singleQuote": true }' };
const EDITS = [
  { path: 'src/cart.ts', prior: 'export function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n', oldText: 'return items.reduce((a, b) => a + b, 0);', newText: "const label=\"sum\"; return items.reduce((a,b)=>a+b,0)" },
  { path: 'src/b.ts', prior: 'export const a = 1;\n', oldText: 'export const a = 1;', newText: 'export const a={x:"y"}' },
];

test('playground: an edit in the page gives Node\'s receipt, and it still works offline', { skip, timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-playground-'));
  const { server, origin } = (await (async () => {
    await buildPlayground(dir);
    return servePlayground(dir, 0);
  })()) as { server: Server; origin: string };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${origin}/`);
    await page.waitForSelector('html[data-offline-ready]');

    async function editInPage(edit: (typeof EDITS)[number]) {
      await page.fill('#path', edit.path);
      await page.fill('#prior', edit.prior);
      await page.fill('#oldText', edit.oldText);
      await page.fill('#newText', edit.newText);
      await page.fill('#project', JSON.stringify(PROJECT));
      await page.evaluate(() => (document.getElementById('receipt-line')!.textContent = ''));
      await page.click('#run');
      await page.waitForFunction(() => document.getElementById('receipt-line')!.textContent !== '', undefined, { timeout: 120_000 });
      return page.evaluate(() => Object.fromEntries(['receipt-line', 'formatted', 'rewritten', 'diff'].map((id) => [id, document.getElementById(id)!.textContent])));
    }
    async function inNode(edit: (typeof EDITS)[number]) {
      const engine = createEngine({ formatters: createBuiltinAdapters(), projectFiles: PROJECT, config: { mode: 'always' } });
      const receipt = await engine.afterEdit({ path: edit.path, prior: edit.prior, input: { oldText: edit.oldText, newText: edit.newText } });
      return { 'receipt-line': receipt.line, formatted: receipt.content, rewritten: JSON.stringify(receipt.input, null, 2), diff: receipt.diff ?? '(none: the rewritten input alone gives the file)' };
    }

    const first = await editInPage(EDITS[0]!);
    assert.deepEqual(first, await inNode(EDITS[0]!));
    assert.match(first['receipt-line']!, /^formatted \(prettier 3\.10\.1, js\): src\/cart\.ts$/);
    const shots = join(process.cwd(), '.tmp');
    mkdirSync(shots, { recursive: true });
    const screenshot = join(shots, 'playground.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`# playground screenshot: ${screenshot}`);

    // The heading holds no status; a receipt that is not a success is styled apart from one that
    // is; an error clears the previous result instead of leaving it on screen under the message.
    assert.equal(await page.textContent('h1'), 'formatbox playground');
    const look = () => page.$eval('#receipt-line', (el) => [(el as HTMLElement).dataset['state'], getComputedStyle(el).backgroundColor, el.textContent]);
    const [okState, okBackground] = await look();
    assert.equal(okState, 'ok');
    await page.fill('#newText', 'const = ;');
    await page.click('#run');
    await page.waitForFunction(() => document.getElementById('receipt-line')!.textContent !== '', undefined, { timeout: 120_000 });
    const [failedState, failedBackground, failedLine] = await look();
    assert.equal(failedState, 'failed', String(failedLine));
    assert.notEqual(failedBackground, okBackground, 'a failure is not shown in the success colour');
    await page.fill('#project', '{ not json');
    await page.click('#run');
    await page.waitForSelector('#status[data-state=error]');
    assert.deepEqual(await page.evaluate(() => ['receipt-line', 'formatted', 'rewritten'].map((id) => document.getElementById(id)!.textContent)), ['', '', ''], 'the previous result is cleared');
    assert.match((await page.textContent('#status'))!, /project files are not JSON/);

    // Offline: the server is gone; the reloaded page comes from the service worker's cache.
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await page.reload();
    await page.waitForSelector('html[data-offline-ready]');
    assert.deepEqual(await editInPage(EDITS[1]!), await inNode(EDITS[1]!));
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
