/**
 * The hits of a bucket aggregation whose sub-aggregations are collected later, only for the buckets that survive
 * its cut — Elasticsearch's `breadth_first` collection mode (its BestBucketsDeferringCollector). A terms
 * aggregation over a field of 100,000 distinct values with `size` 10 builds sub-collectors for its top
 * `shard_size` buckets instead of all 100,000; what it keeps meanwhile is 16 bytes per (doc, bucket) hit.
 *
 * Hits are kept in collection order, segment by segment, so a replay gives each surviving bucket's
 * sub-collectors exactly the calls they would have had when collected at once.
 */
import type { Segment } from '../../postings/segment.ts';

export class DeferredHits {
  // Empty until the first hit: a terms aggregation under another bucket aggregation has one of these per parent
  // bucket, most of which see few hits.
  private docs = new Int32Array(0);
  private bucketOrds = new Int32Array(0);
  private scores = new Float64Array(0);
  private n = 0;
  /** The segments hits were recorded in, and where each one's hits start. */
  private readonly segments: { ord: number; seg: Segment; from: number }[] = [];

  setSegment(ord: number, seg: Segment): void {
    this.segments.push({ ord, seg, from: this.n });
  }

  record(bucketOrd: number, doc: number, score: number): void {
    if (this.n === this.docs.length) this.grow();
    this.docs[this.n] = doc;
    this.bucketOrds[this.n] = bucketOrd;
    this.scores[this.n] = score;
    this.n++;
  }

  /**
   * Replays the recorded hits of the buckets `keep` says survive, segment by segment: `setSegment` before each
   * segment's hits, then `collect` per hit.
   */
  replay(keep: Uint8Array, setSegment: (ord: number, seg: Segment) => void, collect: (bucketOrd: number, doc: number, score: number) => void): void {
    for (let s = 0; s < this.segments.length; s++) {
      const { ord, seg, from } = this.segments[s];
      const to = s + 1 < this.segments.length ? this.segments[s + 1].from : this.n;
      if (from === to) continue;
      setSegment(ord, seg);
      for (let i = from; i < to; i++) {
        const b = this.bucketOrds[i];
        if (keep[b] === 1) collect(b, this.docs[i], this.scores[i]);
      }
    }
  }

  private grow(): void {
    const size = Math.max(64, this.docs.length * 2);
    const docs = new Int32Array(size), ords = new Int32Array(size), scores = new Float64Array(size);
    docs.set(this.docs); ords.set(this.bucketOrds); scores.set(this.scores);
    this.docs = docs; this.bucketOrds = ords; this.scores = scores;
  }
}
