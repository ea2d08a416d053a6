// An embedding program that holds file descriptors without close-on-exec (as one inherited from its
// parent, or opened by a native addon, would): the parent passes a directory outside the project at
// fd 40 and a pipe at fd 41. It runs one sandboxed probe and prints the result as JSON.
//   node --import tsx test/hostile/fd-holder.ts <mode> <root> <probe-script>
// mode: `stdin` (bwrap backend, stdin filter), `supervisor` (temp-file mode, read back by the
// in-sandbox supervisor), `runtime` / `runtime-stdin` (createRuntime with a user command in
// temp-file / stdin mode).
import { readFileSync } from 'node:fs';
import { bwrapSandbox } from '../../src/node/sandbox/index.js';
import { createRuntime } from '../../src/node/index.js';

const [mode, root, probe] = process.argv.slice(2) as [string, string, string];
const flags = (fd: number) => /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
// The premise of the test: both fds are open here and would be inherited.
const held = [40, 41].map((fd) => ({ fd, cloexec: (parseInt(flags(fd) ?? '0', 8) & 0o2000000) !== 0 }));

let output = '';
if (mode === 'runtime' || mode === 'runtime-stdin') {
  // Temp-file mode writes the probe's report into the copy; stdin mode prints it as the output.
  const command = mode === 'runtime' ? ['/bin/sh', '-c', `(${probe}) > /tmp/probe.out 2>&1; cat /tmp/probe.out > "$1"`, 'sh', '{file}'] : ['/bin/sh', '-c', `(${probe}) 2>&1`];
  const runtime = createRuntime({ root, config: { formatters: { '**/*.probe': { command } } } });
  try {
    const receipt = await runtime.write({ path: 'a.probe', content: 'input\n' });
    output = `${receipt.status}\n${receipt.content}\n${receipt.line}`;
  } finally {
    await runtime.close();
  }
} else {
  const sandbox = bwrapSandbox(mode === 'supervisor' ? { readBack: 'supervisor' } : {});
  const result = await sandbox.run({
    argv: mode === 'supervisor' ? (paths) => ['/bin/sh', '-c', probe, 'sh', paths.file] : ['/bin/sh', '-c', probe],
    root,
    ...(mode === 'supervisor' ? { scratchFile: { name: 'a.probe', content: new TextEncoder().encode('input\n') } } : { stdin: new TextEncoder().encode('input\n') }),
    timeoutMs: 20_000,
    maxStdoutBytes: 1 << 20,
    maxStderrBytes: 1 << 16,
  });
  output = result.kind === 'exit' ? `${new TextDecoder().decode(result.stdout)}${result.scratchFile ? new TextDecoder().decode(result.scratchFile) : ''}${result.stderr}` : JSON.stringify(result);
}
process.stdout.write(JSON.stringify({ held, output }));
process.exit(0);
