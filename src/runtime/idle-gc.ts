/**
 * Garbage collection when a thread goes idle after heavy allocation — the role of the JVM's periodic GC for
 * idle applications (G1PeriodicGCInterval). V8 collects when allocation goes on; once a bulk load stops, the
 * garbage it left (parsed documents, indexing buffers written to disk, request bodies) would otherwise stay
 * resident until the next burst of work. Every `checkMs`, a thread that ran no work since the previous check
 * and whose heap plus ArrayBuffer memory grew by `thresholdBytes` since the last collection runs one full
 * collection. A busy thread is never interrupted, and an idle one that allocated little is left alone.
 *
 * Uses V8's `gc` function, exposed at start-up (`--expose-gc` set from inside the process).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

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

export function startIdleGc(checkMs = 1000, thresholdBytes = 32 * 1024 * 1024): IdleGc {
  const gc = gcFunction();
  let worked = false;
  let base = usedBytes();
  const timer = setInterval(() => {
    if (worked) { worked = false; return; }
    if (usedBytes() - base < thresholdBytes) return;
    gc();
    base = usedBytes();
  }, checkMs);
  timer.unref();
  return { busy: () => { worked = true; }, stop: () => clearInterval(timer) };
}
