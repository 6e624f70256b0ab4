/**
 * What both WAL writers do when a batch fails to write or fsync (ENOSPC, EIO): put the files back to where
 * the batch started, and say so with a typed error.
 *
 * A failed batch may have left whole, checksummed records on disk (a short write stops mid-batch; a failed
 * fsync may leave every page in the cache), and replay would bring them back although every append of the
 * batch was refused. So the segment the batch started in is truncated to its durable end at batch start and
 * the segments the batch created are deleted, before the batch's appends reject. Should that fail too, the
 * tail is left to the recovery rules of docs/format.md ("Recovery"): a torn tail is truncated at the next open.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { EngineError, InternalError, OverloadedError } from '../errors.ts';
import { syncDir } from '../store/durable-files.ts';

/** Where a batch started: segment `seq`, whose bytes before `offset` were durable (0: the batch created it). */
export interface BatchStart { seq: number; offset: number }

/**
 * Truncates segment `start.seq` to `start.offset` (fsynced; deleted when the offset is 0) and deletes segments
 * `start.seq+1..lastSeq`; `name` maps a sequence number to its file name. Throws when the files could not be put back.
 */
export async function rollBackBatch(dir: string, name: (seq: number) => string, start: BatchStart, lastSeq: number): Promise<void> {
  // A segment the batch created holds nothing durable: it goes (a header-only file would be a torn creation).
  const keep = start.offset > 0 ? start.seq : start.seq - 1;
  for (let s = lastSeq; s > keep; s--) await fsp.rm(join(dir, name(s)), { force: true });
  const fh = start.offset === 0 ? null : await fsp.open(join(dir, name(start.seq)), 'r+').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null; // the batch failed creating it: nothing to undo
    throw e;
  });
  if (fh) {
    try {
      await fh.truncate(start.offset);
      await fh.datasync();
    } finally {
      await fh.close();
    }
  }
  await syncDir(dir);
}

/** True for the errors a full file system gives (no space, or the user's quota). */
export function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The typed error a failed WAL batch rejects with: DISK_FULL when the disk is full, else INTERNAL. */
export function walWriteError(dir: string, err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const text = err instanceof Error ? err.message : String(err);
  if (isDiskFull(err)) return OverloadedError.of('DISK_FULL', [`WAL ${dir}`, text]);
  return InternalError.of('INTERNAL', [`writing WAL ${dir} failed: ${text}`]);
}

/**
 * A writer's undo of a failed batch, the same in both WAL writers: `fail` closes the segment, puts the files back
 * to where the batch started and reports the typed error; when putting them back fails, the undo stays pending
 * and the writer refuses appends until `retry` (from its close) succeeds.
 */
export class BatchUndo {
  private pending: { start: BatchStart; lastSeq: number } | null = null;

  constructor(private readonly dir: string, private readonly name: (seq: number) => string, private readonly onFailure: (err: unknown) => void) {}

  /** The batch from `start` failed with `err` (segments up to `lastSeq` touched, `fh` still open): the error to throw. */
  async fail(err: unknown, start: BatchStart, lastSeq: number, fh: FileHandle | null): Promise<EngineError> {
    await fh?.close().catch(() => undefined);
    this.pending = { start, lastSeq };
    await this.retry().catch(() => undefined);
    const typed = walWriteError(this.dir, err);
    this.onFailure(typed);
    return typed;
  }

  /** Puts back the files of a failed batch not yet put back; throws while that still fails. */
  async retry(): Promise<void> {
    if (!this.pending) return;
    await rollBackBatch(this.dir, this.name, this.pending.start, this.pending.lastSeq);
    this.pending = null;
  }
}
