/**
 * Shell through `sh-syntax`: shfmt (mvdan/sh) compiled to wasm with TinyGo. The package's own glue
 * (`wasm_exec.cjs`) reaches for `require('node:fs')`, and its processor makes a new instance per
 * call; this adapter hosts the module itself instead: the few imports it has are provided here, with
 * a JS world of two values (`Object`, `Array`, all that `syscall/js` asks for at start). Each call
 * gets a fresh instance of the compiled module, as the package's processor does: an instance that
 * served earlier calls traps ("memory access out of bounds") on some inputs.
 *
 * Options are shfmt's, read from `.editorconfig` as shfmt reads them (`indent_style`,
 * `indent_size`, `shell_variant`, `binary_next_line`, `switch_case_indent`, `space_redirects`,
 * `keep_padding`, `function_next_line`); without them, shfmt's defaults (tabs, no flags). The shell
 * variant is chosen as `shfmt` chooses it: `shell_variant`, else the extension, and for `.sh` or an
 * unknown extension (or none) the shebang (shebang.ts), else bash. No range formatting.
 */
import { compileWasm, lazy } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { messageOf } from '../../core/errors.js';
import { shellOfShebang } from './shebang.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../../core/types.js';

/** The `sh-syntax` package version this adapter is built against (a test checks the installed one). */
export const SH_SYNTAX_PACKAGE_VERSION = '0.7.0';

/** mvdan/sh's LangVariant values, as sh-syntax passes them. */
const VARIANT = { bash: 1, posix: 2, mksh: 4, bats: 8, zsh: 16 } as const;
type Variant = keyof typeof VARIANT;

export interface ShfmtOptions {
  indent: number;
  binaryNextLine: boolean;
  switchCaseIndent: boolean;
  spaceRedirects: boolean;
  keepPadding: boolean;
  functionNextLine: boolean;
  variant: Variant;
}

function variantNamed(name: unknown): Variant | undefined {
  if (name === 'bash' || name === 'mksh' || name === 'bats' || name === 'zsh') return name;
  if (name === 'posix' || name === 'sh') return 'posix';
  return undefined;
}

/** shfmt's options for a file, from its EditorConfig properties (shfmt's propsOptions and language detection). */
export function shfmtOptions(properties: Record<string, unknown>, path: string, text: string): ShfmtOptions {
  let indent = 0;
  if (properties.indent_style === 'space') {
    const size = properties.indent_size;
    indent = typeof size === 'number' && size > 0 ? size : 8;
  }
  const on = (key: string) => properties[key] === 'true';
  let variant = variantNamed(properties.shell_variant);
  if (!variant) {
    const extension = /\.([^./]+)$/.exec(path)?.[1];
    const fromExtension = variantNamed(extension);
    variant = fromExtension && fromExtension !== 'posix' ? fromExtension : (variantNamed(shellOfShebang(text)) ?? 'bash');
  }
  return {
    indent,
    binaryNextLine: on('binary_next_line'),
    switchCaseIndent: on('switch_case_indent'),
    spaceRedirects: on('space_redirects'),
    keepPadding: on('keep_padding'),
    functionNextLine: on('function_next_line'),
    variant,
  };
}

interface ShExports {
  memory: WebAssembly.Memory;
  _start(): void;
  wasmAlloc(size: number): number;
  wasmFree(pointer: number): void;
  process(...values: number[]): number;
}

/** A TinyGo `syscall/js` host with a world of two values. Values are NaN-boxed refs, as in wasm_exec.js. */
function goHost(memory: () => WebAssembly.Memory, module: WebAssembly.Module): WebAssembly.Imports {
  const world = { Object, Array };
  const values: unknown[] = [Number.NaN, 0, null, true, false, world, {}];
  const ids = new Map<unknown, bigint>();
  const scratch = new DataView(new ArrayBuffer(8));
  const nanHead = 0x7ff80000n;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const view = () => new DataView(memory().buffer);
  const unbox = (ref: bigint): unknown => {
    scratch.setBigInt64(0, ref, true);
    const f = scratch.getFloat64(0, true);
    if (f === 0) return undefined;
    if (!Number.isNaN(f)) return f;
    return values[Number(ref & 0xffffffffn)];
  };
  const box = (v: unknown): bigint => {
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return nanHead << 32n;
      if (v === 0) return (nanHead << 32n) | 1n;
      scratch.setFloat64(0, v, true);
      return scratch.getBigInt64(0, true);
    }
    if (v === undefined) return 0n;
    if (v === null) return (nanHead << 32n) | 2n;
    if (v === true) return (nanHead << 32n) | 3n;
    if (v === false) return (nanHead << 32n) | 4n;
    let id = ids.get(v);
    if (id === undefined) {
      id = BigInt(values.length);
      values.push(v);
      ids.set(v, id);
    }
    const flag = typeof v === 'string' ? 2n : typeof v === 'symbol' ? 3n : typeof v === 'function' ? 4n : 1n;
    return id | ((nanHead | flag) << 32n);
  };
  const text = (pointer: number, length: number) => decoder.decode(new Uint8Array(memory().buffer, pointer, length));
  const property = (target: unknown, key: string | number): unknown => (target !== null && typeof target === 'object' && Object.hasOwn(target, key) ? (target as Record<string, unknown>)[key] : undefined);
  const gojs: Record<string, (...args: never[]) => unknown> = {
    'runtime.ticks': () => BigInt(Math.round(Date.now() * 1e6)),
    'runtime.sleepTicks': () => undefined,
    'syscall/js.finalizeRef': () => undefined,
    'syscall/js.stringVal': (pointer: number, length: number) => box(text(pointer, length)),
    'syscall/js.valueGet': (ref: bigint, pointer: number, length: number) => box(property(unbox(ref), text(pointer, length))),
    'syscall/js.valueSet': () => undefined,
    'syscall/js.valueIndex': (ref: bigint, index: number) => box(property(unbox(ref), index)),
    'syscall/js.valueLength': (ref: bigint) => {
      const v = unbox(ref);
      return typeof v === 'string' || Array.isArray(v) ? v.length : 0;
    },
    'syscall/js.valueCall': (returnAt: number) => {
      // Nothing in this world is callable: report a thrown error to Go.
      view().setBigUint64(returnAt, box(new Error('sh-syntax host: calls are not supported')), true);
      view().setUint8(returnAt + 8, 0);
    },
    'syscall/js.valuePrepareString': (returnAt: number, ref: bigint) => {
      const bytes = encoder.encode(String(unbox(ref)));
      view().setBigUint64(returnAt, box(bytes), true);
      view().setInt32(returnAt + 8, bytes.length, true);
    },
    'syscall/js.valueLoadString': (ref: bigint, pointer: number, length: number) => {
      const bytes = unbox(ref) as Uint8Array;
      new Uint8Array(memory().buffer, pointer, length).set(bytes.subarray(0, length));
    },
  };
  for (const entry of WebAssembly.Module.imports(module)) {
    if (entry.module === 'gojs' && !(entry.name in gojs)) {
      gojs[entry.name] = () => {
        throw new Error(`sh-syntax host: ${entry.name} is not provided`);
      };
    }
  }
  return {
    gojs: gojs as unknown as WebAssembly.ModuleImports,
    wasi_snapshot_preview1: {
      proc_exit: (code: number) => {
        throw new GoExit(code);
      },
      fd_write: (_fd: number, iovs: number, count: number, writtenAt: number) => {
        const dv = view();
        let total = 0;
        for (let i = 0; i < count; i++) total += dv.getUint32(iovs + i * 8 + 4, true);
        dv.setUint32(writtenAt, total, true);
        return 0;
      },
      random_get: (pointer: number, length: number) => {
        crypto.getRandomValues(new Uint8Array(memory().buffer, pointer, length));
        return 0;
      },
    },
  };
}

