/**
 * One segment in a shard index's list, with its live docs. Live docs are copy-on-write: a published reader (or
 * a running merge) holds the array it was given, and the next delete copies it first, so a held view never
 * changes under its holder.
 */
import type { Segment } from '../postings/segment.ts';
import type { DiskSegment } from '../segments/disk-segment.ts';

export class SegmentEntry {
  /** 1 = live, 0 = deleted, per doc; null while nothing is deleted. */
  live: Uint8Array | null;
  /** True when `live` has been handed out (reader, merge) and must be copied before the next change. */
  liveShared = false;
  /** Deleted docs (nested children included) and deleted root docs. */
  delCount: number;
  delRoots: number;
  /** Visible to searches (refreshed). */
  visible: boolean;
  /** Generation of the live-docs file the last commit recorded (0: none); deletes since then are uncommitted. */
  committedDelGen = 0;
  committedDelCount = 0;
  /** Part of a running merge or write-out. */
  busy = false;
  /** The segment's files are written but not yet fsynced (a commit syncs them). */
  unsynced = false;

  constructor(readonly seg: Segment, readonly numRoots: number, live: Uint8Array | null, delCount: number, delRoots: number, visible: boolean) {
    this.live = live;
    this.delCount = delCount;
    this.delRoots = delRoots;
    this.visible = visible;
  }

  get disk(): DiskSegment | null { return this.seg.onDisk ? this.seg as DiskSegment : null; }

  isLive(doc: number): boolean { return this.live === null || this.live[doc] !== 0; }

  /** The live-docs array to hand out; later deletes will copy it. */
  shareLive(): Uint8Array | null {
    if (this.live !== null) this.liveShared = true;
    return this.live;
  }

  /**
   * Deletes root doc `root` and its nested children (the contiguous docs before it whose parent chain leads to
   * it). Returns false when it was already deleted.
   */
  deleteBlock(root: number): boolean {
    if (!this.isLive(root)) return false;
    if (this.live === null) this.live = new Uint8Array(this.seg.maxDoc).fill(1);
    else if (this.liveShared) { this.live = this.live.slice(); this.liveShared = false; }
    let first = root;
    if (this.seg.hasNested) {
      const parentOf = this.seg.parentOf();
      while (first > 0 && parentOf[first - 1] !== -1) first--;
    }
    for (let d = first; d <= root; d++) if (this.live[d] !== 0) { this.live[d] = 0; this.delCount++; }
    this.delRoots++;
    return true;
  }

  /** Deletes docs carried over from the segments a merge replaced (each doc once; roots counted). */
  deleteDocs(docs: readonly number[]): void {
    if (docs.length === 0) return;
    if (this.live === null) this.live = new Uint8Array(this.seg.maxDoc).fill(1);
    else if (this.liveShared) { this.live = this.live.slice(); this.liveShared = false; }
    const parentOf = this.seg.hasNested ? this.seg.parentOf() : null;
    for (const d of docs) {
      if (this.live[d] === 0) continue;
      this.live[d] = 0;
      this.delCount++;
      if (parentOf === null || parentOf[d] === -1) this.delRoots++;
    }
  }

  /** Root docs still live. */
  liveRoots(): number { return this.numRoots - this.delRoots; }

  /** Lucene docs (nested children included) still live. */
  liveDocs(): number { return this.seg.maxDoc - this.delCount; }
}

/**
 * Docs deleted in `current` but live in `before` (deleted while a merge or write-out ran from `before`), mapped
 * into the new segment through `docMap`; the caller deletes them there.
 */
export function deletedSince(before: Uint8Array | null, current: Uint8Array | null, docMap: Int32Array, out: number[]): void {
  if (current === null || current === before) return;
  for (let d = 0; d < current.length; d++) {
    if (current[d] === 0 && (before === null || before[d] !== 0) && docMap[d] >= 0) out.push(docMap[d]);
  }
}
