/**
 * The files a Codex-style patch (`*** Begin Patch` … `*** End Patch`) writes, as the patch names them
 * (relative to the agent's directory, or absolute): added and updated files, a moved file under its
 * new name; deleted files are left out. For harnesses that applied the patch themselves (opencode's
 * and Codex's `apply_patch`) and now format what was written.
 */
import { parseCodexPatch } from './codex.js';

/** The written paths, or [] for text that is not a patch (the agent rejects it too). */
export function writtenPathsOfPatch(patchText: string): string[] {
  try {
    const lines = patchText.trim().split('\n').map((line) => line.replace(/\r$/, ''));
    return parseCodexPatch(lines)
      .filter((file) => file.kind !== 'delete')
      .map((file) => (file.kind === 'update' && file.moveTo ? file.moveTo : file.path))
      .filter((path) => path !== '' && !path.includes('\0'));
  } catch {
    return [];
  }
}
