/**
 * Column encodings of the `.dvd` file (docs/format.md "Document segments"): numeric and keyword doc values,
 * norms, `exists` doc lists and the nested-block structure. Each column is one checked region, decoded whole
 * into the typed arrays the search code reads (through the block cache).
 *
 * Numeric column payload: kind u8, then
 *   - 0 packed: every doc has at most one value and all values are integers with (max-min)/gcd < 2^32:
 *     docsWithValue uvarint; when < maxDoc, a roaring bitmap of them (uvarint byte length + portable bytes);
 *     min f64 LE, gcd uvarint, bits u8, then the values' (v-min)/gcd packed little-endian in `bits` bits each;
 *   - 1 raw: maxDoc uvarint value counts, then every value as f64 LE.
 * Ordinal column: kind u8, then
 *   - 0 single: bits u8, then per doc ord+1 packed in `bits` bits (0 = no value);
 *   - 1 multi: maxDoc uvarint counts, then every ord as uvarint.
 * Ordinal terms (their own region, read only when a term is looked up): count uvarint, then per term a uvarint
 * byte length and UTF-8 bytes.
 */
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';
import { CorruptionError } from '../errors.ts';
import { NumericDocValues, OrdinalDocValues, ordArray, type OrdinalTerms } from '../postings/segment.ts';
import { bitmapOf, portableBitmap } from '../codec/roaring.ts';

const NUM_PACKED = 0;
const NUM_RAW = 1;
const ORD_SINGLE = 0;
const ORD_MULTI = 1;

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);

function putF64(w: ByteWriter, v: number): void { f64[0] = v; w.bytes(f64Bytes); }
function getF64(r: ByteReader): number { f64Bytes.set(r.bytes(8)); return f64[0]; }

function gcdOf(a: number, b: number): number {
  while (b !== 0) { const t = a % b; a = b; b = t; }
  return a;
}

/** 2^k for the bit accumulators below (values up to 32 bits plus a partial byte stay exact in a double). */
const POW2 = Float64Array.from({ length: 48 }, (_, k) => 2 ** k);

/**
 * Packs `n` unsigned values (each < 2^bits, bits ≤ 32) from `get(i)` into w, little-endian bit order. Whole
 * bytes leave an accumulator, as for `unpackBits`: a bulk load's segment writes spent ~1% of a shard worker
 * splitting values bit-field by bit-field.
 */
function packBits(w: ByteWriter, n: number, bits: number, get: (i: number) => number): void {
  if (bits === 0) return;
  const out = new Uint8Array(Math.ceil((n * bits) / 8));
  let acc = 0, accBits = 0, o = 0;
  for (let i = 0; i < n; i++) {
    acc += get(i) * POW2[accBits];
    accBits += bits;
    while (accBits >= 8) {
      const low = acc % 256;
      out[o++] = low;
      acc = (acc - low) / 256;
      accBits -= 8;
    }
  }
  if (accBits > 0) out[o] = acc;
  w.bytes(out);
}

/** Unpacks `n` values of `bits` bits from src at byte `p` into `out` (as numbers); returns the end position. */
function unpackBits(src: Uint8Array, p: number, n: number, bits: number, out: Float64Array | Uint32Array): number {
  if (bits === 0) { out.fill(0, 0, n); return p; }
  const range = POW2[bits];
  let acc = 0, accBits = 0, q = p;
  for (let i = 0; i < n; i++) {
    while (accBits < bits) { acc += src[q++] * POW2[accBits]; accBits += 8; }
    const v = acc % range;
    out[i] = v;
    acc = (acc - v) / range;
    accBits -= bits;
  }
  return q;
}

function bitsFor(maxValue: number): number { return maxValue === 0 ? 0 : Math.floor(Math.log2(maxValue)) + 1; }

/** Encodes a numeric column of `maxDoc` docs. */
export function encodeNumeric(dv: NumericDocValues, maxDoc: number): Uint8Array {
  const w = new ByteWriter(1024);
  let single = true, ints = true, min = Infinity, max = -Infinity, withValue = 0;
  for (let d = 0; d < maxDoc; d++) {
    const c = dv.start[d + 1] - dv.start[d];
    if (c > 1) single = false;
    if (c > 0) withValue++;
  }
  for (let i = 0; i < dv.values.length; i++) {
    const v = dv.values[i];
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) ints = false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  let gcd = 0;
  if (ints) for (let i = 0; i < dv.values.length && gcd !== 1; i++) gcd = gcdOf(dv.values[i] - min, gcd);
  if (gcd === 0) gcd = 1;
  const range = withValue ? (max - min) / gcd : 0;
  if (single && ints && range < 2 ** 32) {
    w.u8(NUM_PACKED);
    w.uvarint(withValue);
    if (withValue < maxDoc) {
      const docs: number[] = [];
      for (let d = 0; d < maxDoc; d++) if (dv.start[d + 1] > dv.start[d]) docs.push(d);
      const bytes = bitmapOf(docs).serialize(true);
      w.uvarint(bytes.byteLength);
      w.bytes(bytes);
    }
    putF64(w, withValue ? min : 0);
    w.uvarint(gcd);
    const bits = bitsFor(range);
    w.u8(bits);
    packBits(w, withValue, bits, (i) => (dv.values[i] - min) / gcd);
  } else {
    w.u8(NUM_RAW);
    for (let d = 0; d < maxDoc; d++) w.uvarint(dv.start[d + 1] - dv.start[d]);
    for (let i = 0; i < dv.values.length; i++) putF64(w, dv.values[i]);
  }
  return w.finish();
}

