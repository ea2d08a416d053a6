// Languages the existing in-process formatters already know, now in the language table: Handlebars
// (Prettier's own glimmer parser), Objective-C, SystemVerilog and Protocol Buffers text format
// (clang-format). Compared with the prettier CLI and Debian's clang-format on fixtures of our own
// (no such sources ship on this machine); clang-format 14 predates Verilog support, so SystemVerilog
// is checked for being formatted and stable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';

const engine = createEngine({ formatters: createBuiltinAdapters(), config: { mode: 'always' } });
const haveClang = spawnSync('clang-format', ['--version']).status === 0;

test('Handlebars: the same bytes as the prettier CLI', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'formatbox-hbs-'));
  try {
    const text = '<div   class="card {{if active \'on\'}}">\n{{#each items as |item|}}<p>{{item.name}}</p>{{else}}<p>none</p>{{/each}}\n</div>\n';
    writeFileSync(join(dir, 'card.hbs'), text);
    const cli = spawnSync(resolve('node_modules/.bin/prettier'), ['card.hbs'], { cwd: dir, encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const ours = await engine.format({ path: 'card.hbs', text });
    assert.equal(ours.formatter?.name, 'prettier');
    assert.equal(ours.content, cli.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Objective-C and text protos: the same bytes as Debian clang-format; SystemVerilog formatted and stable', { skip: !haveClang && !process.env.CI ? 'clang-format is not installed' : false }, async () => {
  const cases: Array<[string, string]> = [
    ['Foo.m', '#import <Foundation/Foundation.h>\n@interface Foo:NSObject\n@property(nonatomic,strong) NSString*name;\n-(void)greet:(NSString*)who;\n@end\n@implementation Foo\n-(void)greet:(NSString*)who{NSLog(@"hi %@",who);}\n@end\n'],
    ['config.textproto', 'name:"x" inner{a:1 b:2}\n'],
  ];
  for (const [path, text] of cases) {
    const native = spawnSync('clang-format', [`--assume-filename=${path}`], { input: text, encoding: 'utf8' });
    const ours = await engine.format({ path, text });
    assert.equal(ours.formatter?.name, 'clang-format', path);
    assert.equal(ours.content, native.stdout, path);
  }
  const verilog = await engine.format({ path: 'top.sv', text: 'module m(input a,output b);assign b=a;endmodule\n' });
  assert.equal(verilog.status, 'formatted');
  assert.equal((await engine.format({ path: 'top.sv', text: verilog.content })).status, 'unchanged');
});
