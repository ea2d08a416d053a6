/**
 * Node's synchronous SHA-256, as lowercase hex. One function for every hash formatbox compares
 * across modules (a receipt's `record`, the format cache's precheck, a repository wasm's pin), so
 * they cannot drift apart. It is also the Node runtime's `Sha256Port` for the engine: WebCrypto's
 * asynchronous digest costs a thread-pool hop per file.
 */
import { createHash } from 'node:crypto';

export function nodeSha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
