/**
 * A block's `index` file (docs/format.md "TSDB block index"): symbol table, series (labels as symbol refs and
 * chunk metas), and label-pair postings as portable roaring bitmaps. Series refs are their ordinal in the
 * series table; series are written in label order so ref order is label order.
 */
import { RoaringBitmap32 } from '../codec/roaring.ts';
import type { Label, Labels } from './api.ts';
import { ByteReader } from '../codec/byte-buf.ts';
import { CorruptionError } from '../errors.ts';
import { beginFile, checkFile, endFile } from './file-frame.ts';
import { TSDB_INDEX_MAGIC, TSDB_INDEX_VERSION } from '../codec/format-ids.ts';
import { LabelIndex } from './postings.ts';


/** Where a chunk lives: `ref` = segment · 2^32 + byte offset of the chunk's length varint. */
export interface ChunkLoc { mint: number; maxt: number; ref: number; len: number }

export interface IndexSeries { labels: Labels; chunks: ChunkLoc[] }

export function encodeIndex(series: readonly IndexSeries[]): Uint8Array {
  const symbols = new Set<string>();
  for (const s of series) for (const l of s.labels) { symbols.add(l.name); symbols.add(l.value); }
  const sorted = [...symbols].sort();
  const symRef = new Map(sorted.map((s, i) => [s, i]));
  const w = beginFile(TSDB_INDEX_MAGIC, TSDB_INDEX_VERSION, 1 << 16);
  w.uvarint(sorted.length);
  for (const s of sorted) w.str(s);
  w.uvarint(series.length);
  const postings = new LabelIndex();
  series.forEach((s, ref) => {
    w.uvarint(s.labels.length);
    for (const l of s.labels) { w.uvarint(symRef.get(l.name)!); w.uvarint(symRef.get(l.value)!); }
    w.uvarint(s.chunks.length);
    let prev = 0;
    for (const c of s.chunks) {
      w.varint(c.mint - prev);
      w.uvarint(c.maxt - c.mint);
      w.uvarint(c.ref);
      w.uvarint(c.len);
      prev = c.maxt;
    }
    postings.add(ref, s.labels);
  });
  w.uvarint(postings.numLabelPairs());
  for (const [name, values] of [...postings.byName].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    for (const v of [...values.keys()].sort()) {
      const bytes = values.get(v)!.serialize(true);
      w.uvarint(symRef.get(name)!); w.uvarint(symRef.get(v)!);
      w.uvarint(bytes.length);
      w.bytes(bytes);
    }
  }
  return endFile(w);
}

export interface DecodedIndex { series: IndexSeries[]; postings: LabelIndex }

export function decodeIndex(b: Uint8Array, file: string): DecodedIndex {
  const { start, end } = checkFile(b, file, TSDB_INDEX_MAGIC, 1, TSDB_INDEX_VERSION);
  const r = new ByteReader(b, file, start, end);
  const nsym = r.uvarint();
  const syms: string[] = new Array(nsym);
  for (let i = 0; i < nsym; i++) syms[i] = r.str();
  const sym = (i: number): string => {
    if (i >= nsym) throw new CorruptionError(file, r.pos, `symbol ref ${i} out of range (${nsym} symbols)`);
    return syms[i];
  };
  const nser = r.uvarint();
  const series: IndexSeries[] = new Array(nser);
  for (let i = 0; i < nser; i++) {
    const nl = r.uvarint();
    const labels: Label[] = new Array(nl);
    for (let j = 0; j < nl; j++) labels[j] = { name: sym(r.uvarint()), value: sym(r.uvarint()) };
    const nc = r.uvarint();
    const chunks: ChunkLoc[] = new Array(nc);
    let prev = 0;
    for (let j = 0; j < nc; j++) {
      const mint = prev + r.varint();
      const maxt = mint + r.uvarint();
      chunks[j] = { mint, maxt, ref: r.uvarint(), len: r.uvarint() };
      prev = maxt;
    }
    series[i] = { labels, chunks };
  }
  const postings = new LabelIndex();
  const npairs = r.uvarint();
  for (let i = 0; i < npairs; i++) {
    const name = sym(r.uvarint()), value = sym(r.uvarint());
    const bytes = r.bytes(r.uvarint());
    const bm = RoaringBitmap32.deserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), true);
    let values = postings.byName.get(name);
    if (!values) { values = new Map(); postings.byName.set(name, values); }
    values.set(value, bm);
  }
  for (let i = 0; i < nser; i++) postings.all.add(i);
  return { series, postings };
}
