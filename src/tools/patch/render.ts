/**
 * Rendering one file's part of a patch in either dialect (used by reconciliation to rewrite a patch).
 */
import { diffLineChanges, hunkGroups } from '../../core/diff.js';
import { lineContent, linesWithEndings } from './lines.js';

/** One file of a patch to render. For `update`, `regions` are prior line ranges and their new lines (without endings). */
export type RenderFile =
  | { kind: 'add'; path: string; text: string }
  | { kind: 'delete'; path: string; prior: string }
  | { kind: 'update'; path: string; moveTo?: string; prior: string; regions: RenderRegion[] };

export interface RenderRegion {
  priorStart: number;
  priorEnd: number;
  newLines: string[];
  /** The new side's last line has no newline (only meaningful at the end of the file). */
  newNoEol?: boolean;
}

/** Renders one file's part of a patch (without the Begin/End lines for Codex). */
export function renderFilePatch(format: 'codex' | 'unified', file: RenderFile, context = 3): string {
  if (file.kind === 'add') {
    const lines = linesWithEndings(file.text);
    if (format === 'codex') return `*** Add File: ${file.path}\n` + lines.map((l) => `+${lineContent(l)}\n`).join('');
    const noEol = lines.length > 0 && !(lines[lines.length - 1] as string).endsWith('\n');
    return `--- /dev/null\n+++ b/${file.path}\n@@ -0,0 +${lines.length === 0 ? '0,0' : `1,${lines.length}`} @@\n` +
      lines.map((l) => `+${lineContent(l)}\n`).join('') + (noEol ? '\\ No newline at end of file\n' : '');
  }
  if (file.kind === 'delete') {
    if (format === 'codex') return `*** Delete File: ${file.path}\n`;
    const lines = linesWithEndings(file.prior);
    return `--- a/${file.path}\n+++ /dev/null\n@@ -${lines.length === 0 ? '0,0' : `1,${lines.length}`} +0,0 @@\n` +
      lines.map((l) => `-${lineContent(l)}\n`).join('');
  }
  const lines = linesWithEndings(file.prior).map(lineContent);
  const regions = [...file.regions].sort((x, y) => x.priorStart - y.priorStart);
  const header = format === 'codex'
    ? `*** Update File: ${file.path}\n${file.moveTo !== undefined ? `*** Move to: ${file.moveTo}\n` : ''}`
    : `--- a/${file.path}\n+++ b/${file.moveTo ?? file.path}\n`;
  const out: string[] = [header];
  let shift = 0;
  for (const group of hunkGroups(regions, (region) => region.priorStart, (region) => region.priorEnd, context)) {
    const first = group[0] as RenderRegion;
    const last = group[group.length - 1] as RenderRegion;
    const from = Math.max(0, first.priorStart - context);
    const to = Math.min(lines.length, last.priorEnd + context);
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    let cursor = from;
    let lastNoEol = false;
    for (const region of group) {
      for (; cursor < region.priorStart; cursor++) {
        body.push(` ${lines[cursor]}\n`);
        oldCount++;
        newCount++;
      }
      const old = lines.slice(region.priorStart, region.priorEnd);
      let a = 0;
      let b = 0;
      const changes = diffLineChanges(old, region.newLines);
      const emitSame = (until: number): void => {
        for (; b < until; a++, b++) {
          body.push(` ${region.newLines[b]}\n`);
          oldCount++;
          newCount++;
        }
      };
      for (const change of changes) {
        emitSame(change.bStart);
        for (; a < change.aEnd; a++) {
          body.push(`-${old[a]}\n`);
          oldCount++;
        }
        for (; b < change.bEnd; b++) {
          body.push(`+${region.newLines[b]}\n`);
          newCount++;
        }
      }
      emitSame(region.newLines.length);
      cursor = region.priorEnd;
      lastNoEol = region.newNoEol === true;
    }
    for (; cursor < to; cursor++) {
      body.push(` ${lines[cursor]}\n`);
      oldCount++;
      newCount++;
    }
    const atEnd = to >= lines.length;
    if (format === 'codex') {
      out.push('@@\n', ...body);
      if (atEnd && last.priorEnd >= lines.length) out.push('*** End of File\n');
    } else {
      const oldStart = oldCount === 0 ? from : from + 1;
      const newStart = newCount === 0 ? from + shift : from + shift + 1;
      out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n`, ...body);
      if (atEnd && lastNoEol && last.priorEnd >= lines.length) out.push('\\ No newline at end of file\n');
    }
    shift += newCount - oldCount;
  }
  return out.join('');
}

/** Wraps rendered file parts into one patch text. */
export function wrapPatch(format: 'codex' | 'unified', parts: readonly string[]): string {
  return format === 'codex' ? `*** Begin Patch\n${parts.join('')}*** End Patch\n` : parts.join('');
}
