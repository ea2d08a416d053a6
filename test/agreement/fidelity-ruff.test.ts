/**
 * Ruff options reach the formatter as `ruff format` applies them. The reference is the same wasm
 * called directly with the option: Ruff 0.16.9's official build (`Workspace`) for `.py`, and
 * `@wasm-fmt/ruff_fmt` (with stub rules) for `.pyi`. Every case also checks the option changes the
 * output, so dropping it fails the test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import init, { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-web';
import * as ruffFmt from '@wasm-fmt/ruff_fmt/node';
import { createEngine } from '../../src/engine/engine.js';
import { createBuiltinAdapters } from '../../src/node/builtins.js';
import { RUFF_PYTHON_VERSIONS, minimumPythonVersion } from '../../src/formatters/ruff/config.js';
import type { ProjectFiles } from '../../src/core/types.js';

const WASM_PATH = 'node_modules/@astral-sh/ruff-wasm-web/ruff_wasm_bg.wasm';
await init({ module_or_path: readFileSync(WASM_PATH) });
const adapters = createBuiltinAdapters();

/** What Ruff's own wasm writes for `source` with ruff.toml-shaped `options`. */
function ruffItself(options: Record<string, unknown>, source: string): string {
  const workspace = new Workspace(options, PositionEncoding.Utf16);
  try {
    return workspace.format(source);
  } finally {
    workspace.free();
  }
}

async function formatbox(files: ProjectFiles, path: string, text: string) {
  const engine = createEngine({ formatters: adapters, projectFiles: files });
  return engine.format({ path, text });
}

const LONG_WITH = 'with aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa() as xxxxxxxxxxxxx, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb() as yyyyyyyyyyyyyyyyy:\n    pass\n';
const DOCSTRING_CODE = 'def f():\n    """Example.\n\n    >>> call_something(aaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccc, dddddddd)\n    """\n';
const FLUENT_CHAIN = 'x = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbb().cccccccccccccccccccccccc().ddddddddddddddddddd().eeeeeeeeee()\n';
const NESTED_FSTRING = "x = f\"{d['key']} and {', '.join(items)}\"\n";

/** Each option Ruff 0.16.9 reads for formatting, as ruff.toml text, the wasm options, and a source it changes. */
const OPTION_CASES: Array<{ name: string; toml: string; options: Record<string, unknown>; source: string }> = [
  { name: 'line-length', toml: 'line-length = 40\n', options: { 'line-length': 40 }, source: 'x = call(aaaaaaaaaa, bbbbbbbbbbbb, cccccccccc)\n' },
  { name: 'indent-width', toml: 'indent-width = 2\n', options: { 'indent-width': 2 }, source: 'def f():\n    return 1\n' },
  { name: 'target-version', toml: 'target-version = "py38"\n', options: { 'target-version': 'py38' }, source: LONG_WITH },
  { name: 'preview', toml: 'preview = true\n', options: { preview: true }, source: FLUENT_CHAIN },
  { name: 'format.quote-style', toml: '[format]\nquote-style = "single"\n', options: { format: { 'quote-style': 'single' } }, source: 'x = "a"\n' },
  { name: 'format.indent-style', toml: '[format]\nindent-style = "tab"\n', options: { format: { 'indent-style': 'tab' } }, source: 'def f():\n    return 1\n' },
  { name: 'format.skip-magic-trailing-comma', toml: '[format]\nskip-magic-trailing-comma = true\n', options: { format: { 'skip-magic-trailing-comma': true } }, source: 'x = [1, 2,]\n' },
  { name: 'format.docstring-code-format', toml: '[format]\ndocstring-code-format = true\n', options: { format: { 'docstring-code-format': true } }, source: DOCSTRING_CODE },
  {
    name: 'format.docstring-code-line-length',
    toml: '[format]\ndocstring-code-format = true\ndocstring-code-line-length = 20\n',
    options: { format: { 'docstring-code-format': true, 'docstring-code-line-length': 20 } },
    source: DOCSTRING_CODE,
  },
  {
    name: 'format.nested-string-quote-style',
    toml: 'target-version = "py312"\n[format]\nnested-string-quote-style = "preferred"\n',
    options: { 'target-version': 'py312', format: { 'nested-string-quote-style': 'preferred' } },
    source: NESTED_FSTRING,
  },
  { name: 'format.preview', toml: '[format]\npreview = true\n', options: { format: { preview: true } }, source: FLUENT_CHAIN },
];

