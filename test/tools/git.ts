/** `git` for the tests that use `git apply` as the reference: the skip rule and a clean environment. */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';

const gitMissing = spawnSync('git', ['--version']).status !== 0;

/** Why the test cannot run (git missing outside CI; it prints that it skipped), or undefined. In CI it must run. */
export function skipWithoutGit(): string | undefined {
  if (!gitMissing) return undefined;
  if (process.env.CI) throw new Error('CI must run the git apply tests: git is missing (.ci/run installs it)');
  console.log('# skipped: git is not installed');
  return 'git is not installed';
}

/** No system or user git config, no repository above the scratch directories. */
export function gitEnv(...scratch: string[]): NodeJS.ProcessEnv {
  return { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CEILING_DIRECTORIES: [tmpdir(), ...scratch].join(':'), LC_ALL: 'C' };
}
