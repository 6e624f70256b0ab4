/**
 * The TSDB's WAL records in Prometheus's encoding (docs/format.md "TSDB WAL records", Prometheus's
 * `tsdb/record`): every record starts with its type byte, then
 *   series      (ref <u64be> · #labels <uvarint> · (len <uvarint> · name · len <uvarint> · value)*)*
 *   samples     base ref <u64be> · base t <i64be> · (ref − base <varint> · t − base <varint> · value <f64be>)*
 *   tombstones  (ref <u64be> · mint <varint> · maxt <varint>)*
 * Checkpoints hold the same records. Refs and times are exact JS integers (|x| < 2^53). Values are copied as
 * their 8 bytes (never through a float register), so NaN payloads such as the stale marker survive.
 */
import type { Label, Labels } from './api.ts';
import { CorruptionError } from '../errors.ts';
import { TSDB_REC_SAMPLES, TSDB_REC_SERIES, TSDB_REC_TOMBSTONES } from '../codec/format-ids.ts';
import { normalizeLabels } from './labels.ts';

export const REC_SERIES = TSDB_REC_SERIES, REC_SAMPLES = TSDB_REC_SAMPLES, REC_TOMBSTONES = TSDB_REC_TOMBSTONES;

export interface SeriesRec { ref: number; labels: Labels }
export interface TombstoneRec { ref: number; mint: number; maxt: number }

const utf8 = new TextEncoder();
const utf8Dec = new TextDecoder();
const TWO32 = 0x1_0000_0000;

/** Decoded samples of one record, in arrays reused from record to record (grown as needed). */
export class SampleBatch {
  refs = new Float64Array(256);
  ts = new Float64Array(256);
  vs = new Float64Array(256);
  /** The bytes of `vs`, written directly so value bits are never canonicalised. */
  vBytes = new Uint8Array(this.vs.buffer);
  n = 0;

  ensure(cap: number): void {
    if (cap <= this.refs.length) return;
    let c = this.refs.length * 2;
    while (c < cap) c *= 2;
    this.refs = new Float64Array(c); this.ts = new Float64Array(c); this.vs = new Float64Array(c);
    this.vBytes = new Uint8Array(this.vs.buffer);
  }
}

// ── encoding ────────────────────────────────────────────────────────────────

/** A growable output buffer for the record encoders (one per call: the bytes are queued for the WAL). */
class Out {
  b: Uint8Array;
  n = 0;
  constructor(cap: number) { this.b = new Uint8Array(cap); }
  ensure(k: number): void {
    if (this.n + k <= this.b.length) return;
    const next = new Uint8Array(Math.max(this.b.length * 2, this.n + k));
    next.set(this.b.subarray(0, this.n));
    this.b = next;
  }
  u64(x: number): void { this.n = putU64(this.b, this.n, x); }
  uvarint(x: number): void { this.n = putUvarint(this.b, this.n, x); }
  str(s: string): void {
    // Worst case 3 bytes per UTF-16 unit, plus the length prefix.
    this.ensure(s.length * 3 + 10);
    const len = utf8.encodeInto(s, this.b.subarray(this.n + 5)).written;
    // Write the varint length, then move the bytes down if it took fewer than the 5 bytes reserved.
    const start = this.n + 5;
    const after = putUvarint(this.b, this.n, len);
    if (after !== start) this.b.copyWithin(after, start, start + len);
    this.n = after + len;
  }
  done(): Uint8Array { return this.b.subarray(0, this.n); }
}

function putU32(b: Uint8Array, at: number, x: number): void {
  b[at] = x >>> 24; b[at + 1] = (x >>> 16) & 0xff; b[at + 2] = (x >>> 8) & 0xff; b[at + 3] = x & 0xff;
}

/** A 64-bit big-endian integer; negative values come out in two's complement (the high word wraps). */
function putU64(b: Uint8Array, at: number, x: number): number {
  const hi = Math.floor(x / TWO32), lo = x - hi * TWO32;
  putU32(b, at, hi >>> 0); putU32(b, at + 4, lo >>> 0);
  return at + 8;
}

