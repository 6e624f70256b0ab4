/**
 * A segment held in memory: what a refresh builds from the indexing buffer (`segment-builder.ts`). Postings
 * of a field are flat typed arrays (a term's docs are one run of `docs`), doc values typed arrays, stored
 * fields the buffered source bytes. Memory segments are bounded by the index buffer budget: the index writer
 * writes them to disk (merged into one segment) when they outgrow it, and at every flush.
 */
import { ArrayCursor, type DocCursor, emptyCursor } from './cursor.ts';
import {
  type Bitmap, type FieldPostings, NumericDocValues, OrdinalDocValues, type OrdinalTerms,
  type Segment, type StoredFields, type TermPostings,
} from './segment.ts';
import type { ByteColumn } from '../codec/byte-column.ts';
import type { IdTable } from './id-table.ts';
import { bitmapOf } from '../codec/roaring.ts';

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
      b = bitmapOf(this.docs.subarray(this.docStart[t], this.docStart[t + 1]));
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

/** The per-doc columns of a memory segment, as its builder hands them over. */
export interface MemoryDocColumns {
  /** `_id` per root doc (none for nested children), and which root holds each id's live copy. */
  ids: ByteColumn;
  liveIds: IdTable;
  parents: Int32Array;
  /** Nested path per doc as an id into `pathNames` (0: the root path ''). */
  pathNames: string[];
  pathIds: Uint16Array;
  /** Source bytes per root doc, and the routing of those that have one. */
  sources: ByteColumn;
  routings: Map<number, string>;
  /** seq_no, version and primary term per doc (0 for nested children). */
  seqNos: Float64Array;
  versions: Float64Array;
  primaryTerms: Float64Array;
}

const NO_SOURCE = new Uint8Array(0);

export class MemorySegment implements Segment {
  readonly hasNested: boolean;
  readonly onDisk = false;
  readonly sizeBytes: number;

  constructor(
    readonly name: string,
    readonly maxDoc: number,
    private readonly docs: MemoryDocColumns,
    private readonly fields: Map<string, MemoryFieldPostings>,
    private readonly numericDv: Map<string, NumericDocValues>,
    private readonly ordinalDv: Map<string, OrdinalDocValues>,
    private readonly existsDocs: Map<string, Uint32Array>,
  ) {
    this.hasNested = docs.pathNames.length > 1;
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
  parentOf(): Int32Array { return this.docs.parents; }
  pathOf(doc: number): string { return this.docs.pathNames[this.docs.pathIds[doc]]; }
  id(doc: number): string { return this.docs.ids.getString(doc); }
  /** The root doc of `id`'s copy that was live when this segment was built (it may have been deleted since), or −1. */
  lookupId(id: string): number { return this.docs.liveIds.get(id); }
  stored(doc: number): StoredFields {
    const c = this.docs;
    return {
      id: c.ids.getString(doc), source: c.sources.get(doc) ?? NO_SOURCE, routing: c.routings.get(doc) ?? null,
      seqNo: c.seqNos[doc], version: c.versions[doc], primaryTerm: c.primaryTerms[doc],
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
  sourceBytes(): number { return this.docs.sources.bytes; }
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
