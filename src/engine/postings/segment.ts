/**
 * The read contract of one immutable segment, whatever holds it: the in-memory segments a refresh builds
 * (`memory-segment.ts`) and the on-disk segments a flush or merge writes (`engine/segments/disk-segment.ts`).
 * Search, merges and the index writer see segments only through these interfaces.
 *
 * Docs are numbered 0 … maxDoc-1. A nested block is stored children first, then its root; `parentOf` links a
 * child to its immediate parent (-1 for roots). Deletes are not part of a segment: they live in the reader's
 * live-docs snapshot.
 *
 * Lifetime: arrays returned by these methods stay valid for as long as the caller holds them (a disk segment
 * hands out decoded copies from its block cache, never views of a buffer it reuses).
 */
import type { Bitmap } from '../codec/roaring.ts';
import type { ArrayCursor } from './cursor.ts';

export type { Bitmap };

/**
 * One term's postings as views into arrays: docs[start..end) ascending; for posting p in that range, its
 * frequency is freqs[p] and its positions are positions[posStart[p] .. posStart[p+1]).
 */
export interface TermPostings {
  readonly docs: Uint32Array;
  readonly start: number;
  readonly end: number;
  /** Null for fields indexed without frequencies (every frequency is 1). */
  readonly freqs: Uint32Array | null;
  /** Null unless positions were asked for and the field has them. */
  readonly posStart: Uint32Array | null;
  readonly positions: Uint32Array | null;
}

/** A field's term dictionary and postings in one segment. Term ids are ranks in the sorted dictionary. */
export interface FieldPostings {
  readonly numTerms: number;
  /** Docs having at least one term in this field. */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly sumDocFreq: number;
  readonly hasFreqs: boolean;
  readonly hasPositions: boolean;
  /** The id of `term`, or -1. */
  termId(term: string): number;
  /** The first term id whose term is >= `term` in code-unit order (numTerms when none). */
  seekCeil(term: string): number;
  term(t: number): string;
  docFreq(t: number): number;
  totalTermFreq(t: number): number;
  postings(t: number, withPositions: boolean): TermPostings;
  /** A cursor over term t's docs (`reuse` is re-targeted instead of allocating). */
  cursor(t: number, reuse?: ArrayCursor): ArrayCursor;
  /** Term t's docs as a roaring bitmap (for unions of many terms). */
  bitmap(t: number): Bitmap;
  /** One norm byte per doc (0 = no value), or null for fields without norms (keyword). */
  norms(): Uint8Array | null;
}

/** Doc values: values of doc d are values[start[d] .. start[d+1]), sorted ascending per doc. */
export class NumericDocValues {
  /** Every doc has exactly one value, `values[doc]`: hot loops skip `start` (one memory access per doc, not three). */
  readonly dense: boolean;
  constructor(readonly start: Uint32Array, readonly values: Float64Array) { this.dense = isIdentity(start); }
  count(doc: number): number { return this.start[doc + 1] - this.start[doc]; }
}

/** `start[d] === d` for every d: each doc has exactly one value. */
function isIdentity(start: Uint32Array): boolean {
  const n = start.length - 1;
  if (start[n] !== n) return false;
  for (let d = 0; d < n; d++) if (start[d] !== d) return false;
  return true;
}

/** The sorted, distinct terms of a keyword column, looked up by ordinal. */
export interface OrdinalTerms {
  readonly size: number;
  term(ord: number): string;
}

/** Ordinals, in the narrowest array their term count allows (`ordArray`). */
export type OrdArray = Uint8Array | Uint16Array | Uint32Array;

/**
 * An array for `n` ordinals below `termCount`: one byte each up to 256 terms, two up to 65,536. Aggregations
 * read one ord per hit at random: a column a quarter of the size stays in the CPU caches between queries.
 */
export function ordArray(n: number, termCount: number): OrdArray {
  return termCount <= 0x100 ? new Uint8Array(n) : termCount <= 0x10000 ? new Uint16Array(n) : new Uint32Array(n);
}

/** Keyword doc values as ordinals into `terms` (sorted, distinct); ords sorted ascending per doc. */
export class OrdinalDocValues {
  /** Every doc has exactly one ord, `ords[doc]` (see NumericDocValues.dense). */
  readonly dense: boolean;
  constructor(readonly start: Uint32Array, readonly ords: OrdArray, readonly terms: OrdinalTerms) { this.dense = isIdentity(start); }
  count(doc: number): number { return this.start[doc + 1] - this.start[doc]; }
  lookupOrd(ord: number): string { return this.terms.term(ord); }
}

/** What a segment stores per root doc besides its indexed fields. */
export interface StoredFields {
  id: string;
  /** The client's JSON bytes, verbatim. */
  source: Uint8Array;
  routing: string | null;
  seqNo: number;
  version: number;
  primaryTerm: number;
}

export interface Segment {
  /** Unique within the shard (`_0`, `_1`, … as Lucene names them). */
  readonly name: string;
  readonly maxDoc: number;
  /** True when any doc is a nested child (else every doc is a root and `parentOf` is never needed). */
  readonly hasNested: boolean;
  /** Bytes the segment occupies: on disk for a disk segment, in memory for a memory segment. */
  readonly sizeBytes: number;
  /** True for segments written to disk (and so part of the next commit). */
  readonly onDisk: boolean;

  fieldNames(): readonly string[];
  field(name: string): FieldPostings | null;
  numericNames(): readonly string[];
  numeric(name: string): NumericDocValues | null;
  ordinalNames(): readonly string[];
  ordinals(name: string): OrdinalDocValues | null;
  existsNames(): readonly string[];
  /** Docs that have a value of `name` (for `exists`), ascending; null when none. */
  exists(name: string): Uint32Array | null;

  /** Immediate parent of each doc (-1 for roots). Call only when `hasNested`. */
  parentOf(): Int32Array;
  /** Nested path of `doc` ('' for roots). */
  pathOf(doc: number): string;
  /** `_id` of a root doc ('' for nested children). */
  id(doc: number): string;
  /** The root doc with this `_id`, or -1 (deleted docs included: the caller checks live docs). */
  lookupId(id: string): number;
  /** Stored fields of a root doc. */
  stored(doc: number): StoredFields;
  /**
   * Holders besides the index's own segment list (a reader kept across tasks, a merge) take a reference; a disk
   * segment closes its files when the last one is released. No-ops for memory segments.
   */
  incRef(): void;
  decRef(): void;
}
