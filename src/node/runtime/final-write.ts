/**
 * Writing F, the formatted file, over W: only while the disk still holds W (compare-and-swap), else
 * the formatted bytes are dropped and the receipt says `concurrent modification`. FinalWrite starts
 * that write while the formatter runs, so the edit's latency is mostly the formatter's.
 */
import { FormatboxError, isFormatboxError } from '../../core/errors.js';
import type { FormatOutcome, Receipt, ToolInput } from '../../core/types.js';
import type { ResolvedPath } from '../fs/paths.js';
import type { FileSnapshot } from '../fs/read.js';
import { holdsSync, stageWrite, writeAtomic, type StagedWrite } from '../fs/staged-write.js';
import { concurrentReceipt } from './receipts.js';

const encoder = new TextEncoder();

/** W as it is on disk, for F's compare-and-swap. */
export interface WrittenFile {
  written: string;
  writtenBytes: Uint8Array;
  /** Mode and owner F keeps (the snapshot of P). */
  keep: FileSnapshot | undefined;
  /** The input a `concurrent modification` receipt gives back. */
  input: ToolInput;
  /** W's flush, started in the background: awaited when W is the final file. */
  writtenFlushed?: Promise<void>;
  /** F's write, started while the formatter ran. */
  staged?: FinalWrite;
}

/**
 * W is on disk and the engine produced F (`receipt.content`). Writes F when the disk still holds
 * W; otherwise the formatted bytes are dropped and the receipt says `concurrent modification`.
 */
export async function commitFinal(target: ResolvedPath, receipt: Receipt, { written, writtenBytes, keep, input, writtenFlushed, staged }: WrittenFile): Promise<Receipt> {
  try {
    if (receipt.content !== written) {
      if (!(await staged?.commit(receipt.content, writtenBytes))) {
        await writeAtomic(target.abs, encoder.encode(receipt.content), { expect: writtenBytes, shown: target.shown, ...(keep ? { keep } : {}) });
      }
    } else if (!holdsSync(target.abs, target.shown, writtenBytes)) {
      throw new FormatboxError('MODIFIED_SINCE_READ', `${target.shown} changed while it was being formatted`);
    } else {
      await writtenFlushed; // W is the final file: durable before the receipt says so
    }
    return receipt;
  } catch (error) {
    if (!isFormatboxError(error) || error.code !== 'MODIFIED_SINCE_READ') throw error;
    return concurrentReceipt(target.rel, receipt, written, input);
  }
}

/**
 * F's write, started before the receipt is ready: its temp file is made while the formatter runs
 * (`stage`, before W is written, or after it for a new file), its bytes written and their flush
 * started as soon as the formatter's output is known (`formatted`), and the flush finished, the
 * compare-and-swap and the rename done once the receipt is built (`commit`).
 */
export class FinalWrite {
  private staged: StagedWrite | undefined;
  private filled: { content: string; done: Promise<void> } | undefined;
  private pendingContent: string | undefined;
  /** The formatter's outcome is in (a file with no formatter gets it at once: nothing to stage). */
  private settled = false;
  /**
   * The call is over (F written, or the edit refused while the formatter still ran): an outcome that
   * arrives now writes nothing.
   */
  private released = false;

  constructor(
    private readonly target: ResolvedPath,
    private readonly keep: FileSnapshot | undefined,
    private readonly written: string,
  ) {}

  /** Make F's temp file (while the formatter runs). A failure here is left to the ordinary write of F. */
  stage(): void {
    if (this.released || (this.settled && this.pendingContent === undefined)) return;
    try {
      // The flush starts when the bytes are written and is finished on this thread at the rename (see StageOptions).
      this.staged = stageWrite(this.target.abs, { shown: this.target.shown, flushAtCommit: true, ...(this.keep ? { keep: this.keep } : {}) });
    } catch {
      return;
    }
    if (this.pendingContent !== undefined) this.fill(this.pendingContent);
  }

  formatted(outcome: FormatOutcome): void {
    this.settled = true;
    if (this.released || outcome.status !== 'formatted' || outcome.content === this.written || this.filled) return;
    if (this.staged) this.fill(outcome.content);
    else this.pendingContent = outcome.content;
  }

  /** True when F (`content`) was written through the staged file; false when it was not staged. */
  async commit(content: string, expect: Uint8Array): Promise<boolean> {
    if (!this.staged || this.filled?.content !== content) return false;
    await this.filled.done;
    // One turn of the event loop first: a flush the thread pool has finished is then known, and
    // the commit does not flush again (see StageOptions.flushAtCommit).
    await new Promise((resolve) => setImmediate(resolve));
    this.staged.commit(expect);
    return true;
  }

  release(): void {
    this.released = true;
    this.staged?.release();
  }

  private fill(content: string): void {
    const done = this.staged!.fill(content);
    done.catch(() => undefined); // awaited by commit
    this.filled = { content, done };
  }
}
