/**
 * A segment held in memory: what a refresh builds from the indexing buffer (`segment-builder.ts`). Postings
 * of a field are flat typed arrays (a term's docs are one run of `docs`), doc values typed arrays, stored
 * fields the buffered source bytes. Memory segments are bounded by the index buffer budget: the index writer
 * writes them to disk (merged into one segment) when they outgrow it, and at every flush.
 */
import { ArrayCursor, type DocCursor, emptyCursor } from './cursor.ts';
import {
  type Bitmap, type FieldPostings, NumericDocValues, OrdinalDocValues, type OrdinalTerms, RoaringBitmap32,
  type Segment, type StoredFields, type TermPostings,
} from './segment.ts';

export class MemoryFieldPostings implements FieldPostings {
  /** Term → id, built on the first lookup: a segment that is only written to disk never needs it. */
  private termIds: Map<string, number> | null = null;
  readonly sumDocFreq: number;
  private readonly bitmaps: (Bitmap | undefined)[];

  constructor(
    /** Terms in code-unit order. */
    readonly terms: string[],
    /** Postings of term t are docs[docStart[t] .. docStart[t+1]). */
    readonly docStart: Uint32Array,
    readonly docs: Uint32Array,
    readonly freqs: Uint32Array | null,
    readonly posStart: Uint32Array | null,
    readonly positions: Uint32Array | null,
    private readonly normBytes: Uint8Array | null,
    readonly docCount: number,
    readonly sumTotalTermFreq: number,
  ) {
    this.sumDocFreq = docs.length;
    this.bitmaps = new Array(terms.length);
  }

  get numTerms(): number { return this.terms.length; }
  get hasFreqs(): boolean { return this.freqs !== null; }
  get hasPositions(): boolean { return this.positions !== null; }
  termId(term: string): number {
    if (this.termIds === null) {
      const m = new Map<string, number>();
      for (let i = 0; i < this.terms.length; i++) m.set(this.terms[i], i);
      this.termIds = m;
    }
    return this.termIds.get(term) ?? -1;
  }
  term(t: number): string { return this.terms[t]; }
  docFreq(t: number): number { return this.docStart[t + 1] - this.docStart[t]; }
  totalTermFreq(t: number): number {
    if (!this.freqs) return this.docFreq(t);
    let s = 0;
    for (let p = this.docStart[t]; p < this.docStart[t + 1]; p++) s += this.freqs[p];
    return s;
  }
  postings(t: number, withPositions: boolean): TermPostings {
    return {
      docs: this.docs, start: this.docStart[t], end: this.docStart[t + 1], freqs: this.freqs,
      posStart: withPositions ? this.posStart : null, positions: withPositions ? this.positions : null,
    };
  }
  cursor(t: number, reuse?: ArrayCursor): ArrayCursor {
    return (reuse ?? new ArrayCursor(this.docs, 0, 0)).reset(this.docs, this.docStart[t], this.docStart[t + 1]);
  }
  bitmap(t: number): Bitmap {
    let b = this.bitmaps[t];
    if (!b) {
      b = new RoaringBitmap32(this.docs.subarray(this.docStart[t], this.docStart[t + 1]));
      this.bitmaps[t] = b;
    }
    return b;
  }
  seekCeil(term: string): number {
    let lo = 0, hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid] < term) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
  norms(): Uint8Array | null { return this.normBytes; }
}

/** Sorted terms of a keyword column held as a string array. */
export class ArrayOrdinalTerms implements OrdinalTerms {
  constructor(readonly terms: readonly string[]) {}
  get size(): number { return this.terms.length; }
  term(ord: number): string { return this.terms[ord]; }
}

export class MemorySegment implements Segment {
  readonly hasNested: boolean;
  readonly onDisk = false;
  readonly sizeBytes: number;
  private readonly pathNames: string[];
  private readonly pathIds: Uint16Array;

