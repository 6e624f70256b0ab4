/**
 * An immutable in-memory segment: per field a sorted term dictionary whose postings are doc ids (also
 * materialised as roaring bitmaps on first use by filters), with term frequencies and positions stored
 * alongside; one-byte norms; doc values in typed arrays; and the nested-document block structure (child
 * docs precede their parent; `parentOf` links them). Segments never change after they are built; deletes
 * live in the reader's live-docs snapshot.
 */
import roaring from 'roaring';
import { ArrayCursor, type DocCursor, emptyCursor } from './cursor.ts';

const { RoaringBitmap32 } = roaring;
export type Bitmap = InstanceType<typeof RoaringBitmap32>;
export { RoaringBitmap32 };

export class FieldPostings {
  /** Terms in code-unit order. */
  readonly terms: string[];
  readonly termIds: Map<string, number>;
  /** Postings of term t are docs[docStart[t] .. docStart[t+1]). */
  readonly docStart: Uint32Array;
  readonly docs: Uint32Array;
  /** Per posting: frequency (1 for fields indexed without freqs). */
  readonly freqs: Uint32Array | null;
  /** Per posting p: positions[posStart[p] .. posStart[p+1]). */
  readonly posStart: Uint32Array | null;
  readonly positions: Uint32Array | null;
  /** Norm byte per doc, or null for fields without norms (keyword). */
  readonly norms: Uint8Array | null;
  /** Docs having at least one term in this field. */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly sumDocFreq: number;
  private readonly bitmaps: (Bitmap | undefined)[];

  constructor(terms: string[], docStart: Uint32Array, docs: Uint32Array, freqs: Uint32Array | null, posStart: Uint32Array | null,
    positions: Uint32Array | null, norms: Uint8Array | null, docCount: number, sumTotalTermFreq: number) {
    this.terms = terms;
    this.termIds = new Map();
    for (let i = 0; i < terms.length; i++) this.termIds.set(terms[i], i);
    this.docStart = docStart; this.docs = docs; this.freqs = freqs; this.posStart = posStart; this.positions = positions;
    this.norms = norms; this.docCount = docCount; this.sumTotalTermFreq = sumTotalTermFreq;
    this.sumDocFreq = docs.length;
    this.bitmaps = new Array(terms.length);
  }

  termId(term: string): number { return this.termIds.get(term) ?? -1; }
  docFreq(t: number): number { return this.docStart[t + 1] - this.docStart[t]; }
  totalTermFreq(t: number): number {
    if (!this.freqs) return this.docFreq(t);
    let s = 0;
    for (let p = this.docStart[t]; p < this.docStart[t + 1]; p++) s += this.freqs[p];
    return s;
  }
  cursor(t: number, reuse?: ArrayCursor): ArrayCursor {
    return (reuse ?? new ArrayCursor(this.docs, 0, 0)).reset(this.docs, this.docStart[t], this.docStart[t + 1]);
  }
  /** The postings of term t as a roaring bitmap (built once, then cached). */
  bitmap(t: number): Bitmap {
    let b = this.bitmaps[t];
    if (!b) {
      b = new RoaringBitmap32(this.docs.subarray(this.docStart[t], this.docStart[t + 1]));
      this.bitmaps[t] = b;
    }
    return b;
  }
  /** First term index >= `term` (binary search over the sorted dictionary). */
  seekCeil(term: string): number {
    let lo = 0, hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid] < term) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
}

/** Doc values: values of doc d are values[start[d] .. start[d+1]), sorted ascending per doc. */
export class NumericDocValues {
  constructor(readonly start: Uint32Array, readonly values: Float64Array) {}
  count(doc: number): number { return this.start[doc + 1] - this.start[doc]; }
}

/** Keyword doc values as ordinals into `ordTerms` (sorted, distinct); ords sorted ascending per doc. */
export class OrdinalDocValues {
  constructor(readonly start: Uint32Array, readonly ords: Uint32Array, readonly ordTerms: string[]) {}
  count(doc: number): number { return this.start[doc + 1] - this.start[doc]; }
}

export class Segment {
  constructor(
    readonly maxDoc: number,
    /** `_id` per doc ('' for nested child docs). */
    readonly ids: string[],
    /** Immediate parent doc of a nested child; -1 for root docs. */
    readonly parentOf: Int32Array,
    /** Nested path of each doc ('' for root docs); kept compactly as ids into a small name table. */
    nestedPaths: string[],
    readonly fields: Map<string, FieldPostings>,
    readonly numeric: Map<string, NumericDocValues>,
    readonly ordinals: Map<string, OrdinalDocValues>,
    /** Per field: docs that have a value (for `exists`), ascending. */
    readonly exists: Map<string, Uint32Array>,
    /** Root (non-nested) docs, ascending. */
    readonly roots: Uint32Array,
  ) {
    // A per-doc string array costs the GC a pointer per doc; a Uint16 id per doc does not.
    const pathIndex = new Map<string, number>([['', 0]]);
    this.pathNames = [''];
    this.pathIds = new Uint16Array(maxDoc);
    for (let d = 0; d < maxDoc; d++) {
      const p = nestedPaths[d];
      if (p === '') continue;
      let id = pathIndex.get(p);
      if (id === undefined) { id = this.pathNames.length; this.pathNames.push(p); pathIndex.set(p, id); }
      this.pathIds[d] = id;
    }
  }

  private readonly pathNames: string[];
  private readonly pathIds: Uint16Array;

  /** Nested path of `doc` ('' for root docs). */
  pathOf(doc: number): string { return this.pathNames[this.pathIds[doc]]; }

  isRoot(doc: number): boolean { return this.parentOf[doc] === -1; }

  /** Cursor over the docs of `field` that have any value. */
  existsCursor(field: string): DocCursor {
    const e = this.exists.get(field);
    return e ? new ArrayCursor(e) : emptyCursor();
  }
}
