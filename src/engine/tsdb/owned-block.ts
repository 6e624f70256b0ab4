/**
 * One shard worker's view of a block shared by all of them (the blocks directly under the TSDB directory, see
 * docs/format.md "TSDB directory layout"): the worker serves only the series the client routes to it
 * (`shardOfSeries` over the label set), so a query still runs on every core and no series is read twice.
 */
import type { Labels } from './api.ts';
import type { Block } from './block.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { shardOfHash } from './labels.ts';
import type { PostingsIndex } from './postings.ts';

const UNKNOWN = 0, OWN = 1, OTHER = 2;

export class OwnedBlock implements SeriesSource {
  /**
   * Per series ref, whether this shard owns it, decided on first sight and kept: a series' labels are hashed
   * from its index entry once per block and worker, later selects pay one array load per selected series. Refs of a
   * v2 index are the series' offsets / 16, so the array has one byte per 16 bytes of series section; it grows
   * to the largest ref seen.
   */
  private owner = new Uint8Array(0);

  constructor(readonly block: Block, private readonly shard: number, private readonly shards: number) {}

  get minTime(): number { return this.block.minTime; }
  get maxTime(): number { return this.block.maxTime; }
  get refsInLabelOrder(): boolean { return this.block.refsInLabelOrder; }
  get index(): PostingsIndex { return this.block.index; }

  /** Whether the client routes series `ref` of the block to this shard. */
  owns(ref: number): boolean {
    let o = this.owner;
    if (ref >= o.length) {
      const grown = new Uint8Array(Math.max(ref + 1, o.length * 2, 1024));
      grown.set(o);
      this.owner = o = grown;
    }
    let s = o[ref];
    if (s === UNKNOWN) {
      s = shardOfHash(this.block.labelsHashOf(ref), this.shards) === this.shard ? OWN : OTHER;
      o[ref] = s;
    }
    return s === OWN;
  }

  labelsOf(ref: number): Labels { return this.block.labelsOf(ref); }

  /** The chunks of an owned series; none for another shard's (the querier then skips the series). */
  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void {
    if (this.owns(ref)) this.block.chunksOf(ref, mint, maxt, out);
  }

  deletedOf(ref: number): readonly Interval[] | undefined { return this.block.deletedOf(ref); }
}
