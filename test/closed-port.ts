import { createServer, type AddressInfo } from 'node:net';

/** A loopback port that was free a moment ago (bound, then closed): a registry there refuses at once, as an offline machine's does. */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
