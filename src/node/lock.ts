/**
 * In-process path locks: calls on the same file are serialised, calls on different files run
 * concurrently. Several paths are taken in sorted order, so two multi-file calls cannot deadlock.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** `run` is told whether it had to wait for another call's lock (false: every path was free). */
  async with<T>(paths: readonly string[], run: (waited: boolean) => Promise<T>): Promise<T> {
    const unique = [...new Set(paths)].sort();
    const releases: Array<() => void> = [];
    const waited = unique.some((path) => this.tails.has(path));
    try {
      for (const path of unique) releases.push(await this.acquire(path));
      return await run(waited);
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private async acquire(path: string): Promise<() => void> {
    const previous = this.tails.get(path) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(path, tail);
    await previous;
    return () => {
      release();
      if (this.tails.get(path) === tail) this.tails.delete(path);
    };
  }
}
