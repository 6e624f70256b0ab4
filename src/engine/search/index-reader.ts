/**
 * A point-in-time view of a shard index: the segments published by one refresh with their live-docs
 * snapshots. Term statistics are shard-wide sums over segments and include deleted docs (Lucene's rule).
 */
import type { Segment, StoredFields } from '../postings/segment.ts';
import type { AnalyzerRegistry } from '../analysis/analyzers.ts';
import type { FieldInfos } from '../indexing/field-infos.ts';

export interface FieldStats { docCount: number; sumTotalTermFreq: number }
export interface TermStats { docFreq: number; totalTermFreq: number }

/** Where BM25 statistics come from: the shard's own (query_then_fetch) or global ones (dfs). */
export interface StatsSource {
  fieldStats(field: string): FieldStats;
  termStats(field: string, term: string): TermStats;
}

export class IndexReader implements StatsSource {
  readonly docBases: number[] = [];
  private readonly total: number;

  constructor(
    readonly segments: Segment[],
    /** Per segment: 1 = live, 0 = deleted; null when nothing is deleted. */
    readonly live: (Uint8Array | null)[],
    readonly infos: FieldInfos,
    readonly analyzers: AnalyzerRegistry,
  ) {
    let base = 0;
    for (const s of segments) { this.docBases.push(base); base += s.maxDoc; }
    this.total = base;
  }

  maxDoc(): number { return this.total; }

  /**
   * Keeps this reader's on-disk segments open past the current task (scroll contexts, a query phase waiting
   * for its fetch phase); every `acquire` needs one `release`.
   */
  acquire(): void {
    for (const s of this.segments) s.incRef();
  }

  release(): void {
    for (const s of this.segments) s.decRef();
  }

  liveDocCount(): number {
    let n = 0;
    for (let i = 0; i < this.segments.length; i++) {
      const l = this.live[i];
      if (!l) { n += this.segments[i].maxDoc; continue; }
      for (let d = 0; d < l.length; d++) n += l[d];
    }
    return n;
  }

  fieldStats(field: string): FieldStats {
    let docCount = 0, sumTotalTermFreq = 0;
    for (const s of this.segments) {
      const f = s.field(field);
      if (f) { docCount += f.docCount; sumTotalTermFreq += f.sumTotalTermFreq; }
    }
    return { docCount, sumTotalTermFreq };
  }

  termStats(field: string, term: string): TermStats {
    let docFreq = 0, totalTermFreq = 0;
    for (const s of this.segments) {
      const f = s.field(field);
      const t = f ? f.termId(term) : -1;
      if (t >= 0) { docFreq += f!.docFreq(t); totalTermFreq += f!.totalTermFreq(t); }
    }
    return { docFreq, totalTermFreq };
  }

  /** Stored fields (source, `_id`, versions) of a root doc, as of this reader. */
  stored(globalDoc: number): StoredFields {
    const [ord, local] = this.locate(globalDoc);
    return this.segments[ord].stored(local);
  }

  /** Global doc (shard-wide) → [segment ordinal, local doc]. */
  locate(globalDoc: number): [number, number] {
    let i = this.docBases.length - 1;
    while (i > 0 && this.docBases[i] > globalDoc) i--;
    return [i, globalDoc - this.docBases[i]];
  }
}