test("the installed Ruff's [format] options are the ones formatbox passes on (read from the wasm's own field table)", () => {
  // serde's field names for FormatOptions sit together in the binary (`exclude` and `preview` are shared with other tables).
  const text = readFileSync(WASM_PATH).toString('latin1');
  const start = text.indexOf('FormatOptions') + 'FormatOptions'.length;
  const fields = text.slice(start, text.indexOf('AnalyzeOptions', start));
  const passed = OPTION_CASES.filter((c) => c.name.startsWith('format.') && c.name !== 'format.preview').map((c) => c.name.slice('format.'.length));
  // line-ending is applied by the engine (the wasm is asked for LF), and tested in ruff-documented.test.ts.
  assert.equal(fields, ['indent-style', 'quote-style', 'nested-string-quote-style', 'skip-magic-trailing-comma', 'line-ending', 'docstring-code-format', 'docstring-code-line-length'].join(''));
  for (const name of passed) assert.ok(fields.includes(name), name);
});

test("Ruff's Python versions are the ones formatbox knows", () => {
  assert.throws(() => new Workspace({ 'target-version': 'py2' }, PositionEncoding.Utf16), (error: unknown) => {
    const expected = [...String(error).split('expected one of')[1]!.matchAll(/`(py\d+)`/g)].map((m) => m[1]);
    assert.deepEqual(expected, RUFF_PYTHON_VERSIONS);
    return true;
  });
});

for (const option of OPTION_CASES) {
  test(`ruff.toml ${option.name} gives what Ruff's wasm writes with it`, async () => {
    const expected = ruffItself({ ...option.options, format: { ...(option.options.format as object), 'line-ending': 'lf' } }, option.source);
    assert.notEqual(expected, ruffItself({}, option.source), 'the option changes the output');
    const outcome = await formatbox({ 'ruff.toml': option.toml }, 'src/a.py', option.source);
    assert.equal(outcome.content, expected, outcome.line);
    // The same option under [tool.ruff] in pyproject.toml.
    const pyproject = `[tool.ruff]\n${option.toml.replace('[format]', '[tool.ruff.format]')}`;
    assert.equal((await formatbox({ 'pyproject.toml': pyproject }, 'src/a.py', option.source)).content, expected);
  });
}

test('target-version py38 leaves a long with-statement unparenthesised (Ruff 3.8 rules)', async () => {
  const outcome = await formatbox({ 'ruff.toml': 'target-version = "py38"\n' }, 'a.py', LONG_WITH);
  assert.equal(outcome.status, 'unchanged', outcome.line);
  assert.equal(outcome.content, LONG_WITH);
});

test('no target-version: the lower bound of [project] requires-python, as Ruff falls back to it', async () => {
  const expected38 = ruffItself({ 'target-version': 'py38' }, LONG_WITH);
  // In the same pyproject.toml, in a pyproject.toml beside a ruff.toml, and in one above it.
  for (const files of [
    { 'pyproject.toml': '[project]\nname = "x"\nrequires-python = ">=3.8, <4"\n[tool.ruff]\nline-length = 88\n' },
    { 'ruff.toml': '', 'pyproject.toml': '[project]\nrequires-python = "~=3.8.1"\n' },
    { 'pkg/ruff.toml': '', 'pyproject.toml': '[project]\nrequires-python = ">3.8"\n' },
  ] as ProjectFiles[]) {
    const path = 'ruff.toml' in files || 'pyproject.toml' in files && !('pkg/ruff.toml' in files) ? 'a.py' : 'pkg/a.py';
    assert.equal((await formatbox(files, path, LONG_WITH)).content, expected38, JSON.stringify(files));
  }
  // An explicit target-version wins over requires-python.
  const explicit = { 'pyproject.toml': '[project]\nrequires-python = ">=3.8"\n[tool.ruff]\ntarget-version = "py311"\n' };
  assert.equal((await formatbox(explicit, 'a.py', LONG_WITH)).content, ruffItself({ 'target-version': 'py311' }, LONG_WITH));
  assert.equal(minimumPythonVersion('>=3.9,!=3.9.1,<4'), 'py39');
  assert.equal(minimumPythonVersion('<3.12'), undefined);
  assert.equal(minimumPythonVersion('>=3.6'), undefined, 'Ruff has no py36');
  assert.equal(minimumPythonVersion('==3.11.*'), 'py311');
});

