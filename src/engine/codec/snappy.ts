/**
 * The only module that imports `snappy` (raw block format, the one Prometheus uses for WAL records and
 * remote-write bodies — not the framed stream format).
 *
 * MEMORY TRAP (measured on these machines, see architecture.md "Known traps"): the native binding returns
 * external buffers that V8 releases only after the event loop turns. Back-to-back `compressSync` /
 * `uncompressSync` calls in a tight synchronous loop grew RSS to 16–24 GB within seconds. Callers must either
 * use the async functions or yield to the event loop (`await yieldToLoop()`) between bounded batches — the
 * WAL does the latter, every `SNAPPY_SYNC_BUDGET_BYTES` of input.
 */
import * as snappy from 'snappy';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';

/** Input bytes a caller may push through the sync functions before it must yield to the event loop. */
export const SNAPPY_SYNC_BUDGET_BYTES = 8 * 1024 * 1024;

/** Compresses off the JS thread (libuv pool). */
export function compress(input: Uint8Array): Promise<Buffer> {
  return snappy.compress(input);
}

/** Decompresses off the JS thread. Rejects on malformed input. */
export async function uncompress(input: Uint8Array): Promise<Buffer> {
  return (await snappy.uncompress(input, { asBuffer: true })) as Buffer;
}

/** Synchronous compression; see the memory trap above — yield between batches. */
export function compressSync(input: Uint8Array): Buffer {
  return snappy.compressSync(input);
}

/** Synchronous decompression; throws on malformed input. See the memory trap above. */
export function uncompressSync(input: Uint8Array): Buffer {
  return snappy.uncompressSync(input, { asBuffer: true }) as Buffer;
}

/** Lets the event loop turn so that native buffers from the sync calls can be released. */
export function yieldToLoop(): Promise<void> {
  return setImmediatePromise();
}

/**
 * Decompresses a raw snappy block in JS into `dst` when it fits (else into a new array) and returns a view of
 * the result. Used on read paths that run many small blocks in a row (stored fields), where the native
 * binding's external buffers would pile up until the event loop turns. Throws `Error` on malformed input;
 * callers check a CRC first, so that means a bug, not damage.
 */
export function uncompressInto(src: Uint8Array, dst: Uint8Array | null): Uint8Array {
  let p = 0, len = 0, shift = 0;
  for (;;) {
    const b = src[p++];
    len += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
    shift += 7;
    if (shift > 35 || p >= src.length) throw new Error('snappy: bad length');
  }
  const out = dst && dst.length >= len ? dst.subarray(0, len) : new Uint8Array(len);
  let o = 0;
  while (p < src.length) {
    const tag = src[p++];
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        const bytes = n - 59;
        n = 0;
        for (let i = 0; i < bytes; i++) n += src[p++] * 2 ** (8 * i);
      }
      n += 1;
      if (p + n > src.length || o + n > len) throw new Error('snappy: literal out of range');
      out.set(src.subarray(p, p + n), o);
      p += n; o += n;
      continue;
    }
    let n: number, off: number;
    if (kind === 1) { n = ((tag >>> 2) & 7) + 4; off = ((tag >>> 5) << 8) | src[p++]; }
    else if (kind === 2) { n = (tag >>> 2) + 1; off = src[p] | (src[p + 1] << 8); p += 2; }
    else { n = (tag >>> 2) + 1; off = (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24)) >>> 0; p += 4; }
    if (off === 0 || off > o || o + n > len) throw new Error('snappy: copy out of range');
    // Copies may overlap their own output (run-length style), so copy byte by byte when they do.
    if (off >= n) out.copyWithin(o, o - off, o - off + n);
    else for (let i = 0; i < n; i++) out[o + i] = out[o - off + i];
    o += n;
  }
  if (o !== len) throw new Error('snappy: short output');
  return out;
}