/** `main` returning ends in proc_exit; the instance's exports stay usable (as with wasm_exec.js). */
class GoExit {
  constructor(readonly code: number) {}
}

interface ProcessResult {
  text?: string;
  parseError?: { Filename?: string; Text?: string; Pos?: { Line?: number; Col?: number } } | null;
  message?: string;
}

export function shfmtFormatter(options: { wasm: WasmSource }): FormatterAdapter {
  const module = lazy(() => compileWasm(options.wasm, 'sh-syntax', BUILTIN_WASM_IDENTITY['sh-syntax']));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

  async function instance(): Promise<ShExports> {
    const compiled = await module.get();
    let exports: ShExports | undefined;
    const created = new WebAssembly.Instance(compiled, goHost(() => exports!.memory, compiled));
    exports = created.exports as unknown as ShExports;
    try {
      exports._start();
    } catch (thrown) {
      if (!(thrown instanceof GoExit) || thrown.code !== 0) throw thrown;
    }
    return exports;
  }

  function run(exports: ShExports, path: string, text: string, o: ShfmtOptions): ProcessResult {
    const put = (bytes: Uint8Array) => {
      const pointer = exports.wasmAlloc(bytes.length);
      new Uint8Array(exports.memory.buffer, pointer, bytes.length).set(bytes);
      return pointer;
    };
    const file = encoder.encode(path);
    const source = encoder.encode(text);
    const filePointer = put(file);
    const sourcePointer = put(source);
    const stopPointer = put(new Uint8Array(0));
    const flag = (value: boolean) => (value ? 1 : 0);
    const resultPointer = exports.process(
      filePointer, file.length, file.length, sourcePointer, source.length, source.length,
      // print, keepComments, variant, stopAt, recoverErrors, simplify (the argument order of sh-syntax 0.7.0's processor)
      1, 1, VARIANT[o.variant], stopPointer, 0, 0, 0, 0,
      o.indent, flag(o.binaryNextLine), flag(o.switchCaseIndent), flag(o.spaceRedirects), flag(o.keepPadding), 0, 0, flag(o.functionNextLine),
    );
    exports.wasmFree(filePointer);
    exports.wasmFree(sourcePointer);
    exports.wasmFree(stopPointer);
    const memory = new Uint8Array(exports.memory.buffer);
    const end = memory.indexOf(0, resultPointer);
    return JSON.parse(decoder.decode(memory.subarray(resultPointer, end))) as ProcessResult;
  }

  return {
    name: 'shfmt',
    via: 'wasm',
    languages: ['shell'],
    supportsRange: false,

    async info(): Promise<FormatterInfo> {
      await module.get();
      return { name: 'sh-syntax', version: SH_SYNTAX_PACKAGE_VERSION, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      let result: ProcessResult;
      try {
        result = run(await instance(), request.path, request.text, shfmtOptions(request.settings, request.path, request.text));
      } catch (thrown) {
        return { kind: 'error', message: `sh-syntax failed: ${messageOf(thrown)}` };
      }
      if (result.parseError) {
        const { Pos, Text } = result.parseError;
        return { kind: 'error', message: Pos?.Line ? `${Pos.Line}:${Pos.Col ?? 0}: ${Text ?? 'syntax error'}` : (Text ?? 'syntax error') };
      }
      if (result.message) return { kind: 'error', message: result.message };
      // shfmt's printer ends every line with LF, whatever the file had (it has no line-ending option).
      return { kind: 'ok', text: result.text ?? '', lineEnding: 'lf' };
    },

  };
}
