/**
 * CRC-32C (Castagnoli) — the checksum of every framed record and footer on disk (see docs/format.md,
 * "Conventions"). Adapter over `@node-rs/crc32`, which uses the SSE4.2/ARMv8 CRC instructions when present.
 */
import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/**
 * CRC-32C of `bytes`. Pass the result of a previous call as `initial` to continue a checksum over
 * several discontiguous ranges (crc(a‖b) === crc32c(b, crc32c(a))). Returns an unsigned 32-bit integer.
 */
export function crc32c(bytes: Uint8Array, initial = 0): number {
  return nativeCrc32c(bytes, initial) >>> 0;
}
