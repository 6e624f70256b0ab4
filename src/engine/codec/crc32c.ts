/**
 * CRC-32C (Castagnoli) — the checksum of every framed record and footer on disk (see docs/format.md,
 * "Conventions"). Adapter over `@node-rs/crc32`, which uses the SSE4.2/ARMv8 CRC instructions when present.
 */
import { createRequire } from 'node:module';

/**
 * Loaded with `require`, not `import`: an ES import of a CommonJS package makes Node scan its source for named
 * exports (cjs-module-lexer), and this package's loader is long enough that V8 optimises the scanner in every
 * thread that starts — about 130 ms of compiling per thread at start-up (docs/benchmarks.md, issue 11).
 */
const { crc32c: nativeCrc32c } = createRequire(import.meta.url)('@node-rs/crc32') as typeof import('@node-rs/crc32');

/**
 * CRC-32C of `bytes`. Pass the result of a previous call as `initial` to continue a checksum over
 * several discontiguous ranges (crc(a‖b) === crc32c(b, crc32c(a))). Returns an unsigned 32-bit integer.
 */
export function crc32c(bytes: Uint8Array, initial = 0): number {
  return nativeCrc32c(bytes, initial) >>> 0;
}

/** Byte-at-a-time table of the reflected Castagnoli polynomial, for `crc32cShort`. */
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/**
 * `crc32c(bytes.subarray(start, end), initial)` computed here, for a few bytes (a record header): the native
 * call costs about a microsecond whatever the length, and a subarray besides — on a bulk load, a record's two
 * checksum calls were 3% of a shard worker. Use `crc32c` for anything longer than a few dozen bytes.
 */
export function crc32cShort(bytes: Uint8Array, start: number, end: number, initial = 0): number {
  let c = ~initial;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
