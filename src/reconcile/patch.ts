/**
 * Reconciliation of one file of a patch. Patches are line-based, so this works on lines: each chunk's
 * written lines form a region; formatter hunks inside or at the edge of a region become that chunk's
 * new lines; a hunk crossing a region's edge widens the chunk by whole lines (overlapping regions
 * merge); everything else goes to the diff. The file's part of the patch is then rendered again in
 * the patch's own format and verified by applying it to the prior.
 */
import { applyUnifiedDiff, unifiedDiff } from '../core/diff.js';
import { FormatboxError } from '../core/errors.js';
import {
  applyChunks, lineContent, linesWithEndings, parsePatch, renderFilePatch,
  type PatchedFile, type RenderRegion,
} from '../tools/apply-patch.js';
import { lineHunks } from './hunks.js';

export interface PatchFileResult {
  /** This file's part of the rewritten patch (no Begin/End lines). */
  part: string;
  reconciled: boolean;
  reason?: string;
  /** Unified diff from the rewritten part applied to the prior, to F. */
  diff?: string;
  /** The rewritten part applied to the prior. */
  replayed: string;
}

interface Region {
  ws: number;
  we: number;
  ps: number;
  pe: number;
}

/** Reconciles one patched file (added or updated) against its formatted text F. */
export function reconcilePatchFile(format: 'codex' | 'unified', file: PatchedFile, final: string, writtenGiven?: string): PatchFileResult {
  const written = file.written ?? '';
  const path = file.finalPath;
  if (file.kind === 'add') {
    const part = renderFilePatch(format, { kind: 'add', path, text: final });
    const replayed = replayPart(format, part, '', path);
    return finish(part, replayed, final, path, true);
  }
  if (file.kind !== 'update' || file.prior === null) throw new FormatboxError('INVALID_REQUEST', `nothing to reconcile for ${path}`);
  const prior = file.prior;
  const original = (): PatchFileResult => {
    const part = file.patch.source ?? renderOriginal(format, file);
    return finish(part, written, final, path, false, 'the edited region cannot be located');
  };
  if (writtenGiven !== undefined && writtenGiven !== written) return original();
  if (final === written) return finish(file.patch.source ?? renderOriginal(format, file), written, final, path, true);

  const fLines = linesWithEndings(final);
  const wLines = linesWithEndings(written);
  const hunks = lineHunks(written, final);
  // Regions: each chunk's written lines, widened over hunks that cross their edges, merged when they overlap.
  let regions: Region[] = file.applied.map((c) => ({ ws: c.writtenStart, we: c.writtenEnd, ps: c.priorStart, pe: c.priorEnd }));
  for (const region of regions) {
    if (region.ws === region.we) {
      // Deleted lines: a formatter change right next to them (a blank line left behind) joins the chunk.
      for (const h of hunks) {
        if (h.aStart === h.aEnd) continue;
        if (h.aEnd === region.ws) {
          region.ps -= region.ws - h.aStart;
          region.ws = h.aStart;
        }
        if (h.aStart === region.we) {
          region.pe += h.aEnd - region.we;
          region.we = h.aEnd;
        }
      }
    }
    for (let changed = true; changed;) {
      changed = false;
      for (const h of hunks) {
        if (h.aStart === h.aEnd) continue;
        if (h.aStart < region.ws && h.aEnd > region.ws) {
          region.ps -= region.ws - h.aStart;
          region.ws = h.aStart;
          changed = true;
        }
        if (h.aStart < region.we && h.aEnd > region.we) {
          region.pe += h.aEnd - region.we;
          region.we = h.aEnd;
          changed = true;
        }
      }
    }
  }
  regions.sort((a, b) => a.ws - b.ws);
  const merged: Region[] = [];
  for (const region of regions) {
    const last = merged[merged.length - 1];
    if (last && region.ws < last.we) {
      last.we = Math.max(last.we, region.we);
      last.pe = Math.max(last.pe, region.pe);
    } else merged.push({ ...region });
  }
  regions = merged;
  const touching = (x: number): number => regions.filter((r) => r.ws === x || r.we === x).length;
  const renderRegions: RenderRegion[] = regions.map((region) => {
    let fs = region.ws;
    let fe = region.we;
    for (const h of hunks) {
      const delta = h.bEnd - h.bStart - (h.aEnd - h.aStart);
      const insertion = h.aStart === h.aEnd;
      const claimed = insertion && (h.aStart === region.ws || h.aStart === region.we) && touching(h.aStart) === 1;
      if (h.aEnd < region.ws || (h.aEnd === region.ws && (!insertion || !claimed))) fs += delta;
      if (h.aEnd < region.we || (h.aEnd === region.we && (h.aStart < region.we || claimed))) fe += delta;
    }
    const newLines = fLines.slice(fs, fe).map(lineContent);
    const lastLine = fLines[fe - 1];
    const out: RenderRegion = { priorStart: region.ps, priorEnd: region.pe, newLines };
    if (fe === fLines.length && lastLine !== undefined && !lastLine.endsWith('\n')) out.newNoEol = true;
    return out;
  });
  // The expected replay, by line content: W with each region's lines replaced by F's.
  const expected: string[] = [];
  let cursor = 0;
  regions.forEach((region, k) => {
    for (; cursor < region.ws; cursor++) expected.push(lineContent(wLines[cursor] as string));
    expected.push(...(renderRegions[k] as RenderRegion).newLines);
    cursor = region.we;
  });
  for (; cursor < wLines.length; cursor++) expected.push(lineContent(wLines[cursor] as string));
  const base = { kind: 'update' as const, path: file.path, prior, regions: renderRegions, ...(file.finalPath !== file.path ? { moveTo: file.finalPath } : {}) };
  for (const context of [3, 8, 30, Number.MAX_SAFE_INTEGER]) {
    const part = renderFilePatch(format, base, context);
    let replayed: string;
    try {
      replayed = replayPart(format, part, prior, file.path);
    } catch {
      continue;
    }
    if (sameLines(linesWithEndings(replayed).map(lineContent), expected)) return finish(part, replayed, final, path, true);
  }
  return original();
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/** Applies one file's part (wrapped in Begin/End for Codex) to the prior. */
export function replayPart(format: 'codex' | 'unified', part: string, prior: string, path: string): string {
  const parsed = parsePatch(format === 'codex' ? `*** Begin Patch\n${part}*** End Patch\n` : part);
  const file = parsed.files[0];
  if (!file || parsed.files.length !== 1) throw new FormatboxError('INVARIANT_BROKEN', `a rendered patch part for ${path} has ${parsed.files.length} files`);
  if (file.kind === 'add') return file.lines.length === 0 ? '' : file.lines.join('\n') + (file.noEol ? '' : '\n');
  if (file.kind === 'delete') return '';
  return applyChunks(prior, file.chunks, path).text;
}

function renderOriginal(format: 'codex' | 'unified', file: PatchedFile): string {
  const written = linesWithEndings(file.written ?? '');
  return renderFilePatch(format, {
    kind: 'update', path: file.path, prior: file.prior ?? '',
    ...(file.finalPath !== file.path ? { moveTo: file.finalPath } : {}),
    regions: file.applied.map((c) => ({ priorStart: c.priorStart, priorEnd: c.priorEnd, newLines: written.slice(c.writtenStart, c.writtenEnd).map(lineContent) })),
  });
}

function finish(part: string, replayed: string, final: string, path: string, reconciled: boolean, reason?: string): PatchFileResult {
  const diff = unifiedDiff(replayed, final, { path });
  if (applyUnifiedDiff(replayed, diff) !== final) throw new FormatboxError('INVARIANT_BROKEN', `the diff for ${path} does not apply`);
  const out: PatchFileResult = { part, reconciled, replayed };
  if (reason !== undefined) out.reason = reason;
  if (diff !== '') out.diff = diff;
  return out;
}
