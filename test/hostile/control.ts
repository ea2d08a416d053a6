// Positive control for the hostile suite: Prettier's own Node API (what an editor or the Prettier CLI
// does) on the same case directories. Its payloads run and write the marker — proof that the suite's
// payloads are live, and that formatbox's untrusted mode is what kept them from running.
//   node --import tsx test/hostile/control.ts <controls.json>     ([{ name, file, root }])
import { readFileSync } from 'node:fs';
import * as prettier from 'prettier';

const jobs = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Array<{ name: string; file: string; root: string }>;
for (const job of jobs) {
  try {
    // As a user running Prettier in the project: bare plugin names resolve from the working directory.
    process.chdir(job.root);
    const options = (await prettier.resolveConfig(job.file, { editorconfig: true, useCache: false })) ?? {};
    await prettier.format('const x = 1\n', { ...options, filepath: job.file });
  } catch {
    // A payload plugin is not a working plugin; the marker is written on import, before this.
  }
}
process.exit(0);
