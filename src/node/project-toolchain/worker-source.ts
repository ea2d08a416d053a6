/**
 * The script the sandboxed project-toolchain worker runs: `node --input-type=module -e <this>` inside
 * bubblewrap, with the project root as its working directory. It imports the project's own Prettier
 * (a bare `import` from an eval module resolves from the working directory, as the Prettier CLI run
 * in the root does), resolves each file's config with Prettier's own `resolveConfig` (editorconfig
 * included, as the CLI does) and answers one request at a time.
 *
 * Protocol: requests are JSON lines on stdin (`{id, path, text, range?}`); answers are JSON lines on
 * fd 3, the first one `{id: 0, ready, version | message}`. Whatever the project's code prints goes to
 * stdout/stderr, which the host drains and bounds, so it cannot forge an answer by printing.
 * Everything this script sends is checked by the host (toolchain-process.ts): it runs beside the
 * repository's code, in the same process.
 */
export const TOOLCHAIN_WORKER_SOURCE = String.raw`
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { isAbsolute, join, relative } from 'node:path';

const root = process.cwd();
const answers = new Socket({ fd: 3, readable: false, writable: true });
const send = (message) => new Promise((resolve) => answers.write(JSON.stringify(message) + '\n', resolve));
// console.log of a plugin goes to stderr with the rest of its chatter; fd 3 carries only answers.
console.log = console.info = console.debug = console.warn;

function firstLine(error) {
  const message = error && typeof error.message === 'string' ? error.message : String(error);
  const line = message.split('\n')[0] || 'prettier failed';
  const loc = error && error.loc && error.loc.start;
  return loc && loc.line !== undefined && !/\(\d+:\d+\)\s*$/.test(line) ? line + ' (' + loc.line + ':' + (loc.column ?? 0) + ')' : line;
}

function pluginName(plugin) {
  // A plugin file of the project is named './path' from the root (the host watches it for changes).
  if (typeof plugin === 'string') return isAbsolute(plugin) ? (relative(root, plugin).startsWith('..') ? plugin : './' + relative(root, plugin)) : plugin;
  if (plugin instanceof URL) return plugin.href;
  return '(a plugin object from the config)';
}

let prettier;
try {
  prettier = await import('prettier');
} catch (error) {
  await send({ id: 0, ready: false, message: 'the project has no Prettier installed where Node resolves it from the root: ' + firstLine(error) });
  process.exit(3);
}
await send({ id: 0, ready: true, version: String(prettier.version) });

// A TS config loads as this Node loads it: type stripping from 22.6, else through the project's own tsx.
let tsLoader;
function loadTypeScript() {
  tsLoader ??= (async () => {
    if (process.features && process.features.typescript) return;
    try {
      // The project's tsx, resolved from the root like its Prettier (never formatbox's own).
      const projectTsx = 'tsx/esm/api';
      (await import(projectTsx)).register();
    } catch (error) {
      throw new Error('a TypeScript config needs a Node that strips types (22.18, 23.6 or later) or the project\'s own tsx; this is Node ' + process.version + ' and tsx did not load: ' + firstLine(error));
    }
  })();
  return tsLoader;
}

async function answer(request) {
  const id = request.id;
  const file = join(root, request.path);
  let ran = {};
  try {
    const configFile = await prettier.resolveConfigFile(file);
    if (configFile && /\.[cm]?ts$/.test(configFile)) await loadTypeScript();
    // Cached: a change to any config or .editorconfig file changes the toolchain key, and the host starts a new worker.
    const config = (await prettier.resolveConfig(file, { editorconfig: true, useCache: true })) ?? {};
    const { overrides: _overrides, ...rest } = config;
    const plugins = Array.isArray(rest.plugins) ? rest.plugins : [];
    ran = { config: configFile ? relative(root, configFile) : null, plugins: plugins.map(pluginName) };
    const info = await prettier.getFileInfo(file, { resolveConfig: false, plugins });
    if (!info.inferredParser && rest.parser === undefined) return { id, kind: 'unsupported', reason: 'no Prettier parser for ' + request.path, ...ran };
    // LF in, LF out: the host writes the project's endOfLine (auto: the file's first). Any other
    // value goes to Prettier as written, which rejects it as its CLI does.
    const endOfLine = String(rest.endOfLine ?? 'lf');
    const known = ['lf', 'crlf', 'cr', 'auto'].includes(endOfLine);
    const options = { ...rest, filepath: file, ...(known ? { endOfLine: 'lf' } : {}) };
    if (request.range) {
      options.rangeStart = request.range.start;
      options.rangeEnd = request.range.end;
    }
    const text = await prettier.format(request.text, options);
    return { id, kind: 'ok', text, ...(known ? { endOfLine } : {}), ...ran };
  } catch (error) {
    return { id, kind: 'error', message: firstLine(error), ...ran };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    continue;
  }
  await send(await answer(request));
}
process.exit(0);
`;
