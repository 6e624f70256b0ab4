/**
 * Writes a block's `index` file in Prometheus's index format v2 (docs/format.md "TSDB blocks";
 * Prometheus `tsdb/docs/format/index.md`), so promtool, Thanos and Prometheus itself read Tessera's blocks:
 * symbol table, series entries (16-byte aligned; a series' ref is its offset / 16), label indices and their
 * offset table (written for readers that still look at them), postings (4-byte aligned, the all-series list
 * under the empty label pair first), the postings offset table and the TOC, each section with its CRC32C.
 */
import type { Labels } from './api.ts';
import { ByteWriter } from '../codec/byte-buf.ts';
import { crc32c } from '../codec/crc32c.ts';
import { PROM_INDEX_MAGIC, PROM_INDEX_VERSION } from '../codec/format-ids.ts';
import { compareUtf8 } from './labels.ts';

/** Where a chunk lives: `ref` = chunk file sequence (0 for `000001`) · 2^32 + byte offset in that file. */
export interface ChunkLoc { mint: number; maxt: number; ref: number }

export interface IndexSeries { labels: Labels; chunks: ChunkLoc[] }

/**
 * The chunk places of many series in columns, series after series (a block writer's: an object per chunk
 * cost ~80 bytes, and a 20-day compacted block has 389,000 chunks).
 */
export class ChunkLocColumns {
  n = 0;
  mint: Float64Array;
  maxt: Float64Array;
  ref: Float64Array;
  constructor(capacity = 1024) {
    this.mint = new Float64Array(capacity); this.maxt = new Float64Array(capacity); this.ref = new Float64Array(capacity);
  }

  push(mint: number, maxt: number, ref: number): void {
    if (this.n === this.mint.length) {
      const grow = (a: Float64Array): Float64Array => { const b = new Float64Array(Math.max(16, a.length * 2)); b.set(a); return b; };
      this.mint = grow(this.mint); this.maxt = grow(this.maxt); this.ref = grow(this.ref);
    }
    const k = this.n++;
    this.mint[k] = mint; this.maxt[k] = maxt; this.ref[k] = ref;
  }
}

const TWO32 = 4294967296;

/** A writer with section helpers: 4-byte length placeholders patched once the section is complete. */
class SectionWriter extends ByteWriter {
  pad(align: number): void { while (this.len % align !== 0) this.u8(0); }

  be64(x: number): void { this.u32be(Math.floor(x / TWO32)); this.u32be(x % TWO32); }

  /** Reserves a 4-byte length; returns where it is. */
  openLength(): number { const at = this.len; this.u32be(0); return at; }

  /** Patches the length at `at` (bytes after it) and appends the CRC32C of those bytes. */
  closeLength(at: number): void {
    const n = this.len - at - 4;
    new DataView(this.buf.buffer, this.buf.byteOffset).setUint32(at, n);
    this.u32be(crc32c(this.buf.subarray(at + 4, this.len)));
  }
}

/** Encodes the index of `series`, which must be sorted by label set (and each label set by name). */
export function encodeIndex(series: readonly IndexSeries[]): Uint8Array {
  const cols = new ChunkLocColumns(series.reduce((n, s) => n + s.chunks.length, 0));
  const starts = new Int32Array(series.length + 1);
  series.forEach((s, i) => {
    starts[i] = cols.n;
    for (const c of s.chunks) cols.push(c.mint, c.maxt, c.ref);
  });
  starts[series.length] = cols.n;
  return encodeIndexColumns(series.map((s) => s.labels), cols, starts);
}

/**
 * `encodeIndex` of series given as label sets (sorted) and their chunks in `cols`: series `i` has chunks
 * `[starts[i], starts[i + 1])`.
 */
