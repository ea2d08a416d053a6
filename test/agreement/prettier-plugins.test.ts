// Agreement: formatbox's own copies of allowlisted Prettier plugins (XML/SVG, PHP, Java, Svelte),
// chosen because the project's .prettierrc lists them, against the prettier 3.10.1 CLI loading the
// same plugin versions from node_modules, with the same options. Corpora: the XML of Debian's
// shared-mime-info and Adwaita's SVG icons, Debian's php-psr-log (and the Cloud SDK's PHP when
// installed); Java, Svelte and Astro: small fixtures of our own (no such sources on this machine).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters, resolvePackageFile } from '../../src/node/builtins.js';
import { NODE_PRETTIER_PLUGINS } from '../../src/node/prettier-plugins.js';

const LONG = process.env.FORMATBOX_LONG === '1';
const PER_KIND = LONG ? 2000 : 40;
const PRETTIER = resolve('node_modules/.bin/prettier');

function files(dir: string, pattern: RegExp, limit: number, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (out.length >= limit) break;
    const full = join(dir, name);
    const stats = statSync(full, { throwIfNoEntry: false });
    if (!stats) continue;
    if (stats.isDirectory()) files(full, pattern, limit, out);
    else if (pattern.test(name) && stats.size < 100_000) out.push(full);
  }
  return out;
}

const JAVA = [
  'package a.b;\nimport java.util.*;\npublic class Greeter<T extends Comparable<T>> implements Runnable{\nprivate final List<T> items=new ArrayList<>();\n@Override public void run(){for(T item:items){if(item!=null)System.out.println(item);else{continue;}}}\npublic static void main(String[] args){new Greeter<String>().run();}\n}\n',
  'interface Shape { double area(); }\nrecord Circle(double r) implements Shape { public double area(){ return Math.PI*r*r; } }\nenum Color{RED,GREEN,BLUE;Color next(){return values()[(ordinal()+1)%values().length];}}\n',
  'class Lambdas{void f(){java.util.function.Function<Integer,Integer> sq=x->x*x;Runnable r=()->{System.out.println("hi");};String s=switch(1){case 1->"one";default->"other";};}}\n',
];
const SVELTE = [
  '<script>\n  export let name="world";let count=0\n  function inc(){count+=1}\n</script>\n\n<h1>Hello {name}!</h1>\n<button on:click={inc}>Clicked {count} {count===1?"time":"times"}</button>\n<style>h1{color:red}</style>\n',
  '<script lang="ts">\n  let items:string[]=["a","b"]\n</script>\n{#each items as item,i}\n<p class:first={i===0}>{item}</p>\n{:else}\n<p>none</p>\n{/each}\n{#if items.length>1}<span>many</span>{/if}\n',
];

const ASTRO = [
  '---\nconst x=1\nconst items=["a","b"]\n---\n<div   class="a"><p>{x}</p>{items.map((i)=><span>{i}</span>)}</div>\n<style>p{color:red}</style>\n',
  '---\nimport Layout from "../layouts/Layout.astro";\ninterface Props{title:string}\nconst {title}=Astro.props;\n---\n<Layout title={title}><h1>{title}</h1><slot/></Layout>\n',
];

test('shipped Prettier plugins: byte-identical to the prettier CLI with the same plugins and .prettierrc', { timeout: 600_000 }, async () => {
  for (const [id, entry] of Object.entries(NODE_PRETTIER_PLUGINS)) {
    assert.equal(entry.version, JSON.parse(readFileSync(`node_modules/${entry.package}/package.json`, 'utf8')).version, `${id} pinned version`);
  }
  const sources: Array<{ path: string; text: string }> = [];
  const add = (path: string, text: string) => sources.push({ path, text });
  files('/usr/share/mime', /\.xml$/, PER_KIND).forEach((f, i) => add(`xml/${i}-${f.split('/').pop()}`, readFileSync(f, 'utf8')));
  files('/usr/share/icons', /\.svg$/, PER_KIND).forEach((f, i) => add(`svg/${i}-${f.split('/').pop()}`, readFileSync(f, 'utf8')));
  [...files('/usr/share/php', /\.php$/, PER_KIND), ...files('/usr/lib/google-cloud-sdk/platform/google_appengine/php', /\.php$/, LONG ? PER_KIND : 20)].forEach((f, i) => add(`php/${i}-${f.split('/').pop()}`, readFileSync(f, 'utf8')));
  JAVA.forEach((text, i) => add(`java/F${i}.java`, text));
  SVELTE.forEach((text, i) => add(`svelte/c${i}.svelte`, text));
  ASTRO.forEach((text, i) => add(`astro/p${i}.astro`, text));
  const kinds = new Set(sources.map((s) => s.path.split('/')[0]));
  if (!process.env.CI && !kinds.has('xml')) return;
  assert.ok(kinds.has('xml') && kinds.has('php'), `corpora: ${[...kinds].join(', ')} (CI installs shared-mime-info with chromium, and php-psr-log)`);

  const options = { tabWidth: 4, printWidth: 100, xmlWhitespaceSensitivity: 'ignore', phpVersion: '8.1', braceStyle: '1tbs', svelteIndentScriptAndStyle: false };
  const packages = ['@prettier/plugin-xml', '@prettier/plugin-php', 'prettier-plugin-java', 'prettier-plugin-svelte', 'prettier-plugin-astro'];
  const root = mkdtempSync(join(tmpdir(), 'formatbox-prettier-plugins-'));
  try {
    // The CLI resolves plugins from the config's directory: give it absolute entry points to the same packages.
    const cliPlugins = packages.map((name) => resolvePackageFile(name));
    writeFileSync(join(root, '.prettierrc'), JSON.stringify({ ...options, plugins: cliPlugins }));
    for (const { path, text } of sources) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const run = spawnSync(PRETTIER, ['--write', '--log-level', 'warn', ...sources.map((s) => s.path)], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    const rejected = new Set([...run.stderr.matchAll(/\[error\] (\S+?): /g)].map((m) => m[1]));
    // A generous limit: the first call loads every plugin, and CI runs two test files at a time.
    const engine = createEngine({ formatters: createBuiltinAdapters(), limits: { timeoutMs: 120_000 }, projectFiles: { '.prettierrc': JSON.stringify({ ...options, plugins: packages }) } });
    const counts: Record<string, { identical: number; total: number; rejectedByBoth: number }> = {};
    const mismatches: string[] = [];
    for (const { path, text } of sources) {
      const kind = path.split('/')[0]!;
      const count = (counts[kind] ??= { identical: 0, total: 0, rejectedByBoth: 0 });
      count.total++;
      const ours = await engine.format({ path, text });
      const theirs = readFileSync(join(root, path), 'utf8');
      if (ours.status === 'failed') {
        if (rejected.has(path)) count.rejectedByBoth++;
        else mismatches.push(`${path}: formatbox failed (${ours.reason})`);
        continue;
      }
      assert.match(ours.formatter?.name ?? '', /plugin/, `${path}: ${ours.line}`);
      if (ours.content === theirs) count.identical++;
      else mismatches.push(path);
    }
    console.log(`  # ${Object.entries(counts).map(([kind, c]) => `${kind} ${c.identical}/${c.total - c.rejectedByBoth} identical${c.rejectedByBoth ? ` (${c.rejectedByBoth} rejected by both)` : ''}`).join(', ')}`);
    assert.deepEqual(mismatches, []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
