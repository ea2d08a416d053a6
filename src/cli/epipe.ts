let installed = false;

/**
 * `formatbox … | head`: when the reader goes away, stop quietly instead of printing a stack trace.
 * Call it before the first write; a second call does nothing. (It creates process.stdout, which costs
 * ~6 ms on a pipe: the project-wide `format` calls it once native Biome has started.)
 */
export function quietOnEpipe(): void {
  if (installed) return;
  installed = true;
  const quit = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  };
  process.stdout.on('error', quit);
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
