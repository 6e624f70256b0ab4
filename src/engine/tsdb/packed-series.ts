/**
 * Fetched series packed for a thread hop: label sets plus two flat sample arrays with offsets, so a query's
 * data crosses to the evaluating worker as two typed arrays instead of two per series.
 */
import type { FetchedSeries, Labels } from './api.ts';

/** Fetched series packed into two flat arrays (one transfer each instead of two per series). */
export interface PackedSeries { labels: Labels[]; offsets: Uint32Array; t: Float64Array; v: Float64Array }

export function packSeries(list: readonly FetchedSeries[]): PackedSeries {
  let n = 0;
  for (const s of list) n += s.t.length;
  const t = new Float64Array(n), v = new Float64Array(n), offsets = new Uint32Array(list.length + 1);
  let o = 0;
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    t.set(s.t, o); v.set(s.v, o);
    o += s.t.length;
    offsets[i + 1] = o;
  }
  return { labels: list.map((s) => s.labels), offsets, t, v };
}

/** The inverse of `packSeries`; the series are views into the flat arrays. */
export function unpackSeries(p: PackedSeries): FetchedSeries[] {
  const t = toF64(p.t), v = toF64(p.v);
  const offsets = p.offsets instanceof Uint32Array ? p.offsets : Uint32Array.from(p.offsets as ArrayLike<number>);
  return p.labels.map((labels, i) => ({ labels, t: t.subarray(offsets[i], offsets[i + 1]), v: v.subarray(offsets[i], offsets[i + 1]) }));
}

/** The encoded `data` object without its closing brace, as UTF-8 bytes (bytes cross threads without re-encoding). */

/** msgpack may hand typed arrays back as byte views or plain arrays; normalise to Float64Array. */
function toF64(x: unknown): Float64Array {
  if (x instanceof Float64Array) return x;
  if (x instanceof Uint8Array) return new Float64Array(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength));
  return Float64Array.from(x as number[]);
}
