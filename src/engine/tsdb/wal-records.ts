/**
 * The TSDB's WAL record payloads (docs/format.md "TSDB WAL records"): series (ref + labels), samples (ref,
 * t, raw value bits) and tombstones (ref + interval). The same encodings fill the checkpoint file.
 */
import type { Label, Labels } from './api.ts';
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';

import { TSDB_REC_SAMPLES, TSDB_REC_SERIES, TSDB_REC_TOMBSTONES } from '../codec/format-ids.ts';

export const REC_SERIES = TSDB_REC_SERIES, REC_SAMPLES = TSDB_REC_SAMPLES, REC_TOMBSTONES = TSDB_REC_TOMBSTONES;

export interface SeriesRec { ref: number; labels: Labels }

/** Samples of one record as parallel arrays (values as float64 so NaN bits are exact). */
export interface SamplesRec { refs: Float64Array; ts: Float64Array; vs: Float64Array; n: number }

export interface TombstoneRec { ref: number; mint: number; maxt: number }

export function encodeSeries(list: readonly SeriesRec[]): Uint8Array {
  const w = new ByteWriter(64 + list.length * 64);
  w.uvarint(list.length);
  for (const s of list) {
    w.uvarint(s.ref);
    w.uvarint(s.labels.length);
    for (const l of s.labels) { w.str(l.name); w.str(l.value); }
  }
  return w.finish();
}

export function decodeSeries(b: Uint8Array, file = 'wal series record'): SeriesRec[] {
  const r = new ByteReader(b, file);
  const n = r.uvarint();
  const out: SeriesRec[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const ref = r.uvarint();
    const nl = r.uvarint();
    const labels: Label[] = new Array(nl);
    for (let j = 0; j < nl; j++) labels[j] = { name: r.str(), value: r.str() };
    out[i] = { ref, labels };
  }
  return out;
}

/** Samples: count, then per sample zig-zag deltas of ref and t against the previous sample, then 8 value bytes. */
export function encodeSamples(refs: ArrayLike<number>, ts: ArrayLike<number>, vs: Float64Array, idx: ArrayLike<number>, n: number): Uint8Array {
  const w = new ByteWriter(16 + n * 14);
  w.uvarint(n);
  let pr = 0, pt = 0;
  for (let k = 0; k < n; k++) {
    const i = idx[k];
    w.varint(refs[i] - pr); pr = refs[i];
    w.varint(ts[i] - pt); pt = ts[i];
    w.f64From(vs, i);
  }
  return w.finish();
}

export function decodeSamples(b: Uint8Array, file = 'wal samples record'): SamplesRec {
  const r = new ByteReader(b, file);
  const n = r.uvarint();
  const refs = new Float64Array(n), ts = new Float64Array(n), vs = new Float64Array(n);
  let pr = 0, pt = 0;
  for (let i = 0; i < n; i++) {
    pr += r.varint(); refs[i] = pr;
    pt += r.varint(); ts[i] = pt;
    r.f64Into(vs, i);
  }
  return { refs, ts, vs, n };
}

export function encodeTombstones(list: readonly TombstoneRec[]): Uint8Array {
  const w = new ByteWriter(16 + list.length * 16);
  w.uvarint(list.length);
  for (const t of list) { w.uvarint(t.ref); w.varint(t.mint); w.varint(t.maxt); }
  return w.finish();
}

export function decodeTombstones(b: Uint8Array, file = 'wal tombstones record'): TombstoneRec[] {
  const r = new ByteReader(b, file);
  const n = r.uvarint();
  const out: TombstoneRec[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { ref: r.uvarint(), mint: r.varint(), maxt: r.varint() };
  return out;
}
