/**
 * gofmt through `@wasm-fmt/gofmt` (Go's go/format compiled with TinyGo). Its wasm has no imports,
 * so this adapter instantiates it directly (the package's `/web` glue keeps a single global
 * instance, which could never be replaced).
 *
 * The TinyGo build leaks: its linear memory grows with every call (about 0.7 MB per call on a
 * 1k-line file, 3 MB on 3.6k lines) and wasm memory never shrinks. The adapter therefore throws
 * the instance away and makes a fresh one (from the same compiled module, so no recompile) after
 * `recycle.calls` calls, after `recycle.inputBytes` bytes of input, or as soon as its memory passes
 * `recycle.memoryBytes`, whichever comes first, and after any trap.
 *
 * Known limitation: the TinyGo build traps ("memory access out of bounds") on a few large
 * generated files (Go's vendored x/net/idna tables). That is an error value, and the trapped
 * instance is replaced.
 *
 * gofmt has no options, so `settings` is ignored. No range formatting.
 */
import { compileWasm, lazy } from '../../core/wasm.js';
import { BUILTIN_WASM_IDENTITY } from '../wasm-identity.js';
import { messageOf } from '../../core/errors.js';
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo, WasmSource } from '../../core/types.js';

/** Version of the `@wasm-fmt/gofmt` package this adapter is built against (the wasm cannot tell; a test checks it against the installed package). */
export const GOFMT_PACKAGE_VERSION = '0.7.3';

export interface GofmtRecycle {
  /** Calls per instance. Default 1000. */
  calls?: number;
  /** UTF-8 input bytes per instance. Default 2 MiB. */
  inputBytes?: number;
  /** Linear memory size that retires an instance. Default 64 MiB. */
  memoryBytes?: number;
}

export interface GofmtFormatterOptions {
  /** `gofmt.wasm` of `@wasm-fmt/gofmt`. */
  wasm: WasmSource;
  recycle?: GofmtRecycle;
}

/** Counters for tests and `doctor`. */
export interface GofmtStats {
  /** Instances created so far (1 after the first call). */
  instances: number;
  /** Calls on the current instance. */
  calls: number;
  /** Input bytes on the current instance. */
  inputBytes: number;
  /** Linear memory of the current instance, 0 when none is live. */
  memoryBytes: number;
}

export interface GofmtAdapter extends FormatterAdapter {
  stats(): GofmtStats;
}

interface GofmtExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  alloc(size: number): number;
  dispose(): void;
  format(): number;
  output_ptr(): number;
  output_len(): number;
}

interface Live {
  exports: GofmtExports;
  calls: number;
  inputBytes: number;
}

const FORMAT_UNCHANGED = 0;
const FORMAT_CHANGED = 1;

export function gofmtFormatter(options: GofmtFormatterOptions): GofmtAdapter {
  const limits = {
    calls: options.recycle?.calls ?? 1000,
    inputBytes: options.recycle?.inputBytes ?? 2 * 1024 * 1024,
    memoryBytes: options.recycle?.memoryBytes ?? 64 * 1024 * 1024,
  };
  const module = lazy(() => compileWasm(options.wasm, 'gofmt', BUILTIN_WASM_IDENTITY.gofmt));
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let live: Live | undefined;
  let instances = 0;

  async function instance(): Promise<Live> {
    if (live) return live;
    const compiled = await module.get();
    const created = await WebAssembly.instantiate(compiled, {});
    const exports = created.exports as unknown as GofmtExports;
    exports._initialize();
    instances++;
    live = { exports, calls: 0, inputBytes: 0 };
    return live;
  }

  function retireIfWorn(current: Live): void {
    if (
      current.calls >= limits.calls ||
      current.inputBytes >= limits.inputBytes ||
      current.exports.memory.buffer.byteLength >= limits.memoryBytes
    ) {
      if (live === current) live = undefined;
    }
  }

  return {
    name: 'gofmt',
    via: 'wasm',
    languages: ['go'],
    supportsRange: false,

    async info(): Promise<FormatterInfo> {
      await module.get();
      return { name: 'gofmt', version: GOFMT_PACKAGE_VERSION, via: 'wasm' };
    },

    async format(request: AdapterRequest): Promise<AdapterResult> {
      const current = await instance();
      const { exports } = current;
      const input = encoder.encode(request.text);
      current.calls++;
      current.inputBytes += input.length;
      try {
        const pointer = exports.alloc(input.length);
        new Uint8Array(exports.memory.buffer, pointer, input.length).set(input);
        const code = exports.format();
        // gofmt always writes LF.
        if (code === FORMAT_UNCHANGED) return { kind: 'ok', text: request.text, lineEnding: 'lf' };
        const output = decoder.decode(new Uint8Array(exports.memory.buffer, exports.output_ptr(), exports.output_len()));
        if (code === FORMAT_CHANGED) return { kind: 'ok', text: output, lineEnding: 'lf' };
        // gofmt's own message: `line:column: expected …` (several errors are joined by newlines).
        return { kind: 'error', message: output.split('\n', 1)[0] ?? output };
      } catch (thrown) {
        // A trap (TinyGo panic, out of memory) leaves the instance unusable: start afresh next time.
        if (live === current) live = undefined;
        // Seen on some large generated files (Go's x/net/idna tables, ~270 KB): a TinyGo trap.
        return { kind: 'error', message: `gofmt wasm trapped (${messageOf(thrown)}); native gofmt may handle this file` };
      } finally {
        if (live === current) {
          try {
            exports.dispose();
          } catch {
            live = undefined;
          }
          if (live) retireIfWorn(current);
        }
      }
    },

    stats(): GofmtStats {
      return {
        instances,
        calls: live?.calls ?? 0,
        inputBytes: live?.inputBytes ?? 0,
        memoryBytes: live?.exports.memory.buffer.byteLength ?? 0,
      };
    },

    async preload() {
      await instance();
    },


    dispose() {
      live = undefined;
    },
  };
}
