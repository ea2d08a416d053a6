/** `formatbox … | head`: when the reader goes away, stop quietly instead of printing a stack trace. */
export function quietOnEpipe(): void {
  const quit = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  };
  process.stdout.on('error', quit);
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
