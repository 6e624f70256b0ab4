/** What a query needs of one chunk, wherever it lives (head memory or a block's chunk file). */
import type { Labels } from './api.ts';
import type { PostingsIndex } from './postings.ts';

export interface ChunkMeta {
  /** First and last sample timestamps (ms, inclusive). */
  mint: number;
  maxt: number;
  /** XOR-encoded chunk bytes (2-byte count first); a block's are read again at each access, so read once per use. */
  bytes: Uint8Array;
}

/** A deleted time range, inclusive at both ends, as Prometheus's `tombstones.Interval`. */
export type Interval = [mint: number, maxt: number];

/** Head and blocks both expose their series this way to the querier. */
export interface SeriesSource {
  readonly minTime: number;
  readonly maxTime: number;
  readonly index: PostingsIndex;
  /**
   * Whether ascending refs list the series in `compareLabels` order (a block's index, whose series are
   * sorted, unless its strings order differently in UTF-8 and UTF-16; not the head, whose refs follow creation).
   */
  readonly refsInLabelOrder: boolean;
  labelsOf(ref: number): Labels;
  /** Appends the chunks of `ref` that overlap `[mint, maxt]`, in time order. */
  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void;
  /** Tombstoned intervals of `ref`, if any. */
  deletedOf(ref: number): readonly Interval[] | undefined;
}

export function isDeleted(iv: readonly Interval[] | undefined, t: number): boolean {
  if (iv === undefined) return false;
  for (let i = 0; i < iv.length; i++) if (t >= iv[i][0] && t <= iv[i][1]) return true;
  return false;
}

/** Adds an interval, merging overlapping or adjacent ones (keeps the list sorted and small). */
export function addInterval(list: Interval[], add: Interval): Interval[] {
  const all = [...list, add].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const iv of all) {
    const last = out[out.length - 1];
    if (last && iv[0] <= last[1] + 1) last[1] = Math.max(last[1], iv[1]);
    else out.push([iv[0], iv[1]]);
  }
  return out;
}