  constructor(
    readonly name: string,
    readonly maxDoc: number,
    /** `_id` per doc ('' for nested child docs). */
    private readonly ids: string[],
    private readonly parents: Int32Array,
    nestedPaths: string[],
    private readonly fields: Map<string, MemoryFieldPostings>,
    private readonly numericDv: Map<string, NumericDocValues>,
    private readonly ordinalDv: Map<string, OrdinalDocValues>,
    private readonly existsDocs: Map<string, Uint32Array>,
    /** Source bytes and routing per doc (null for nested children). */
    private readonly sources: (Uint8Array | null)[],
    private readonly routings: (string | null)[],
    /** seq_no, version and primary term per doc (0 for nested children). */
    private readonly seqNos: Float64Array,
    private readonly versions: Float64Array,
    private readonly primaryTerms: Float64Array,
    /** `_id` → root doc of its live copy (the builder's id map, handed over); deleted copies are not in it. */
    private readonly idToDoc: Map<string, number>,
  ) {
    // A per-doc string array costs the GC a pointer per doc; a Uint16 id per doc does not.
    const pathIndex = new Map<string, number>([['', 0]]);
    this.pathNames = [''];
    this.pathIds = new Uint16Array(maxDoc);
    let nested = false;
    for (let d = 0; d < maxDoc; d++) {
      const p = nestedPaths[d];
      if (p === '') continue;
      nested = true;
      let id = pathIndex.get(p);
      if (id === undefined) { id = this.pathNames.length; this.pathNames.push(p); pathIndex.set(p, id); }
      this.pathIds[d] = id;
    }
    this.hasNested = nested;
    this.sizeBytes = estimateBytes(this);
  }

  fieldNames(): readonly string[] { return [...this.fields.keys()]; }
  field(name: string): MemoryFieldPostings | null { return this.fields.get(name) ?? null; }
  numericNames(): readonly string[] { return [...this.numericDv.keys()]; }
  numeric(name: string): NumericDocValues | null { return this.numericDv.get(name) ?? null; }
  ordinalNames(): readonly string[] { return [...this.ordinalDv.keys()]; }
  ordinals(name: string): OrdinalDocValues | null { return this.ordinalDv.get(name) ?? null; }
  existsNames(): readonly string[] { return [...this.existsDocs.keys()]; }
  exists(name: string): Uint32Array | null { return this.existsDocs.get(name) ?? null; }
  parentOf(): Int32Array { return this.parents; }
  pathOf(doc: number): string { return this.pathNames[this.pathIds[doc]]; }
  id(doc: number): string { return this.ids[doc]; }
  lookupId(id: string): number { return this.idToDoc.get(id) ?? -1; }

  /** The `_id`s this segment held live when it was built. */
  idsInMemory(): IterableIterator<string> { return this.idToDoc.keys(); }
  stored(doc: number): StoredFields {
    return {
      id: this.ids[doc], source: this.sources[doc] ?? new Uint8Array(0), routing: this.routings[doc],
      seqNo: this.seqNos[doc], version: this.versions[doc], primaryTerm: this.primaryTerms[doc],
    };
  }

  incRef(): void { /* memory is reclaimed by the GC */ }
  decRef(): void { /* memory is reclaimed by the GC */ }

  /** Cursor over the docs of `field` that have any value. */
  existsCursor(field: string): DocCursor {
    const e = this.existsDocs.get(field);
    return e ? new ArrayCursor(e) : emptyCursor();
  }

  /** Source bytes held by this segment (what the index buffer budget counts besides postings). */
  sourceBytes(): number {
    let n = 0;
    for (let d = 0; d < this.maxDoc; d++) n += this.sources[d]?.byteLength ?? 0;
    return n;
  }
}

function estimateBytes(s: MemorySegment): number {
  let n = s.maxDoc * 40 + s.sourceBytes();
  for (const f of s.fieldNames()) {
    const fp = s.field(f)!;
    n += fp.docs.byteLength + (fp.freqs?.byteLength ?? 0) + (fp.posStart?.byteLength ?? 0) + (fp.positions?.byteLength ?? 0) + fp.docStart.byteLength;
    for (let t = 0; t < fp.terms.length; t++) n += 40 + fp.terms[t].length * 2;
  }
  for (const f of s.numericNames()) { const dv = s.numeric(f)!; n += dv.start.byteLength + dv.values.byteLength; }
  for (const f of s.ordinalNames()) { const dv = s.ordinals(f)!; n += dv.start.byteLength + dv.ords.byteLength + dv.terms.size * 40; }
  return n;
}