function putUvarint(b: Uint8Array, at: number, x: number): number {
  while (x >= 0x80) { b[at++] = (x % 128) | 0x80; x = Math.floor(x / 128); }
  b[at++] = x;
  return at;
}

const zigzag = (x: number): number => (x >= 0 ? x * 2 : -x * 2 - 1);

export function encodeSeriesRecord(list: readonly SeriesRec[]): Uint8Array {
  const o = new Out(16 + list.length * 96);
  o.b[o.n++] = REC_SERIES;
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    o.ensure(18);
    o.u64(s.ref);
    o.uvarint(s.labels.length);
    for (let j = 0; j < s.labels.length; j++) { o.str(s.labels[j].name); o.str(s.labels[j].value); }
  }
  return o.done();
}

/** Bytes `encodeSamplesRecord` may need for `n` samples (its header and each sample at their longest). */
export function samplesRecordBound(n: number): number { return 17 + n * 28; }

/**
 * Samples `idx[0..n)` of the parallel arrays as one record; the first sample is the base. `vs` must be a
 * Float64Array so its bytes can be copied. Written into `into` when given (at least `samplesRecordBound(n)`
 * bytes, contents irrelevant: every byte of the record is written), else into a new array.
 */
export function encodeSamplesRecord(refs: ArrayLike<number>, ts: ArrayLike<number>, vs: Float64Array, idx: ArrayLike<number>, n: number, into?: Uint8Array): Uint8Array {
  const b = into ?? new Uint8Array(samplesRecordBound(n));
  b[0] = REC_SAMPLES;
  if (n === 0) return b.subarray(0, 1);
  const vBytes = new Uint8Array(vs.buffer, vs.byteOffset, vs.byteLength);
  const baseRef = refs[idx[0]], baseT = ts[idx[0]];
  let p = putU64(b, putU64(b, 1, baseRef), baseT);
  // Invariant: b[0..p) holds the header and the samples before k.
  for (let k = 0; k < n; k++) {
    const i = idx[k];
    p = putUvarint(b, p, zigzag(refs[i] - baseRef));
    p = putUvarint(b, p, zigzag(ts[i] - baseT));
    const s = i * 8 + 7; // little-endian in memory, big-endian on disk
    b[p] = vBytes[s]; b[p + 1] = vBytes[s - 1]; b[p + 2] = vBytes[s - 2]; b[p + 3] = vBytes[s - 3];
    b[p + 4] = vBytes[s - 4]; b[p + 5] = vBytes[s - 5]; b[p + 6] = vBytes[s - 6]; b[p + 7] = vBytes[s - 7];
    p += 8;
  }
  return b.subarray(0, p);
}

export function encodeTombstonesRecord(list: readonly TombstoneRec[]): Uint8Array {
  const o = new Out(1 + list.length * 28);
  o.b[o.n++] = REC_TOMBSTONES;
  for (let i = 0; i < list.length; i++) {
    o.u64(list[i].ref);
    o.uvarint(zigzag(list[i].mint));
    o.uvarint(zigzag(list[i].maxt));
  }
  return o.done();
}

// ── decoding ────────────────────────────────────────────────────────────────

/** The record's type byte (0 for an empty record, which no writer produces). */
export function recordType(rec: Uint8Array): number {
  return rec.length > 0 ? rec[0] : 0;
}