export function decodeNumeric(src: Uint8Array, maxDoc: number, file: string, offset: number): NumericDocValues {
  const r = new ByteReader(src, file);
  const kind = r.u8();
  const start = new Uint32Array(maxDoc + 1);
  if (kind === NUM_PACKED) {
    const withValue = r.uvarint();
    if (withValue > maxDoc) throw new CorruptionError(file, offset, `${withValue} values for ${maxDoc} docs`);
    if (withValue < maxDoc) {
      const len = r.uvarint();
      const docs = portableBitmap(Buffer.from(r.bytes(len))).toUint32Array();
      if (docs.length !== withValue) throw new CorruptionError(file, offset, 'value presence does not match its count');
      let k = 0;
      for (let d = 0; d < maxDoc; d++) { start[d] = k; if (k < withValue && docs[k] === d) k++; }
      start[maxDoc] = k;
    } else {
      for (let d = 0; d <= maxDoc; d++) start[d] = d;
    }
    const min = getF64(r), gcd = r.uvarint(), bits = r.u8();
    const values = new Float64Array(withValue);
    const end = unpackBits(src, r.pos, withValue, bits, values);
    if (end > src.byteLength) throw new CorruptionError(file, offset, 'packed values run past their region');
    for (let i = 0; i < withValue; i++) values[i] = min + values[i] * gcd;
    return new NumericDocValues(start, values);
  }
  if (kind !== NUM_RAW) throw new CorruptionError(file, offset, `unknown numeric column kind ${kind}`);
  let total = 0;
  for (let d = 0; d < maxDoc; d++) { start[d] = total; total += r.uvarint(); }
  start[maxDoc] = total;
  const values = new Float64Array(total);
  for (let i = 0; i < total; i++) values[i] = getF64(r);
  return new NumericDocValues(start, values);
}

/** Encodes the ords of a keyword column (the terms go to their own region: `encodeOrdinalTerms`). */
export function encodeOrdinals(dv: OrdinalDocValues, maxDoc: number): Uint8Array {
  const w = new ByteWriter(1024);
  let single = true;
  for (let d = 0; d < maxDoc && single; d++) if (dv.start[d + 1] - dv.start[d] > 1) single = false;
  if (single) {
    w.u8(ORD_SINGLE);
    const bits = bitsFor(dv.terms.size);
    w.u8(bits);
    packBits(w, maxDoc, bits, (d) => (dv.start[d + 1] > dv.start[d] ? dv.ords[dv.start[d]] + 1 : 0));
  } else {
    w.u8(ORD_MULTI);
    for (let d = 0; d < maxDoc; d++) w.uvarint(dv.start[d + 1] - dv.start[d]);
    for (let i = 0; i < dv.ords.length; i++) w.uvarint(dv.ords[i]);
  }
  return w.finish();
}

export function decodeOrdinals(src: Uint8Array, maxDoc: number, terms: OrdinalTerms, file: string, offset: number): OrdinalDocValues {
  const r = new ByteReader(src, file);
  const kind = r.u8();
  const start = new Uint32Array(maxDoc + 1);
  if (kind === ORD_SINGLE) {
    const bits = r.u8();
    const plus1 = new Uint32Array(maxDoc);
    const end = unpackBits(src, r.pos, maxDoc, bits, plus1);
    if (end > src.byteLength) throw new CorruptionError(file, offset, 'packed ords run past their region');
    let n = 0;
    for (let d = 0; d < maxDoc; d++) { start[d] = n; if (plus1[d] !== 0) n++; }
    start[maxDoc] = n;
    const wide = new Uint32Array(n);
    for (let d = 0, k = 0; d < maxDoc; d++) if (plus1[d] !== 0) wide[k++] = plus1[d] - 1;
    checkOrds(wide, terms.size, file, offset);
    const ords = ordArray(n, terms.size);
    ords.set(wide);
    return new OrdinalDocValues(start, ords, terms);
  }
  if (kind !== ORD_MULTI) throw new CorruptionError(file, offset, `unknown ordinal column kind ${kind}`);
  let total = 0;
  for (let d = 0; d < maxDoc; d++) { start[d] = total; total += r.uvarint(); }
  start[maxDoc] = total;
  const wide = new Uint32Array(total);
  for (let i = 0; i < total; i++) wide[i] = r.uvarint();
  checkOrds(wide, terms.size, file, offset);
  const ords = ordArray(total, terms.size);
  ords.set(wide);
  return new OrdinalDocValues(start, ords, terms);
}

