/**
 * Top-k collectors. By score: a min-heap in typed arrays where the worst of the kept hits sits at the root
 * (ties → lower doc id wins, as Lucene's TopScoreDocCollector). By sort keys: a bounded array kept sorted
 * by the sort comparator with doc id as the final tie-breaker.
 */
import { compareKeys, type SortValue } from './sort.ts';

export class TopScoreCollector {
  readonly scores: Float32Array;
  readonly docs: Int32Array;
  size = 0;
  maxScore = -Infinity;
  constructor(readonly k: number) {
    this.scores = new Float32Array(Math.max(1, k));
    this.docs = new Int32Array(Math.max(1, k));
  }

  /** Docs must arrive in increasing global doc order, so an equal score never displaces a kept hit. */
  collect(doc: number, score: number): void {
    if (score > this.maxScore) this.maxScore = score;
    if (this.k === 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(score, doc, this.scores[p], this.docs[p])) break;
        this.scores[i] = this.scores[p]; this.docs[i] = this.docs[p]; i = p;
      }
      this.scores[i] = score; this.docs[i] = doc;
      return;
    }
    if (score <= this.scores[0]) return;
    this.replaceTop(doc, score);
  }

  private replaceTop(doc: number, score: number): void {
    const n = this.size;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && worse(this.scores[c + 1], this.docs[c + 1], this.scores[c], this.docs[c])) c++;
      if (!worse(this.scores[c], this.docs[c], score, doc)) break;
      this.scores[i] = this.scores[c]; this.docs[i] = this.docs[c]; i = c;
    }
    this.scores[i] = score; this.docs[i] = doc;
  }

  /** Kept hits best first. */
  sorted(): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ doc: this.docs[i], score: this.scores[i] });
    return out.sort((a, b) => b.score - a.score || a.doc - b.doc);
  }
}

/** Is (s1, d1) a worse hit than (s2, d2)? */
function worse(s1: number, d1: number, s2: number, d2: number): boolean {
  return s1 < s2 || (s1 === s2 && d1 > d2);
}

export interface KeyedHit { doc: number; score: number; keys: SortValue[] }

export class TopFieldCollector {
  readonly hits: KeyedHit[] = [];
  maxScore = -Infinity;
  constructor(readonly k: number, readonly kinds: string[], readonly reverse: boolean[], readonly missingFirst?: boolean[]) {}

  /** Would a hit with these keys enter the top k? (lets callers skip building keys only when full) */
  collect(doc: number, score: number, keys: SortValue[]): void {
    if (score > this.maxScore) this.maxScore = score;
    if (this.k === 0) return;
    const h = this.hits;
    if (h.length === this.k && this.cmp(keys, doc, h[h.length - 1]) >= 0) return;
    let lo = 0, hi = h.length;
    while (lo < hi) { const m = (lo + hi) >>> 1; if (this.cmp(keys, doc, h[m]) < 0) hi = m; else lo = m + 1; }
    h.splice(lo, 0, { doc, score, keys });
    if (h.length > this.k) h.pop();
  }

  /** The worst kept hit once k hits are held (null before), for early rejection. */
  worst(): KeyedHit | null { return this.k > 0 && this.hits.length === this.k ? this.hits[this.hits.length - 1] : null; }

  private cmp(keys: SortValue[], doc: number, o: KeyedHit): number {
    return compareKeys(this.kinds, this.reverse, keys, o.keys, this.missingFirst) || doc - o.doc;
  }
}
