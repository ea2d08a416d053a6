// Loader hooks for spy.mjs: logs each URL passed to `load`, then defers to the next hook.
import { appendFileSync } from 'node:fs';

let log;
export function initialize(data) {
  log = data?.log;
}
export async function load(url, context, next) {
  if (log) {
    try {
      appendFileSync(log, `esm ${url}\n`);
    } catch {}
  }
  return next(url, context);
}
