/**
 * Hand-built protobuf bytes for tests of the remote-write reader: every field spelled out, so that a test
 * can put a field where no encoder would (unknown fields, wrong wire types, truncation, interleaving).
 */

export function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}

export const tag = (field: number, wireType: number): number[] => varint(field * 8 + wireType);
export const bytesField = (field: number, body: number[]): number[] => [...tag(field, 2), ...varint(body.length), ...body];
export const strField = (field: number, s: string): number[] => bytesField(field, [...Buffer.from(s)]);
export const varintField = (field: number, n: number | bigint): number[] => [...tag(field, 0), ...varint(n)];

export function doubleField(field: number, v: number): number[] {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return [...tag(field, 1), ...b];
}

/** A `Label` message. */
export const label = (name: string, value: string): number[] => [...strField(1, name), ...strField(2, value)];
/** A `Sample` message (value, then timestamp, as Prometheus writes them). */
export const sample = (v: number, t: number | bigint): number[] => [...doubleField(1, v), ...varintField(2, t)];
/** A `TimeSeries` message: labels first, then samples. */
export function series(labels: [string, string][], samples: [number, number | bigint][]): number[] {
  const out: number[] = [];
  for (const [n, v] of labels) out.push(...bytesField(1, label(n, v)));
  for (const [v, t] of samples) out.push(...bytesField(2, sample(v, t)));
  return out;
}
/** A `WriteRequest` of the given TimeSeries bodies. */
export const writeRequest = (...ts: number[][]): Uint8Array => Uint8Array.from(ts.flatMap((s) => bytesField(1, s)));
