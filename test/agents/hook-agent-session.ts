/**
 * What the hook-agent end-to-end tests share (Copilot, Gemini CLI, cline, Qwen Code): the built
 * CLI as `formatbox` on PATH (as an installed package puts it), an isolated HOME and
 * XDG_RUNTIME_DIR (its own daemon), and a git project per session with the fixture files every
 * agent's test edits: an unformatted edit and write (Biome), a syntax error, an invalid Ruff config,
 * a 2,000-line file, a CRLF file and a file outside the project.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv } from '../cli/built-cli.js';

export const BIG_LINES = 2000;
export const BIG = Array.from({ length: BIG_LINES }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
export const CRLF = 'export const c = 1;\r\nexport const d = 2;\r\n';

/** The fixture project: Biome for TypeScript, an invalid ruff.toml for Python. */
export const FIXTURES: Record<string, string> = {
  'biome.json': '{}\n',
  'ruff.toml': 'line-length = "wide"\n',
  'a.ts': 'export const a = { b: 1 };\n',
  'bad.ts': 'export const ok = 1;\n',
  'big.ts': BIG,
  'crlf.ts': CRLF,
  'app.py': 'x = 1\n',
};

export interface HookAgentWorld {
  base: string;
  env: NodeJS.ProcessEnv;
  /** A fresh git project holding `files`, under `base`. */
  project(name: string, files?: Record<string, string>): string;
  /** A file outside every project the sessions use. */
  outside: string;
  close(): Promise<void>;
}

export async function hookAgentWorld(prefix: string): Promise<HookAgentWorld> {
  const base = mkdtempSync(join(tmpdir(), `fb-${prefix}-`));
  const copy = await installCopy();
  const binDir = join(base, 'bin');
  mkdirSync(binDir);
  writeFileSync(join(binDir, 'formatbox'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(copy.cli)} "$@"\n`);
  chmodSync(join(binDir, 'formatbox'), 0o755);
  const { runtimeDir } = isolatedEnv();
  const home = join(base, 'home');
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = {
    PATH: `${binDir}:${process.env.PATH}`,
    HOME: home,
    TMPDIR: tmpdir(),
    XDG_RUNTIME_DIR: runtimeDir,
    XDG_CONFIG_HOME: join(home, '.config'),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
  };
  const outsideDir = join(base, 'elsewhere');
  mkdirSync(outsideDir);
  const outside = join(outsideDir, 'outside.ts');
  writeFileSync(outside, 'export const out = 1;\n');
  return {
    base,
    env,
    outside,
    project(name, files = FIXTURES) {
      const dir = join(base, name);
      mkdirSync(dir, { recursive: true });
      execFileSync('git', ['init', '-q'], { cwd: dir });
      for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
      return dir;
    },
    close: () => cleanUp(runtimeDir, base),
  };
}