/** A cursor over one record's bytes; errors name the record's file and the offset inside the record. */
class In {
  p = 1;
  constructor(readonly b: Uint8Array, readonly file: string) {}
  fail(why: string): never { throw new CorruptionError(this.file, this.p, why); }
  u64(): number {
    if (this.p + 8 > this.b.length) this.fail('record ends inside a 64-bit field');
    const b = this.b, p = this.p;
    const hi = ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
    const lo = ((b[p + 4] << 24) | (b[p + 5] << 16) | (b[p + 6] << 8) | b[p + 7]) >>> 0;
    this.p = p + 8;
    return hi * TWO32 + lo;
  }
  i64(): number {
    if (this.p + 8 > this.b.length) this.fail('record ends inside a 64-bit field');
    const b = this.b, p = this.p;
    const hi = (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
    const lo = ((b[p + 4] << 24) | (b[p + 5] << 16) | (b[p + 6] << 8) | b[p + 7]) >>> 0;
    this.p = p + 8;
    return hi * TWO32 + lo;
  }
  uvarint(): number {
    let x = 0, mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.p >= this.b.length) this.fail('record ends inside a varint');
      const c = this.b[this.p++];
      x += (c & 0x7f) * mul;
      if ((c & 0x80) === 0) return x;
      mul *= 128;
    }
    return this.fail('varint overflow');
  }
  varint(): number { const u = this.uvarint(); return u % 2 === 0 ? u / 2 : -(u + 1) / 2; }
  str(): string {
    const len = this.uvarint();
    if (this.p + len > this.b.length) this.fail('record ends inside a string');
    const s = utf8Dec.decode(this.b.subarray(this.p, this.p + len));
    this.p += len;
    return s;
  }
}

function checkType(rec: Uint8Array, want: number, file: string): void {
  if (rec[0] !== want) throw new CorruptionError(file, 0, `record type ${rec[0]} where ${want} was expected`);
}

export function decodeSeriesRecord(rec: Uint8Array, file: string): SeriesRec[] {
  checkType(rec, REC_SERIES, file);
  const r = new In(rec, file);
  const out: SeriesRec[] = [];
  while (r.p < rec.length) {
    const ref = r.u64();
    const nl = r.uvarint();
    const labels: Label[] = new Array(nl);
    let sorted = true;
    for (let j = 0; j < nl; j++) {
      labels[j] = { name: r.str(), value: r.str() };
      if (j > 0 && (labels[j].name <= labels[j - 1].name)) sorted = false;
      if (labels[j].value === '') sorted = false;
    }
    // Prometheus writes label sets sorted by name without empty values; anything else is normalised so the
    // series gets the same identity as when it arrives by scrape or remote write.
    out.push({ ref, labels: sorted ? labels : normalizeLabels(labels) });
  }
  return out;
}

/** Decodes a samples record into `out` (its previous contents are replaced). */
export function decodeSamplesRecord(rec: Uint8Array, file: string, out: SampleBatch): void {
  checkType(rec, REC_SAMPLES, file);
  out.n = 0;
  if (rec.length === 1) return;
  const r = new In(rec, file);
  const baseRef = r.u64(), baseT = r.i64();
  // A sample takes at least 10 bytes (two one-byte varints and the value), which bounds the count.
  out.ensure(Math.ceil((rec.length - 17) / 10) + 1);
  const b = rec;
  let n = 0;
  while (r.p < b.length) {
    const ref = baseRef + r.varint();
    const t = baseT + r.varint();
    if (r.p + 8 > b.length) r.fail('record ends inside a sample value');
    const d = out.vBytes, s = n * 8 + 7, p = r.p;
    d[s] = b[p]; d[s - 1] = b[p + 1]; d[s - 2] = b[p + 2]; d[s - 3] = b[p + 3];
    d[s - 4] = b[p + 4]; d[s - 5] = b[p + 5]; d[s - 6] = b[p + 6]; d[s - 7] = b[p + 7];
    r.p = p + 8;
    out.refs[n] = ref; out.ts[n] = t;
    n++;
  }
  out.n = n;
}

export function decodeTombstonesRecord(rec: Uint8Array, file: string): TombstoneRec[] {
  checkType(rec, REC_TOMBSTONES, file);
  const r = new In(rec, file);
  const out: TombstoneRec[] = [];
  while (r.p < rec.length) out.push({ ref: r.u64(), mint: r.varint(), maxt: r.varint() });
  return out;
}
