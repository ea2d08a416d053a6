// Edits that every runtime (Node, Chromium page, Web Worker, workerd, Deno) must answer with
// byte-identical receipts. One case per built-in formatter, plus range, stub and error cases.
// Pure data and one runner over the universal entry's API, so the same code is bundled for each host.
import type { AfterEditRequest, Engine, EngineOptions } from '../../src/index.js';
import type { FormatterAdapter, SingleFileInput, UserConfig } from '../../src/core/types.js';

export interface RuntimeCase {
  name: string;
  projectFiles: Record<string, string>;
  config?: UserConfig;
  path: string;
  prior: string;
  input: SingleFileInput;
}

export const CASES: RuntimeCase[] = [
  {
    name: 'biome: TypeScript edit',
    projectFiles: { 'biome.json': '{ "formatter": { "indentStyle": "space" } }' },
    path: 'src/cart.ts',
    prior: 'export function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n',
    input: { oldText: 'return items.reduce((a, b) => a + b, 0);', newText: "const label='sum'; return items.reduce((a,b)=>a+b,0)" },
  },
  {
    name: 'prettier: TSX multiEdit with .prettierrc',
    projectFiles: { '.prettierrc': '{ "semi": false, "singleQuote": true }' },
    path: 'src/App.tsx',
    prior: 'export function App() {\n  return <div className="a">hi</div>\n}\n',
    input: { edits: [{ oldText: 'App()', newText: 'App({name}:{name:string})' }, { oldText: '<div className="a">hi</div>', newText: '<div className="a"><b>{name}</b></div>' }] },
  },
  {
    name: 'prettier: Markdown write (mode always)',
    projectFiles: {},
    config: { mode: 'always' },
    path: 'README.md',
    prior: '',
    input: { content: '#  Title\n*  one\n*  two\n' },
  },
  {
    name: 'ruff: Python edit with ruff.toml',
    projectFiles: { 'ruff.toml': 'line-length = 60\n[format]\nquote-style = "single"\n' },
    path: 'app/report.py',
    prior: 'def summary(items):\n    return len(items)\n',
    input: { oldText: 'return len(items)', newText: 'names=[item["name"] for item in items if item.get("price",0)>0]\n    return ", ".join(names)' },
  },
  {
    name: 'ruff: range formatting (scope edit, ruff_fmt)',
    projectFiles: { 'ruff.toml': '' },
    config: { scope: 'edit' },
    path: 'm.py',
    prior: "import os\nx = {'a':1}\n\ndef f(a,b):\n    return a+b\n",
    input: { oldText: 'return a+b', newText: 'return a*b' },
  },
  {
    name: 'ruff: .pyi stub rules (ruff_fmt)',
    projectFiles: { 'pyproject.toml': '[tool.ruff]\n' },
    path: 'typings/m.pyi',
    prior: '',
    input: { content: 'class A:\n    def f(self) -> int: ...\n\n    def g(self) -> int: ...\nclass B: ...\n' },
  },
  {
    name: 'gofmt: Go edit',
    projectFiles: { 'go.mod': 'module example.com/x\n\ngo 1.21\n' },
    path: 'main.go',
    prior: 'package main\n\nfunc main() {\n}\n',
    input: { oldText: 'func main() {\n}', newText: 'func main() {\nx:=map[string]int{"a":1}\n_ = x\n}' },
  },
  {
    name: 'clang-format: C edit with .clang-format',
    projectFiles: { '.clang-format': 'BasedOnStyle: LLVM\nIndentWidth: 4\n' },
    path: 'src/main.c',
    prior: 'int main(void) {\n    return 0;\n}\n',
    input: { oldText: 'return 0;', newText: 'int x=1;if(x){return x;}return 0;' },
  },
  {
    name: 'toml: TOML edit (dprint plugin)',
    projectFiles: { 'taplo.toml': '' },
    path: 'Cargo.toml',
    prior: '[package]\nname = "x"\n',
    input: { oldText: 'name = "x"', newText: 'name="x"\nversion  =  "0.1.0"' },
  },
  {
    name: 'dprint markdown plugin chosen by dprint.json',
    projectFiles: { 'dprint.json': '{ "lineWidth": 40, "markdown": { "textWrap": "always" }, "plugins": ["https://plugins.dprint.dev/markdown-0.17.8.wasm"] }' },
    path: 'docs/guide.md',
    prior: '# Guide\n',
    input: { content: '#  Guide\n\nA paragraph long enough that it has to wrap at forty columns.\n' },
  },
  {
    name: 'shell: sh-syntax with an .editorconfig shell section',
    projectFiles: { '.editorconfig': '[*.sh]\nindent_style = space\nindent_size = 2\nswitch_case_indent = true\n' },
    path: 'bin/run.sh',
    prior: '#!/bin/sh\necho start\n',
    input: { oldText: 'echo start', newText: 'case "$1" in\na) echo  a;;\nesac\nif [ -n "$x" ];then echo hi;fi' },
  },
  {
    name: 'lua: StyLua with stylua.toml',
    projectFiles: { 'stylua.toml': 'indent_type = "Spaces"\nindent_width = 2\nquote_style = "AutoPreferSingle"\n' },
    path: 'init.lua',
    prior: 'local M = {}\nreturn M\n',
    input: { oldText: 'local M = {}', newText: 'local M = {a=1,b="x"}\nfunction M.f(a,b) return a+b end' },
  },
  {
    name: 'sql: sql_fmt chosen by the user config',
    projectFiles: {},
    config: { formatters: { sql: 'sql_fmt' } },
    path: 'db/q.sql',
    prior: '',
    input: { content: 'select a,b from t where x=1;\n' },
  },
  {
    name: 'dockerfile: dprint plugin chosen by dprint.json',
    projectFiles: { 'dprint.json': '{ "plugins": ["https://plugins.dprint.dev/dockerfile-0.3.2.wasm"] }' },
    path: 'Dockerfile',
    prior: 'FROM debian\n',
    input: { oldText: 'FROM debian', newText: 'FROM   debian\nRUN   apt-get update &&   apt-get install -y curl' },
  },
  {
    name: 'editorconfig: the WASI normaliser on a Makefile',
    projectFiles: { '.editorconfig': 'root = true\n[*]\ntrim_trailing_whitespace = true\ninsert_final_newline = true\nindent_style = space\nindent_size = 4\n' },
    path: 'Makefile',
    prior: 'all:\n\techo hi\n',
    input: { oldText: '\techo hi', newText: '\techo hi   \n\ttouch done  ' },
  },
  {
    name: 'xml: formatbox\'s own @prettier/plugin-xml, listed in .prettierrc',
    projectFiles: { '.prettierrc': '{ "plugins": ["@prettier/plugin-xml"], "xmlWhitespaceSensitivity": "ignore" }' },
    path: 'icons/dot.svg',
    prior: '',
    input: { content: '<svg xmlns="http://www.w3.org/2000/svg"><circle   cx="1" cy="1" r="1"/></svg>' },
  },
  {
    name: 'svelte: formatbox\'s own prettier-plugin-svelte, listed in .prettierrc',
    projectFiles: { '.prettierrc': '{ "plugins": ["prettier-plugin-svelte"] }' },
    path: 'src/Counter.svelte',
    prior: '',
    input: { content: '<script>let count=0</script>\n<button on:click={()=>count++}>{count}</button>\n' },
  },
  {
    name: 'handlebars: Prettier\'s glimmer parser (mode always)',
    projectFiles: {},
    config: { mode: 'always' },
    path: 'app/templates/card.hbs',
    prior: '',
    input: { content: '<div   class="card">{{#if a}}<b>{{name}}</b>{{/if}}</div>\n' },
  },
  {
    name: 'prettier: Angular template embedded in a TS component (angular plugin in the embed step)',
    projectFiles: { '.prettierrc': '{}' },
    path: 'src/app/b.component.ts',
    prior: '',
    input: { content: 'import {Component} from "@angular/core";\n@Component({selector: "app-b", template: `@if (a   |   async; as   b) {<div>{{  b   +   c }}</div>}`})\nexport class B {}\n' },
  },
  {
    name: 'prettier: Handlebars in an HTML script tag (glimmer in the embed step)',
    projectFiles: { '.prettierrc': '{}' },
    path: 'page.html',
    prior: '',
    input: { content: '<script type="text/x-handlebars-template">\n  {{#if   a}}\n<p>{{  b  }}</p>\n{{/if}}\n</script>\n' },
  },
  {
    name: 'objective-c: clang-format with .clang-format',
    projectFiles: { '.clang-format': 'BasedOnStyle: LLVM\n' },
    path: 'Sources/Foo.m',
    prior: '',
    input: { content: '@interface Foo:NSObject\n-(void)bar:(int)x;\n@end\n' },
  },
  {
    name: 'rust: skipped with the reason outside the Node sandbox',
    projectFiles: { 'Cargo.toml': '[package]\nname = "x"\nedition = "2021"\n' },
    path: 'src/lib.rs',
    prior: '',
    input: { content: 'fn main(){}\n' },
  },
  {
    name: 'biome: syntax error is a failed receipt, the edit stands',
    projectFiles: { 'biome.json': '{}' },
    path: 'bad.ts',
    prior: 'const a = 1;\n',
    input: { oldText: 'const a = 1;', newText: 'const a = ;' },
  },
];

type Lib = {
  createEngine(options: EngineOptions): Engine;
};

/** Runs every case on a fresh engine with `formatters`; the receipts, in case order. */
export async function runCases(lib: Lib, formatters: () => FormatterAdapter[]): Promise<unknown[]> {
  const adapters = formatters();
  const out: unknown[] = [];
  for (const c of CASES) {
    const engine = lib.createEngine({ formatters: adapters, projectFiles: c.projectFiles, ...(c.config ? { config: c.config } : {}) });
    const request: AfterEditRequest = { path: c.path, prior: c.prior, input: c.input };
    // `ms` is the only field that may differ between hosts.
    const { ms: _ms, ...receipt } = (await engine.afterEdit(request)) as { ms?: number };
    out.push({ name: c.name, receipt });
  }
  return out;
}