test('per-file-target-version picks the version for matching files only; conflicting matches are refused', async () => {
  const files = { 'ruff.toml': '[per-file-target-version]\n"legacy/**/*.py" = "py38"\n' };
  assert.equal((await formatbox(files, 'legacy/old/a.py', LONG_WITH)).content, ruffItself({ 'target-version': 'py38' }, LONG_WITH));
  assert.equal((await formatbox(files, 'new/a.py', LONG_WITH)).content, ruffItself({}, LONG_WITH));
  const conflicting = { 'ruff.toml': '[per-file-target-version]\n"a/*.py" = "py38"\n"*.py" = "py312"\n' };
  const outcome = await formatbox(conflicting, 'a/x.py', LONG_WITH);
  assert.equal(outcome.status, 'refused', outcome.line);
  assert.match(outcome.line, /per-file-target-version/);
});

test('extension is named among the ignored items, not dropped silently', async () => {
  const outcome = await formatbox({ 'ruff.toml': '[extension]\nrpy = "python"\n' }, 'a.py', 'x=1\n');
  assert.ok(outcome.ignored?.some((item) => item.item.startsWith('extension')), JSON.stringify(outcome.ignored));
});

const STUB = 'class A:\n    def f(self) -> int: ...\n\n    def g(self) -> int: ...\nx: int\n';

test('[format] preview = true|false formats .pyi as ruff_fmt does with preview enabled|disabled', async () => {
  await (ruffFmt as { default?: () => Promise<unknown> }).default?.();
  for (const [value, mode] of [['true', 'enabled'], ['false', 'disabled']] as const) {
    const outcome = await formatbox({ 'ruff.toml': `[format]\npreview = ${value}\n` }, 'typings/a.pyi', STUB);
    assert.ok(outcome.status === 'formatted' || outcome.status === 'unchanged', outcome.line);
    assert.equal(outcome.content, ruffFmt.format(STUB, 'typings/a.pyi', { preview: mode } as never), value);
    assert.equal(outcome.formatter?.version, '0.15.20');
  }
  // Top-level preview, and target-version, reach ruff_fmt too.
  const stub38 = `${LONG_WITH.replace('    pass', '    ...')}`;
  const outcome = await formatbox({ 'ruff.toml': 'target-version = "py38"\npreview = false\n' }, 'a.pyi', stub38);
  assert.equal(outcome.content, ruffFmt.format(stub38, 'a.pyi', { target_version: '3.8', preview: 'disabled' } as never));
  assert.notEqual(outcome.content, ruffFmt.format(stub38, 'a.pyi', {} as never), 'the target changes the output');
});

test('a .pyi that ruff_fmt rejects: the failed receipt names ruff_fmt 0.15.20, the build that failed', async () => {
  const outcome = await formatbox({ 'ruff.toml': '' }, 'a.pyi', 'def f(:\n');
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.formatter?.version, '0.15.20');
  assert.match(outcome.line, /ruff 0\.15\.20/);
  const py = await formatbox({ 'ruff.toml': '' }, 'a.py', 'def f(:\n');
  assert.equal(py.formatter?.version, '0.16.9');
});

/** A stub as projects ship them (docstrings with doctest examples), and a module with one. */
const DOCSTRING_STUB = 'from typing import overload\n\nclass Matrix:\n    """A matrix.\n\n    >>> m = Matrix( [[1,2],[3,4]] )\n    >>> m.transpose( ).rows\n    """\n    @overload\n    def __getitem__(self, index: int) -> list[float]: ...\n    @overload\n    def __getitem__(self, index: tuple[int, int]) -> float: ...\n    def transpose(self) -> Matrix:\n        """Transposed.\n\n        >>> t = m.transpose( )\n        >>> assert t[0,1]==m[1,0]\n        """\n';
const DOCSTRING_MODULE = 'import math\n\n\ndef norm(v):\n    """Euclidean norm.\n\n    >>> norm( [3,4] )\n    5.0\n    """\n    return math.sqrt(sum(x*x for x in v))\n\n\ndef untouched( a ):\n    return a\n';

