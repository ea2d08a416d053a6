// Runs the Prettier CLI's own entry (`run` of prettier/internal/legacy-cli.mjs, what bin/prettier.cjs
// calls) once per file, in one process: `prettier --write <file>` with the file's project as cwd (what
// an editor or hook runs on save). The CLI aborts a whole run on the first invalid config (process.exit
// or an exception), so one run over many projects would stop at the first broken one; trapping
// process.exit per call keeps every file's outcome. Arguments: `<dir>\t<file>` pairs. Prints one JSON
// line per file: {dir, file, exitCode}.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const prettierDir = dirname(require.resolve('prettier/package.json'));
const { run } = await import(pathToFileURL(join(prettierDir, 'internal/legacy-cli.mjs')).href);

class Exit extends Error {}
const realExit = process.exit;
process.exit = (code) => {
  throw new Exit(String(code ?? 0));
};
for (const pair of process.argv.slice(2)) {
  const [dir, file] = pair.split('\t');
  process.chdir(dir);
  process.exitCode = 0;
  let exitCode;
  try {
    await run(['--write', '--log-level', 'silent', file]);
    exitCode = process.exitCode ?? 0;
  } catch (error) {
    exitCode = error instanceof Exit ? Number(error.message) : 70;
  }
  process.stdout.write(`${JSON.stringify({ dir, file, exitCode })}\n`);
}
process.exitCode = 0;
process.exit = realExit;
