/**
 * A point-in-time view of a shard index: the segments published by one refresh with their live-docs
 * snapshots. Term statistics are shard-wide sums over segments and include deleted docs (Lucene's rule).
 */
import type { Segment, StoredFields } from '../postings/segment.ts';
import type { AnalyzerRegistry } from '../analysis/analyzers.ts';
import type { FieldInfos } from '../indexing/field-infos.ts';

export interface FieldStats { docCount: number; sumTotalTermFreq: number }
export interface TermStats { readonly docFreq: number; readonly totalTermFreq: number }

/** What a reader remembers of a term: its id in each segment (−1 where absent), and its statistics once asked. */
interface TermMemo { ids: Int32Array; stats: TermStats | null }

/** Where BM25 statistics come from: the shard's own (query_then_fetch) or global ones (dfs). */
export interface StatsSource {
  fieldStats(field: string): FieldStats;
  termStats(field: string, term: string): TermStats;
}

/**
 * Terms a reader remembers (about 500 bytes each with 13 segments: 4,096 hold about 2 MB, one reader per
 * shard). The memo starts over when full, so a working set just above the bound misses about a third of its
 * lookups: 2,048 held less than the 1M-doc search probe's ~2,200 words and hosts.
 */
const TERM_MEMO_ENTRIES = 4096;

export class IndexReader implements StatsSource {
  readonly docBases: number[] = [];
  private readonly total: number;
  private readonly termMemo = new Map<string, TermMemo>();

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

  /** Shard-wide sums over the segments, remembered with the term's ids (`termIds`). */
  termStats(field: string, term: string): TermStats {
    const m = this.remembered(field, term);
    if (m.stats !== null) return m.stats;
    const ids = m.ids;
    let docFreq = 0, totalTermFreq = 0;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] < 0) continue;
      const f = this.segments[i].field(field)!;
      docFreq += f.docFreq(ids[i]); totalTermFreq += f.totalTermFreq(ids[i]);
    }
    return (m.stats = { docFreq, totalTermFreq });
  }

  /** The term's id in each segment's dictionary (−1 where absent). */
  termIds(field: string, term: string): Int32Array {
    return this.remembered(field, term).ids;
  }

  /**
   * What this reader knows of a term, remembered for its life (its segments never change): a term query looks
   * each term up once for its statistics and again for every segment's scorer, and user queries repeat their
   * words. Reading a term's statistics decodes its dictionary entry in each segment (about a tenth of a 2-term
   * OR query's CPU on a 13-segment shard). Bounded: the memo starts over when full.
   */
  private remembered(field: string, term: string): TermMemo {
    const key = field + '\u0000' + term;
    let m = this.termMemo.get(key);
    if (m !== undefined) return m;
    const ids = new Int32Array(this.segments.length);
    for (let i = 0; i < ids.length; i++) {
      const f = this.segments[i].field(field);
      ids[i] = f ? f.termId(term) : -1;
    }
    if (this.termMemo.size >= TERM_MEMO_ENTRIES) this.termMemo.clear();
    m = { ids, stats: null };
    this.termMemo.set(key, m);
    return m;
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