function checkOrds(ords: Uint32Array, size: number, file: string, offset: number): void {
  for (let i = 0; i < ords.length; i++) if (ords[i] >= size) throw new CorruptionError(file, offset, `ordinal ${ords[i]} past the ${size} terms`);
}

export function encodeOrdinalTerms(terms: OrdinalTerms): Uint8Array {
  const w = new ByteWriter(1024);
  w.uvarint(terms.size);
  for (let i = 0; i < terms.size; i++) w.str(terms.term(i));
  return w.finish();
}

/** Ordinal terms as one UTF-8 blob with offsets; strings are decoded on lookup. */
export class PackedOrdinalTerms implements OrdinalTerms {
  private readonly dec = new TextDecoder();
  constructor(private readonly blob: Uint8Array, private readonly offsets: Uint32Array) {}
  get size(): number { return this.offsets.length - 1; }
  term(ord: number): string { return this.dec.decode(this.blob.subarray(this.offsets[ord], this.offsets[ord + 1])); }
  get byteLength(): number { return this.blob.byteLength + this.offsets.byteLength; }
}

export function decodeOrdinalTerms(src: Uint8Array, file: string): PackedOrdinalTerms {
  const r = new ByteReader(src, file);
  const n = r.uvarint();
  const offsets = new Uint32Array(n + 1);
  const starts: number[] = new Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const len = r.uvarint();
    starts[i] = r.pos;
    r.bytes(len);
    offsets[i] = total;
    total += len;
  }
  offsets[n] = total;
  const blob = new Uint8Array(total);
  for (let i = 0; i < n; i++) blob.set(src.subarray(starts[i], starts[i] + offsets[i + 1] - offsets[i]), offsets[i]);
  return new PackedOrdinalTerms(blob, offsets);
}

/** A doc list (exists) as a roaring bitmap, portable format. */
export function encodeDocList(docs: Uint32Array): Uint8Array {
  const bm = bitmapOf(docs);
  bm.runOptimize();
  return bm.serialize(true);
}

export function decodeDocList(src: Uint8Array): Uint32Array {
  return portableBitmap(Buffer.from(src.buffer, src.byteOffset, src.byteLength)).toUint32Array();
}

/** The nested structure: parent per doc (zig-zag uvarint of parent-doc, -1 → 0), path id per doc, path names. */
export function encodeNested(parentOf: Int32Array, pathOf: (doc: number) => string, maxDoc: number): Uint8Array {
  const w = new ByteWriter(1024);
  const names = new Map<string, number>([['', 0]]);
  const ids = new Uint32Array(maxDoc);
  for (let d = 0; d < maxDoc; d++) {
    const p = pathOf(d);
    let id = names.get(p);
    if (id === undefined) { id = names.size; names.set(p, id); }
    ids[d] = id;
  }
  w.uvarint(names.size);
  for (const n of names.keys()) w.str(n);
  for (let d = 0; d < maxDoc; d++) { w.uvarint(parentOf[d] === -1 ? 0 : parentOf[d] - d); w.uvarint(ids[d]); }
  return w.finish();
}

export interface NestedStructure { parentOf: Int32Array; pathIds: Uint16Array; pathNames: string[] }

export function decodeNested(src: Uint8Array, maxDoc: number, file: string, offset: number): NestedStructure {
  const r = new ByteReader(src, file);
  const n = r.uvarint();
  const pathNames: string[] = [];
  for (let i = 0; i < n; i++) pathNames.push(r.str());
  const parentOf = new Int32Array(maxDoc);
  const pathIds = new Uint16Array(maxDoc);
  for (let d = 0; d < maxDoc; d++) {
    const delta = r.uvarint();
    parentOf[d] = delta === 0 ? -1 : d + delta;
    const id = r.uvarint();
    if (id >= n || parentOf[d] >= maxDoc) throw new CorruptionError(file, offset, `nested structure of doc ${d} is out of range`);
    pathIds[d] = id;
  }
  return { parentOf, pathIds, pathNames };
}
