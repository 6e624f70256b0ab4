/**
 * Where ingested samples go. The server passes its TSDB client (which routes series to the shard that
 * owns them); tests pass an in-memory sink. Resolving means the samples are durable in the WAL.
 */
import { STALE_NAN_HI, STALE_NAN_LO, type Labels } from '../tsdb/api.ts';

export interface IngestSample { labels: Labels; t: number; v: number }

export interface SampleSink {
  append(samples: IngestSample[]): Promise<unknown>;
}

const bits = new DataView(new ArrayBuffer(8));
bits.setUint32(0, STALE_NAN_HI);
bits.setUint32(4, STALE_NAN_LO);
/** Prometheus's staleness marker as a float64 (bit pattern 0x7ff0000000000002). */
export const STALE_NAN = bits.getFloat64(0);

/** True when `v` carries the exact stale-marker bit pattern (an ordinary NaN does not). */
export function isStaleNaN(v: number): boolean {
  if (!Number.isNaN(v)) return false;
  bits.setFloat64(0, v);
  return bits.getUint32(0) === STALE_NAN_HI && bits.getUint32(4) === STALE_NAN_LO;
}

/** `{a="1",b="2"}`-style key for a sorted label set; used for identity in maps. */
export function labelsKey(labels: Labels): string {
  let k = '';
  for (let i = 0; i < labels.length; i++) k += labels[i].name + '\u0000' + labels[i].value + '\u0001';
  return k;
}