export function encodeIndexColumns(series: readonly Labels[], cols: ChunkLocColumns, starts: ArrayLike<number>): Uint8Array {
  const symbolSet = new Set<string>();
  for (const labels of series) for (const l of labels) { symbolSet.add(l.name); symbolSet.add(l.value); }
  const symbols = [...symbolSet].sort(compareUtf8);
  const symRef = new Map<string, number>();
  symbols.forEach((s, i) => symRef.set(s, i));

  const w = new SectionWriter(1 << 16);
  w.u32be(PROM_INDEX_MAGIC);
  w.u8(PROM_INDEX_VERSION);

  // Symbol table.
  const tocSymbols = w.len;
  const symLen = w.openLength();
  w.u32be(symbols.length);
  for (const s of symbols) w.str(s);
  w.closeLength(symLen);

  // Series, and the postings they imply (refs ascend with label order).
  const tocSeries = w.len;
  const refs: number[] = new Array(series.length);
  const byName = new Map<string, Map<string, number[]>>();
  const body = new ByteWriter(256);
  series.forEach((labels, i) => {
    w.pad(16);
    const ref = w.len / 16;
    refs[i] = ref;
    body.len = 0;
    body.uvarint(labels.length);
    for (const l of labels) {
      body.uvarint(symRef.get(l.name)!);
      body.uvarint(symRef.get(l.value)!);
      let values = byName.get(l.name);
      if (!values) byName.set(l.name, values = new Map());
      let list = values.get(l.value);
      if (!list) values.set(l.value, list = []);
      list.push(ref);
    }
    const from = starts[i], to = starts[i + 1];
    body.uvarint(to - from);
    let prevMaxt = 0, prevRef = 0;
    for (let k = from; k < to; k++) {
      const mint = cols.mint[k], maxt = cols.maxt[k], cref = cols.ref[k];
      if (k === from) { body.varint(mint); body.uvarint(maxt - mint); body.uvarint(cref); }
      else { body.uvarint(mint - prevMaxt); body.uvarint(maxt - mint); body.varint(cref - prevRef); }
      prevMaxt = maxt; prevRef = cref;
    }
    const bytes = body.buf.subarray(0, body.len);
    w.uvarint(bytes.length);
    w.bytes(bytes);
    w.u32be(crc32c(bytes));
  });

  const names = [...byName.keys()].sort(compareUtf8);
  const sortedValues = new Map<string, string[]>();
  for (const n of names) sortedValues.set(n, [...byName.get(n)!.keys()].sort(compareUtf8));

  // Label indices (one per name) and their offset table.
  const tocLabelIndices = w.len;
  const labelIndexAt = new Map<string, number>();
  for (const n of names) {
    w.pad(4);
    labelIndexAt.set(n, w.len);
    const at = w.openLength();
    const values = sortedValues.get(n)!;
    w.u32be(1);
    w.u32be(values.length);
    for (const v of values) w.u32be(symRef.get(v)!);
    w.closeLength(at);
  }

  // Postings: the all-series list under ("", ""), then every pair in name, value order.
  w.pad(4);
  const tocPostings = w.len;
  const postingsAt: [string, string, number][] = [];
  const writePostings = (name: string, value: string, list: readonly number[]): void => {
    w.pad(4);
    postingsAt.push([name, value, w.len]);
    const at = w.openLength();
    w.u32be(list.length);
    for (const r of list) w.u32be(r);
    w.closeLength(at);
  };
  writePostings('', '', refs);
  for (const n of names) for (const v of sortedValues.get(n)!) writePostings(n, v, byName.get(n)!.get(v)!);

  const tocLabelTable = w.len;
  let at = w.openLength();
  w.u32be(names.length);
  for (const n of names) { w.uvarint(1); w.str(n); w.uvarint(labelIndexAt.get(n)!); }
  w.closeLength(at);

  const tocPostingsTable = w.len;
  at = w.openLength();
  w.u32be(postingsAt.length);
  for (const [n, v, off] of postingsAt) { w.uvarint(2); w.str(n); w.str(v); w.uvarint(off); }
  w.closeLength(at);

  const tocAt = w.len;
  w.be64(tocSymbols); w.be64(tocSeries); w.be64(tocLabelIndices); w.be64(tocLabelTable); w.be64(tocPostings); w.be64(tocPostingsTable);
  w.u32be(crc32c(w.buf.subarray(tocAt, w.len)));
  return w.finish();
}
