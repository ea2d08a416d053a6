/**
 * Downloads said before they happen: a formatter version a project pins, or native Biome, is fetched
 * into the per-user store the first time it is needed; the CLI prints one line on stderr with what
 * and how big before the body is read, and on a TTY the share received. `--offline` (or
 * FORMATBOX_OFFLINE=1) fetches nothing: the store's refusal names what was not fetched, and the
 * receipt or the native line says what ran instead.
 */
import { onFormatterDownloads, type DownloadEvent } from '../node/formatter-store/store.js';
import { paintFor } from './colour.js';

/** Sets the process's download listener to print on stderr; `--offline` sets FORMATBOX_OFFLINE for this process. */
export function announceDownloads(flags: { offline?: boolean; color?: boolean; logLevel?: string }): void {
  if (flags.offline) process.env.FORMATBOX_OFFLINE = '1';
  if (flags.logLevel === 'silent' || flags.logLevel === 'error') return;
  const tty = process.stderr.isTTY === true;
  const paint = paintFor(process.stderr, flags);
  let drawnAt = 0;
  onFormatterDownloads((event: DownloadEvent) => {
    const size = event.bytes !== undefined ? ` (${megabytes(event.bytes)})` : '';
    if (event.received === undefined) {
      process.stderr.write(`formatbox: fetching ${event.what}${size} from ${new URL(event.url).origin} into the formatter store (once; --offline never fetches)\n`);
      return;
    }
    if (!tty) return;
    const now = performance.now();
    if (event.done) process.stderr.write(`\r\x1b[K`);
    else if (now - drawnAt >= 100) {
      drawnAt = now;
      const share = event.bytes ? ` ${Math.floor((100 * event.received) / event.bytes)}%` : '';
      process.stderr.write(`\r\x1b[K${paint.dim(`${event.what}: ${megabytes(event.received)}${share}`)}`);
    }
  });
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
