/**
 * Garbage collection when a thread goes idle after heavy allocation — the role of the JVM's periodic GC for
 * idle applications (G1PeriodicGCInterval). V8 collects when allocation goes on; once a bulk load stops, the
 * garbage it left (parsed documents, indexing buffers written to disk, request bodies) would otherwise stay
 * resident until the next burst of work. Every `checkMs`, a thread that ran no work since the previous check
 * and whose heap plus ArrayBuffer memory grew by `thresholdBytes` since the last collection runs one full
 * collection. A busy thread is never interrupted, and an idle one that allocated little is left alone.
 *
 * An idle check that finds heap plus ArrayBuffer memory `thresholdBytes` below its peak since the last release
 * (this collection's work, or V8's own) gives the allocator's free memory back to the system
 * (`releaseFreeMemory`): without it, freed backing stores and native buffers stay resident in fragmented malloc
 * arenas. It runs a check after the collection, because V8 frees backing stores on a background thread.
 *
 * Uses V8's `gc` function, exposed at start-up (`--expose-gc` set from inside the process).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { releaseFreeMemory } from './malloc-trim.ts';

export interface IdleGc {
  /** Marks work on this thread (a request, a task); collections wait for a quiet interval. */
  busy(): void;
  stop(): void;
}

let collect: (() => void) | null = null;

function gcFunction(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

function usedBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export function startIdleGc(checkMs = 500, thresholdBytes = 16 * 1024 * 1024): IdleGc {
  const gc = gcFunction();
  let worked = false;
  let base = usedBytes();
  let peak = base;
  const timer = setInterval(() => {
    const used = usedBytes();
    // The lowest figure since a collection is its true result: V8 frees backing stores after the collection
    // returns, and collects on its own too.
    if (used < base) base = used;
    if (used > peak) peak = used;
    if (worked) { worked = false; return; }
    if (used - base >= thresholdBytes) {
      gc();
      base = usedBytes();
    } else if (peak - used >= thresholdBytes) {
      releaseFreeMemory();
      peak = used;
    }
  }, checkMs);
  timer.unref();
  return { busy: () => { worked = true; }, stop: () => clearInterval(timer) };
}
