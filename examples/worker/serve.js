// The HTTP face shared by the worker profiles (Cloudflare Workers / workerd module syntax):
//   POST /format {path, text, projectFiles?, config?}          → a FormatOutcome
//   POST /edit   {path, prior, input, projectFiles?, config?}  → a receipt
//   GET  /                                                    → {profile, formatters} (loads nothing)
// Adapters are made once per isolate and shared by every request, so each wasm loads once.
// `config` defaults to {mode: 'always'}: without project files, every language gets its default formatter.
import { createEngine } from 'formatbox/core';

/** A Workers `fetch` handler over the adapters `makeFormatters()` returns (called on first use). */
export function formatboxWorker(profile, makeFormatters) {
  let formatters;
  const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
  return {
    async fetch(request) {
      const { pathname } = new URL(request.url);
      formatters ??= makeFormatters();
      if (request.method === 'GET' && pathname === '/') return json(200, { profile, formatters: formatters.map((f) => f.name) });
      if (request.method !== 'POST' || (pathname !== '/format' && pathname !== '/edit')) return json(404, { error: 'POST /format or POST /edit' });
      let body;
      try {
        body = await request.json();
      } catch {
        return json(400, { error: 'the body must be JSON' });
      }
      if (!body || typeof body.path !== 'string') return json(400, { error: 'path (a string) is required' });
      const engine = createEngine({ formatters, projectFiles: body.projectFiles ?? {}, config: body.config ?? { mode: 'always' } });
      try {
        if (pathname === '/format') {
          if (typeof body.text !== 'string') return json(400, { error: 'text (a string) is required' });
          return json(200, await engine.format({ path: body.path, text: body.text }));
        }
        if (typeof body.prior !== 'string' || !body.input || typeof body.input !== 'object') return json(400, { error: 'prior (a string) and input (a tool input) are required' });
        return json(200, await engine.afterEdit({ path: body.path, prior: body.prior, input: body.input }));
      } catch (error) {
        // A FormatboxError (e.g. EDIT_NOT_APPLICABLE) is the caller's problem; anything else is ours.
        const code = error && typeof error.code === 'string' ? error.code : 'INTERNAL';
        return json(code === 'INTERNAL' ? 500 : 422, { error: String(error?.message ?? error), code });
      }
    },
  };
}
