/**
 * Biome at a pinned version that has no wasm build: the official native CLI of that version
 * (`@biomejs/cli-linux-x64`, from the verified store), run only inside the OS sandbox, one file per
 * run through `biome format --stdin-file-path` in the project root (read-only), so Biome's own config
 * loader reads and judges the project's biome.json as its CLI does. No sandbox: no run.
 * Before its first use, the binary must say it is that version (`biome --version` in the sandbox):
 * a wrong binary is refused.
 */
import type { AdapterRequest, AdapterResult, FormatterAdapter, FormatterInfo } from '../core/types.js';
import type { Sandbox, SandboxResult } from '../core/sandbox.js';
import { BIOME_LANGUAGES } from '../formatters/biome/adapter.js';
import { describeConfigDiagnostic, packageExtendsRefusal } from '../formatters/biome/adapter.js';

export interface NativeBiomeBuild {
  binary: string;
  packageDir: string;
  version: string;
}

const MAX_STDERR = 256 * 1024;

/** The native Linux build's package for this machine, or undefined where formatbox has none to fetch. */
export function nativeBiomePackage(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  return platform === 'linux' && arch === 'x64' ? '@biomejs/cli-linux-x64' : platform === 'linux' && arch === 'arm64' ? '@biomejs/cli-linux-arm64' : undefined;
}

/** Asks the binary its version, in the sandbox; undefined when it is the expected one, else why not. */
export async function checkNativeBiome(sandbox: Sandbox, build: NativeBiomeBuild): Promise<string | undefined> {
  const result = await sandbox.run({ argv: [build.binary, '--version'], readOnlyPaths: [build.packageDir], timeoutMs: 10_000, maxStdoutBytes: 4096, maxStderrBytes: 4096 });
  if (result.kind !== 'exit') return `the native Biome ${build.version} did not run: ${result.kind}${'reason' in result ? ` (${result.reason})` : 'message' in result ? ` (${result.message})` : ''}`;
  const said = new TextDecoder().decode(result.stdout).trim();
  return said === `Version: ${build.version}` ? undefined : `the native Biome binary says ${JSON.stringify(said.slice(0, 80))}, not Version: ${build.version}: refused`;
}

export function nativeBiomeAdapter(options: { sandbox: Sandbox; build: NativeBiomeBuild; root: string; timeoutMs: number }): FormatterAdapter {
  const { sandbox, build, root } = options;
  const info: FormatterInfo = { name: 'biome', version: build.version, via: 'sandbox' };
  return {
    name: 'biome',
    via: 'sandbox',
    languages: BIOME_LANGUAGES,
    supportsRange: false,
    info: () => Promise.resolve(info),
    async format(request: AdapterRequest): Promise<AdapterResult> {
      const unverified = packageExtendsRefusal(build.version, request.configSources);
      if (unverified) return { kind: 'error', message: unverified, config: true };
      const stdin = new TextEncoder().encode(request.text);
      const result = await sandbox.run({
        argv: [build.binary, 'format', '--colors=off', `--stdin-file-path=${request.path}`],
        stdin,
        root,
        cwd: root,
        readOnlyPaths: [build.packageDir],
        timeoutMs: options.timeoutMs,
        maxStdoutBytes: stdin.length * 4 + 1024 * 1024,
        maxStderrBytes: MAX_STDERR,
      });
      return resultOf(result);
    },
  };
}

function resultOf(result: SandboxResult): AdapterResult {
  switch (result.kind) {
    case 'exit': {
      if (result.code === 0) return { kind: 'ok', text: new TextDecoder().decode(result.stdout), lineEnding: 'output' };
      const stderr = result.stderr;
      // A diagnostic about the configuration names the config file in its header.
      const configFile = /^(\S*(?:biome\.jsonc?|\.biome\.jsonc?))(?::\d+:\d+)? \S+ +━/m.exec(stderr)?.[1];
      if (configFile) return { kind: 'error', message: describeConfigDiagnostic(configFile.replace(/^.*\//, ''), stderr.slice(stderr.indexOf(configFile))), config: true, exitCode: result.code };
      const said = stderr.split('\n').find((line) => /^\s*×\s/.test(line))?.replace(/^\s*×\s*/, '').trim() ?? (stderr.split('\n').find((l) => l.trim() !== '') ?? '').trim();
      return { kind: 'error', message: said || `exit ${result.code}`, exitCode: result.code };
    }
    case 'timeout':
      return { kind: 'timeout', ms: result.ms };
    case 'output-limit':
      return { kind: 'error', message: `wrote more than ${result.bytes} bytes` };
    case 'refused':
      return { kind: 'refused', reason: result.reason };
    case 'aborted':
      return { kind: 'error', message: 'stopped' };
    case 'error':
      return { kind: 'error', message: `the sandbox could not start it: ${result.message}` };
  }
}
