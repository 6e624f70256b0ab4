/**
 * Gives the C allocator's free memory back to the system (glibc's `malloc_trim(0)`, called through koffi's FFI).
 *
 * Node allocates ArrayBuffer backing stores, and the native modules (zlib, roaring, LMDB, snappy) their buffers,
 * with malloc. glibc returns freed memory only from the top of each arena, so after a bulk load or a burst of
 * searches the arenas stay resident, fragmented, long after the garbage collector freed their contents
 * (measured after 200,000 documents and a full collection: 390 MB of anonymous memory in arenas; `malloc_trim`
 * releases all but a few MB of it in ~0.1 s). Called by the idle collector, never on a busy thread.
 *
 * Elsewhere than glibc (musl, macOS) there is no such call: `releaseFreeMemory` then does nothing.
 */
import { createRequire } from 'node:module';

let trim: ((pad: number) => number) | null | undefined;

function load(): ((pad: number) => number) | null {
  if (process.platform !== 'linux') return null;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
  } catch {
    return null;
  }
}

/** Returns free pages of every malloc arena to the system; false when the platform has no such call. */
export function releaseFreeMemory(): boolean {
  if (trim === undefined) trim = load();
  if (trim === null) return false;
  trim(0);
  return true;
}
