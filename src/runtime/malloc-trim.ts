/**
 * Gives the C allocator's free memory back to the system (glibc's `malloc_trim(0)`, called through koffi's FFI),
 * and keeps it giving memory back by itself (`mallopt`, `holdAllocatorThresholds`).
 *
 * Node allocates ArrayBuffer backing stores, and the native modules (zlib, roaring, LMDB, snappy) their buffers,
 * with malloc. glibc returns freed memory only from the top of each arena, so after a bulk load or a burst of
 * searches the arenas stay resident, fragmented, long after the garbage collector freed their contents
 * (measured after 200,000 documents and a full collection: 390 MB of anonymous memory in arenas; `malloc_trim`
 * releases all but a few MB of it in ~0.1 s). Called by the idle collector, never on a busy thread.
 *
 * Elsewhere than glibc (musl, macOS) there are no such calls: both functions then do nothing.
 */
import { createRequire } from 'node:module';

interface Libc {
  mallocTrim(pad: number): number;
  mallopt(param: number, value: number): number;
}

let libc: Libc | null | undefined;

/** glibc's calls, loaded at first use; null where there are none. */
function libcCalls(): Libc | null {
  if (libc === undefined) libc = load();
  return libc;
}

function load(): Libc | null {
  if (process.platform !== 'linux') return null;
  try {
    const lib = (createRequire(import.meta.url)('koffi') as typeof import('koffi')).load('libc.so.6');
    return {
      mallocTrim: lib.func('int malloc_trim(size_t pad)') as (pad: number) => number,
      mallopt: lib.func('int mallopt(int param, int value)') as (param: number, value: number) => number,
    };
  } catch {
    return null;
  }
}

/** Returns free pages of every malloc arena to the system; false when the platform has no such call. */
export function releaseFreeMemory(): boolean {
  const c = libcCalls();
  if (c === null) return false;
  c.mallocTrim(0);
  return true;
}

/** glibc's `mallopt` parameters (malloc.h). */
const M_TRIM_THRESHOLD = -1, M_MMAP_THRESHOLD = -3;
/**
 * Blocks from this size up are mapped on their own (and unmapped when freed): the highest value glibc's own
 * adjustment reaches. At glibc's starting value (128 KB) every read-ahead window and large query buffer was a
 * mapping of its own, and range queries took 1.3–1.6× the CPU (bench/promql/server-ab.ts).
 */
const MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024;
/** Free memory at the top of an arena beyond this goes back to the system when a block is freed. */
const TRIM_THRESHOLD_BYTES = 1024 * 1024;

/**
 * Fixes glibc's two thresholds at the values above, process-wide (every thread's arena); false when the platform
 * has no such call. Left to themselves they rise together: each time a mapped block is freed, glibc raises the
 * mapping threshold to its size (up to 32 MB) and the trim threshold to twice that, so up to 64 MB of free memory
 * at the top of each arena stayed resident — and `malloc_trim` never returns that part for the arenas of threads
 * other than the main one. 70 s after the 30-day query list: 150–200 MB of anonymous memory, most of it arenas
 * with ~22 MB in use; with the thresholds held, ~80 MB (docs/benchmarks.md, issue 11).
 */
export function holdAllocatorThresholds(): boolean {
  const c = libcCalls();
  if (c === null) return false;
  return c.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1 && c.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) === 1;
}
