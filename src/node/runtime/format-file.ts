/**
 * Formatting a file as it is: `format` (with the `formatbox format` cache: a file whose key is known
 * formatted is `unchanged` without a formatter call), `afterWrite` (a harness wrote the file itself),
 * `beforeWrite` (a harness is about to write it: the edit applied and formatted in memory) and
 * `formatText` (text given as if it were the file, nothing read or written).
 */
import { FormatboxError } from '../../core/errors.js';
import type { Receipt, SingleFileInput, WriteInput } from '../../core/types.js';
import { applyInput } from '../../tools/index.js';
import { toolKind } from '../../tools/index.js';
import { resolveInside } from '../fs/paths.js';
import { readSnapshot } from '../fs/read.js';
import { nodeSha256 } from '../hash.js';
import { engineOf } from './bootstrap.js';
import { cacheKeyOf } from './cache-key.js';
import { isConfigFile, refreshConfigIfNeeded } from './config-refresh.js';
import { commitFinal } from './final-write.js';
import { decode, priorText, withPath } from './input.js';
import { finish, runBefore } from './observers.js';
import { onlyTarget, withResolved } from './paths.js';
import { elapsed, skippedReceipt } from './receipts.js';
import type { RuntimeState } from './state.js';
import type { AfterWriteRequest, FormatFileRequest } from './types.js';

export async function format(state: RuntimeState, request: FormatFileRequest): Promise<Receipt> {
  const started = performance.now();
  const eng = await engineOf(state);
  return withResolved(state, [request.path], async (targets) => {
    const target = onlyTarget(targets);
    const snapshot = await readSnapshot(target.abs, target.shown, state.readOptions);
    if (!snapshot) throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist`);
    request.onRead?.(nodeSha256(snapshot.bytes));
    const prior = decode(snapshot.bytes);
    if (prior === undefined) {
      const outcome = await eng.format({ path: target.realRel, bytes: snapshot.bytes });
      return { ...skippedReceipt(target.rel, outcome.content, outcome.reason ?? 'not UTF-8', outcome.line), ms: elapsed(started) };
    }
    const input: WriteInput = { content: prior };
    await refreshConfigIfNeeded(state, eng, [target.realRel]);
    // Keyed after the config refresh: the key covers the config this file gets now.
    const cached = request.cache ? await cacheKeyOf(eng, request.cache, target.realRel, prior) : undefined;
    if (cached && request.cache!.has(cached.key(snapshot.bytes))) {
      const line = `already formatted (cached; ${cached.label}): ${target.shown}`;
      // The bytes are valid UTF-8 (decoded above), so they are the encoding of `prior`: hash them as they are.
      const record = { sha256: nodeSha256(snapshot.bytes), bytes: snapshot.bytes.byteLength };
      return { path: target.rel, status: 'unchanged', formatter: cached.info, input, reconciled: true, content: prior, line, note: line, record, ...(cached.ignored ? { ignored: cached.ignored } : {}), ms: elapsed(started) };
    }
    let receipt: Receipt;
    if (request.check) {
      receipt = { ...(await eng.afterEdit({ path: target.realRel, prior, input, written: prior })), ms: elapsed(started) };
    } else {
      await runBefore(state, { path: target.rel, absolutePath: target.abs, tool: 'format', prior, written: prior });
      receipt = await eng.afterEdit({ path: target.realRel, prior, input, written: prior });
      receipt = await commitFinal(target, receipt, { written: prior, writtenBytes: snapshot.bytes, keep: snapshot, input });
      receipt = await finish(state, { path: target.rel, absolutePath: target.abs, tool: 'format', receipt }, started);
    }
    // Only a file the formatter left as it was is known formatted; a file written formatted is
    // confirmed by the next run (so a formatter that is not idempotent is never cached as done).
    if (cached && receipt.status === 'unchanged') request.cache!.add(cached.key(snapshot.bytes));
    return receipt;
  });
}

export async function afterWrite(state: RuntimeState, request: AfterWriteRequest): Promise<Receipt> {
  const started = performance.now();
  const eng = await engineOf(state);
  const tool = toolKind(request.input);
  if (tool === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'afterWrite takes one file; for a patch, call it once per file with a write input');
  if (request.prior === undefined && tool !== 'write') {
    throw new FormatboxError('INVALID_REQUEST', `afterWrite needs prior (the file before the ${tool}) to reconcile the edit`);
  }
  return withResolved(state, [request.path], async (targets) => {
    const target = onlyTarget(targets);
    const snapshot = await readSnapshot(target.abs, target.shown, state.readOptions);
    if (!snapshot) throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist; afterWrite runs after the file was written`);
    const written = decode(snapshot.bytes);
    if (written === undefined) throw new FormatboxError('EDIT_NOT_APPLICABLE', `${target.shown} is not UTF-8 text`);
    await refreshConfigIfNeeded(state, eng, [target.realRel]);
    let receipt = await eng.afterEdit({ path: target.realRel, prior: request.prior ?? '', input: request.input, written });
    receipt = await commitFinal(target, receipt, { written, writtenBytes: snapshot.bytes, keep: snapshot, input: request.input });
    return finish(state, { path: target.rel, absolutePath: target.abs, tool: 'afterWrite', receipt }, started);
  });
}

/**
 * What writing `input` would leave on disk, computed and not written: P read, the input applied
 * (W), W formatted and reconciled against P. No observer runs: nothing happened to the file.
 */
export async function beforeWrite(state: RuntimeState, request: { path: string; input: SingleFileInput }): Promise<Receipt> {
  const started = performance.now();
  const eng = await engineOf(state);
  const tool = toolKind(request.input);
  if (tool === 'applyPatch') throw new FormatboxError('INVALID_REQUEST', 'beforeWrite takes one file\'s edit, multiEdit or write input');
  return withResolved(state, [request.path], async (targets) => {
    const target = onlyTarget(targets);
    const snapshot = await readSnapshot(target.abs, target.shown, state.readOptions);
    if (!snapshot && tool !== 'write') throw new FormatboxError('FILE_NOT_FOUND', `${target.shown} does not exist; create it with write`);
    const prior = snapshot ? priorText(snapshot, tool, target.shown) : '';
    const written = withPath(target.shown, () => applyInput(prior, request.input));
    if (isConfigFile(target.realRel)) {
      // Its new text may change how it (and everything else) is formatted: known only once it is written.
      const line = `not formatted before the write (a formatter config file): ${target.shown}`;
      return skippedReceipt(target.rel, written, 'a formatter config file is formatted after it is written', line);
    }
    await refreshConfigIfNeeded(state, eng, [target.realRel]);
    return { ...(await eng.afterEdit({ path: target.realRel, prior, input: request.input, written })), ms: elapsed(started) };
  });
}

export async function formatText(state: RuntimeState, request: { path: string; text: string }): Promise<Receipt> {
  const started = performance.now();
  const eng = await engineOf(state);
  const target = resolveInside(state.rootReal, request.path);
  const input: WriteInput = { content: request.text };
  await refreshConfigIfNeeded(state, eng, [target.realRel]);
  return { ...(await eng.afterEdit({ path: target.realRel, prior: request.text, input, written: request.text })), ms: elapsed(started) };
}
