/**
 * Prometheus's staleness marker: a NaN with the exact bit pattern 0x7ff0000000000002. An ordinary NaN is a
 * value; this one says "the series ended here". Re-exported by `api.ts`.
 */

/** The marker's high and low 32-bit words. */
export const STALE_NAN_HI = 0x7ff00000, STALE_NAN_LO = 0x00000002;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
if (LITTLE) { u32[1] = STALE_NAN_HI; u32[0] = STALE_NAN_LO; } else { u32[0] = STALE_NAN_HI; u32[1] = STALE_NAN_LO; }

/** The stale marker as a float64 (its payload survives Float64Array and msgpack round trips). */
export const STALE_NAN = f64[0];

/** True when `v` carries the exact stale-marker bit pattern (an ordinary NaN does not). */
export function isStaleNaN(v: number): boolean {
  if (v === v) return false;
  f64[0] = v;
  return LITTLE ? (u32[1] === STALE_NAN_HI && u32[0] === STALE_NAN_LO) : (u32[0] === STALE_NAN_HI && u32[1] === STALE_NAN_LO);
}