test('format.docstring-code-format = true|false reaches ruff_fmt on .pyi stubs and ranges (it takes "enabled"/"disabled")', async () => {
  await (ruffFmt as { default?: () => Promise<unknown> }).default?.();
  for (const [value, mode] of [['true', 'enabled'], ['false', 'disabled']] as const) {
    for (const files of [{ 'ruff.toml': `[format]\ndocstring-code-format = ${value}\n` }, { 'pyproject.toml': `[tool.ruff.format]\ndocstring-code-format = ${value}\ndocstring-code-line-length = 30\n` }] as ProjectFiles[]) {
      const config = { docstring_code: mode, ...('pyproject.toml' in files ? { docstring_code_line_width: 30 } : {}) };
      const stub = await formatbox(files, 'typings/matrix.pyi', DOCSTRING_STUB);
      assert.equal(stub.status, value === 'true' ? 'formatted' : 'unchanged', stub.line);
      assert.equal(stub.content, ruffFmt.format(DOCSTRING_STUB, 'typings/matrix.pyi', config as never), `${value} ${JSON.stringify(files)}`);
      assert.equal(stub.formatter?.version, '0.15.20');

      // A range over the first function: ruff_fmt's own format_range, spliced back; the rest stays as written.
      const engine = createEngine({ formatters: adapters, projectFiles: files });
      const utf16End = DOCSTRING_MODULE.indexOf('def untouched');
      const ranged = await engine.format({ path: 'src/vec.py', text: DOCSTRING_MODULE, range: { utf16Start: DOCSTRING_MODULE.indexOf('def norm'), utf16End } });
      assert.equal(ranged.status, 'formatted', ranged.line);
      const printed = ruffFmt.format_range(DOCSTRING_MODULE, { start: DOCSTRING_MODULE.indexOf('def norm'), end: utf16End }, 'src/vec.py', config as never);
      assert.equal(ranged.content, DOCSTRING_MODULE.slice(0, printed.source_range.start) + printed.code + DOCSTRING_MODULE.slice(printed.source_range.end));
      assert.ok(ranged.content.endsWith('def untouched( a ):\n    return a\n'), 'outside the range stays as written');
    }
  }
  // The option changes the output (dropping it would fail above), and the range agrees with Ruff 0.16.9's
  // official build on the part it formatted.
  const on = await formatbox({ 'ruff.toml': '[format]\ndocstring-code-format = true\n' }, 'a.pyi', DOCSTRING_STUB);
  const off = await formatbox({ 'ruff.toml': '[format]\ndocstring-code-format = false\n' }, 'a.pyi', DOCSTRING_STUB);
  assert.notEqual(on.content, off.content);
  assert.match(on.content, />>> m = Matrix\(\[\[1, 2\], \[3, 4\]\]\)/);
  const engine = createEngine({ formatters: adapters, projectFiles: { 'ruff.toml': '[format]\ndocstring-code-format = true\n' } });
  const ranged = await engine.format({ path: 'v.py', text: DOCSTRING_MODULE, range: { utf16Start: 0, utf16End: DOCSTRING_MODULE.indexOf('def untouched') } });
  const official = ruffItself({ format: { 'docstring-code-format': true, 'line-ending': 'lf' } }, DOCSTRING_MODULE);
  assert.equal(ranged.content.slice(0, ranged.content.indexOf('def untouched')), official.slice(0, official.indexOf('def untouched')));
});

test('a Markdown code block in a docstring crashes ruff_fmt 0.15.20 (a wasm trap): the receipt says it crashed, and the next file formats', async () => {
  const files = { 'ruff.toml': '[format]\ndocstring-code-format = true\n' };
  const stub = 'def transpose(m: list[list[int]]) -> list[list[int]]:\n    """Transposed.\n\n    ```python\n    t = transpose( m )\n    ```\n    """\n';
  await (ruffFmt as { default?: () => Promise<unknown> }).default?.();
  assert.throws(() => ruffFmt.format(stub, 'a.pyi', { docstring_code: 'enabled' } as never), /unreachable/, 'ruff_fmt itself traps; if a new build no longer does, this refusal can go');
  const outcome = await formatbox(files, 'a.pyi', stub);
  assert.equal(outcome.status, 'failed', outcome.line);
  assert.match(outcome.line, /ruff_fmt 0\.15\.20 .*crashed on this file \(wasm trap: unreachable\)/);
  assert.equal(outcome.content, stub);
  // Ruff's official build formats the same code block in a .py file.
  assert.equal((await formatbox(files, 'a.py', stub)).content, ruffItself({ format: { 'docstring-code-format': true, 'line-ending': 'lf' } }, stub));
  assert.equal((await formatbox(files, 'b.pyi', DOCSTRING_STUB)).status, 'formatted');
});
