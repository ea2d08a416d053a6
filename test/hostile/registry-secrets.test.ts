// No secret of the user's registry configuration in any text shown: a registry URL with
// credentials, a token npm expands from `${NPM_TOKEN}` in ~/.npmrc, a token in a query string. The
// registry is unreachable (127.0.0.1:9), so the fetch of the pinned version fails and its reason is
// quoted: in the receipt (line and note), in doctor, on stderr. The real CLI under time and memory bounds.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUp, installCopy, isolatedEnv, project } from '../cli/built-cli.js';
import { runBounded } from './bounded.js';
import { outsideNpm } from './other-user.js';

const built = await installCopy();
const iso = isolatedEnv();
const dirs: string[] = [];
after(() => cleanUp(iso.runtimeDir, built.dir, ...dirs));

const PASSWORD = 'hunter2-s3cret-pass';
const TOKEN = 'npm_T0kenValue1234567890abcdef';

function home(npmrc?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fb-secret-home-'));
  dirs.push(dir);
  if (npmrc !== undefined) writeFileSync(join(dir, '.npmrc'), npmrc);
  return dir;
}

/** apply (one write) and doctor in a repository pinning `pins`; everything they printed. */
async function shown(env: NodeJS.ProcessEnv, pins: Record<string, string>, configFile: [string, string], path: string): Promise<{ text: string; line: string }> {
  const root = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'package.json': JSON.stringify({ devDependencies: pins }), [configFile[0]]: configFile[1] });
  dirs.push(root);
  const cache = mkdtempSync(join(tmpdir(), 'fb-secret-cache-'));
  dirs.push(cache);
  const fullEnv = { ...outsideNpm(iso.env), XDG_CACHE_HOME: cache, FORMATBOX_NO_DAEMON: '1', ...env };
  const bounds = { timeoutMs: 60_000, maxRssMiB: 768 };
  const apply = await runBounded(process.execPath, [built.cli, 'apply', '--json'], { env: fullEnv, cwd: root, input: JSON.stringify({ root, path, input: { content: 'const  x = 1\n' } }), bounds });
  const doctor = await runBounded(process.execPath, [built.cli, 'doctor', '--root', root], { env: fullEnv, cwd: root, bounds });
  const doctorJson = await runBounded(process.execPath, [built.cli, 'doctor', '--json', '--root', root], { env: fullEnv, cwd: root, bounds });
  const receipt = JSON.parse(apply.stdout) as { line: string };
  return { text: [apply.stdout, apply.stderr, doctor.stdout, doctor.stderr, doctorJson.stdout, doctorJson.stderr].join('\n'), line: receipt.line };
}

function assertNoSecret(text: string, ...secrets: string[]): void {
  for (const secret of secrets) assert.equal(text.includes(secret), false, `"${secret}" was shown:\n${text.split('\n').filter((l) => l.includes(secret)).join('\n')}`);
}

test('case 5: a registry URL with credentials (user:pass@host) is shown without them', async () => {
  const { text, line } = await shown({ HOME: home(), npm_config_registry: `http://formatbox:${PASSWORD}@127.0.0.1:9/` }, { prettier: '3.3.3' }, ['.prettierrc', '{}\n'], 'a.ts');
  assertNoSecret(text, PASSWORD, 'formatbox:');
  assert.match(line, /the project pins 3\.3\.3: .*127\.0\.0\.1:9\/prettier/);
});

test("case 5: a token npm expands from ${NPM_TOKEN} in the user's ~/.npmrc never reaches the receipt or doctor", async () => {
  const { text, line } = await shown({ HOME: home('registry=http://127.0.0.1:9/${NPM_TOKEN}/\n'), NPM_TOKEN: TOKEN }, { prettier: '3.3.3' }, ['.prettierrc', '{}\n'], 'a.ts');
  assertNoSecret(text, TOKEN);
  assert.match(line, /the project pins 3\.3\.3: /);
});

test('variants: a token in the query string; userinfo from ~/.npmrc; a scoped registry for Biome; a password-only userinfo', async () => {
  const cases: Array<[NodeJS.ProcessEnv, Record<string, string>, [string, string], string, string[]]> = [
    [{ HOME: home('registry=http://127.0.0.1:9/?token=${NPM_TOKEN}\n'), NPM_TOKEN: TOKEN }, { prettier: '3.3.3' }, ['.prettierrc', '{}\n'], 'a.ts', [TOKEN]],
    [{ HOME: home(`registry=http://me:${PASSWORD}@127.0.0.1:9/npm/\n`) }, { prettier: '3.3.3' }, ['.prettierrc', '{}\n'], 'a.ts', [PASSWORD]],
    [{ HOME: home('@biomejs:registry=http://ci:${NPM_TOKEN}@127.0.0.1:9/\n'), NPM_TOKEN: TOKEN }, { '@biomejs/biome': '2.3.0' }, ['biome.json', '{}\n'], 'a.ts', [TOKEN]],
    [{ HOME: home(), npm_config_registry: `http://:${PASSWORD}@127.0.0.1:9/` }, { prettier: '3.2.5' }, ['.prettierrc', '{}\n'], 'a.ts', [PASSWORD]],
  ];
  for (const [env, pins, config, path, secrets] of cases) {
    const { text, line } = await shown(env, pins, config, path);
    assertNoSecret(text, ...secrets);
    assert.match(line, /the project pins /, line);
  }
});
