/**
 * The segment's directory (`.si`) and its in-memory indexes (`.tip`), docs/format.md "Document segments".
 * Both are small, read whole when the segment opens and checked (one region each). `.si` names every column
 * region of `.dvd` and the expected length of every other file, so a truncated or missing file is caught at
 * open; `.tip` holds what stays in memory: each field's sparse term index, the `_id` index and Bloom filter,
 * and the stored-fields block index.
 */
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';
import type { RegionRef } from './segment-file.ts';
import { decodeTermIndex, encodeTermIndex, type TermIndex } from './term-dictionary.ts';
import type { StoredIndex } from './stored-fields-format.ts';

/** The file kinds of a segment, in the order `.si` lists their lengths. */
export const SEGMENT_EXTENSIONS = ['tip', 'tim', 'doc', 'pos', 'dvd', 'fdt', 'ids'] as const;
export type SegmentExtension = typeof SEGMENT_EXTENSIONS[number];

export interface FieldMeta {
  name: string;
  hasFreqs: boolean;
  hasPositions: boolean;
  docCount: number;
  sumTotalTermFreq: number;
  sumDocFreq: number;
  norms: RegionRef | null;
}

export interface ColumnMeta { name: string; ref: RegionRef }
export interface OrdinalColumnMeta { name: string; ref: RegionRef; terms: RegionRef; termCount: number }

export interface SegmentInfo {
  name: string;
  maxDoc: number;
  /** Root (top-level) docs: what `_count` counts. */
  numRoots: number;
  hasNested: boolean;
  /** Length of each data file (`.si` itself excluded). */
  fileBytes: Record<SegmentExtension, number>;
  fields: FieldMeta[];
  numeric: ColumnMeta[];
  ordinals: OrdinalColumnMeta[];
  exists: ColumnMeta[];
  nested: RegionRef | null;
}

export interface SegmentIndexes {
  /** Term index per field, in `SegmentInfo.fields` order. */
  terms: TermIndex[];
  ids: TermIndex;
  bloomWords: Uint32Array;
  stored: StoredIndex;
}

function putRef(w: ByteWriter, r: RegionRef | null): void {
  if (r === null) { w.uvarint(0); return; }
  w.uvarint(r.len);
  w.uvarint(r.off);
}

function getRef(r: ByteReader): RegionRef | null {
  const len = r.uvarint();
  return len === 0 ? null : { len, off: r.uvarint() };
}

export function encodeSegmentInfo(si: SegmentInfo): Uint8Array {
  const w = new ByteWriter(1024);
  w.str(si.name);
  w.uvarint(si.maxDoc);
  w.uvarint(si.numRoots);
  w.u8(si.hasNested ? 1 : 0);
  for (const ext of SEGMENT_EXTENSIONS) w.uvarint(si.fileBytes[ext]);
  w.uvarint(si.fields.length);
  for (const f of si.fields) {
    w.str(f.name);
    w.u8((f.hasFreqs ? 1 : 0) | (f.hasPositions ? 2 : 0));
    w.uvarint(f.docCount); w.uvarint(f.sumTotalTermFreq); w.uvarint(f.sumDocFreq);
    putRef(w, f.norms);
  }
  w.uvarint(si.numeric.length);
  for (const c of si.numeric) { w.str(c.name); putRef(w, c.ref); }
  w.uvarint(si.ordinals.length);
  for (const c of si.ordinals) { w.str(c.name); putRef(w, c.ref); putRef(w, c.terms); w.uvarint(c.termCount); }
  w.uvarint(si.exists.length);
  for (const c of si.exists) { w.str(c.name); putRef(w, c.ref); }
  putRef(w, si.nested);
  return w.finish();
}

export function decodeSegmentInfo(src: Uint8Array, file: string): SegmentInfo {
  const r = new ByteReader(src, file);
  const name = r.str(), maxDoc = r.uvarint(), numRoots = r.uvarint(), hasNested = r.u8() === 1;
  const fileBytes = {} as Record<SegmentExtension, number>;
  for (const ext of SEGMENT_EXTENSIONS) fileBytes[ext] = r.uvarint();
  const fields: FieldMeta[] = [];
  for (let i = r.uvarint(); i > 0; i--) {
    const fname = r.str(), flags = r.u8();
    fields.push({ name: fname, hasFreqs: (flags & 1) !== 0, hasPositions: (flags & 2) !== 0, docCount: r.uvarint(), sumTotalTermFreq: r.uvarint(), sumDocFreq: r.uvarint(), norms: getRef(r) });
  }
  const numeric: ColumnMeta[] = [];
  for (let i = r.uvarint(); i > 0; i--) numeric.push({ name: r.str(), ref: getRef(r)! });
  const ordinals: OrdinalColumnMeta[] = [];
  for (let i = r.uvarint(); i > 0; i--) ordinals.push({ name: r.str(), ref: getRef(r)!, terms: getRef(r)!, termCount: r.uvarint() });
  const exists: ColumnMeta[] = [];
  for (let i = r.uvarint(); i > 0; i--) exists.push({ name: r.str(), ref: getRef(r)! });
  const nested = getRef(r);
  return { name, maxDoc, numRoots, hasNested, fileBytes, fields, numeric, ordinals, exists, nested };
}

export function encodeSegmentIndexes(ix: SegmentIndexes): Uint8Array {
  const w = new ByteWriter(4096);
  w.uvarint(ix.terms.length);
  for (const t of ix.terms) encodeTermIndex(w, t);
  encodeTermIndex(w, ix.ids);
  w.uvarint(ix.bloomWords.length);
  w.bytes(new Uint8Array(ix.bloomWords.buffer, ix.bloomWords.byteOffset, ix.bloomWords.byteLength));
  const s = ix.stored;
  w.uvarint(s.firstDocs.length);
  for (let i = 0; i < s.firstDocs.length; i++) { w.uvarint(s.firstDocs[i]); w.uvarint(s.blockOff[i]); w.uvarint(s.blockLen[i]); }
  return w.finish();
}

export function decodeSegmentIndexes(src: Uint8Array, file: string): SegmentIndexes {
  const r = new ByteReader(src, file);
  const terms: TermIndex[] = [];
  for (let i = r.uvarint(); i > 0; i--) terms.push(decodeTermIndex(r));
  const ids = decodeTermIndex(r);
  const nWords = r.uvarint();
  const bloomWords = new Uint32Array(nWords);
  new Uint8Array(bloomWords.buffer).set(r.bytes(nWords * 4));
  const n = r.uvarint();
  const stored: StoredIndex = { firstDocs: new Array(n), blockOff: new Array(n), blockLen: new Array(n) };
  for (let i = 0; i < n; i++) { stored.firstDocs[i] = r.uvarint(); stored.blockOff[i] = r.uvarint(); stored.blockLen[i] = r.uvarint(); }
  return { terms, ids, bloomWords, stored };
}
