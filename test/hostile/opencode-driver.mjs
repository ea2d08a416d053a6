// Drives the built opencode plugin (the package's `./server` export) as opencode calls it for one
// tool call: `tool.execute.before`, then `tool.execute.after` with the tool's output. Prints the
// output the model would be sent. Usage: node opencode-driver.mjs <plugin.js> <project> <tool> <args JSON>
import { pathToFileURL } from 'node:url';

const [pluginPath, directory, tool, argsJson] = process.argv.slice(2);
const plugin = (await import(pathToFileURL(pluginPath).href)).default;
const hooks = await plugin.server({ directory });
const args = JSON.parse(argsJson);
const call = { tool, sessionID: 's1', callID: 'c1', args };
await hooks['tool.execute.before'](call, { args });
const result = { title: tool, output: `${tool} done`, metadata: {} };
await hooks['tool.execute.after'](call, result);
await hooks.dispose();
process.stdout.write(JSON.stringify({ output: result.output }) + '\n');
