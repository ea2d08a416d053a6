/**
 * A raw stdio session with `formatbox mcp` (or any command): write lines, read each JSON reply line,
 * wait for one that matches. For what the SDK's client never sends (the hostile and protocol tests).
 */
import { spawn } from 'node:child_process';

export function rawMcpSession(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }) {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  const replies: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      replies.push(JSON.parse(buffer.slice(0, end)) as Record<string, unknown>);
      buffer = buffer.slice(end + 1);
      waiters.splice(0).forEach((wake) => wake());
    }
  });
  const write = (text: string): Promise<void> => new Promise((done) => (child.stdin.write(text) ? done() : child.stdin.once('drain', done)));
  const reply = async (match: (r: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = replies.find(match);
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before answering`);
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  const end = (): Promise<void> => new Promise((done) => { child.on('close', () => done()); child.stdin.end(); });
  return { child, replies, write, reply, end };
}
