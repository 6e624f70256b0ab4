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
import { createRequire } from 'node:module';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';

/** Loaded with `require` for the reason crc32c.ts gives: an ES import scans the package's CommonJS source first. */
const snappy = createRequire(import.meta.url)('snappy') as typeof import('snappy');

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

