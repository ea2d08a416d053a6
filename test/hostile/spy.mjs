// Module-loader spy for the hostile suite, preloaded with `--import` in the child process (and, since
// workers inherit execArgv, in every worker thread). It logs every module URL that is loaded:
// ESM through a `module.register()` load hook, CommonJS through Module.prototype._compile and the
// `.json` loader (Node 20's hooks do not see `require`). One line per module, to FORMATBOX_SPY_LOG.
import { register } from 'node:module';
import Module from 'node:module';
import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { isMainThread, threadId } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

const log = process.env.FORMATBOX_SPY_LOG;
if (log) {
  const write = (line) => {
    try {
      appendFileSync(log, `${line}\n`);
    } catch {}
  };
  write(`thread ${isMainThread ? 'main' : threadId}`);
  register('./spy-hooks.mjs', import.meta.url, { data: { log } });
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    write(`cjs ${pathToFileURL(filename).href}`);
    return compile.apply(this, arguments);
  };
  const json = Module._extensions['.json'];
  Module._extensions['.json'] = function (module, filename) {
    write(`cjs ${pathToFileURL(filename).href}`);
    return json.apply(this, arguments);
  };
}

// Node 20 does not run `--import` preloads in worker threads: every Worker this process starts
// gets the spy first (the ESM named export is updated through syncBuiltinESMExports).
if (log && isMainThread) {
  const threads = createRequire(import.meta.url)('node:worker_threads');
  const Original = threads.Worker;
  const spyUrl = JSON.stringify(import.meta.url);
  threads.Worker = class SpiedWorker extends Original {
    constructor(script, options = {}) {
      const code = options.eval
        ? `import(${spyUrl}).then(() => { ${script} })`
        : `import(${spyUrl}).then(() => import(${JSON.stringify(String(script instanceof URL ? script.href : new URL(script, 'file://' + process.cwd() + '/').href))}))`;
      super(code, { ...options, eval: true });
    }
  };
  syncBuiltinESMExports();
}
