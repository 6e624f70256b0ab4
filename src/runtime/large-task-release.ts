/**
 * Memory a large task leaves behind, given back as soon as the task is answered. A 30-day range select grows a
 * shard worker's V8 heap from ~30 to ~85 MB of which ~28 MB stays in use, and a query thread frees the tens of MB
 * of chunks it was sent into malloc's arenas. Left alone, V8 shrinks the heap when its memory reducer runs, ~20 s
 * later, and the arenas are trimmed once the whole process is idle (idle-gc.ts): until then the node held more
 * than Prometheus after the same queries (docs/benchmarks.md, issue 11).
 *
 * When the last running task of a thread ends, the thread runs one full collection if its heap grew by
 * `GROWN_BYTES` while tasks ran, and gives free malloc memory back (`releaseFreeMemory`) if its tasks freed
 * `FREED_BYTES` of buffers. Both run on the next event-loop turn, after the reply has been posted, and each at
 * most once per `MIN_INTERVAL_MS`: a full collection costs the thread 20–100 ms, a trim 20–140 ms (measured on the
 * 30-day list), so a stream of large tasks pays them once a second at most, and the idle collector still does the
 * rest when the thread goes quiet.
 */
import { releaseFreeMemory } from './malloc-trim.ts';
import { collectGarbage } from './v8-gc.ts';

/** V8 heap growth over a thread's tasks from which it collects when they end. */
export const GROWN_BYTES = 32 * 1024 * 1024;
/** Buffers a thread's tasks freed from which it trims malloc's arenas when they end. */
export const FREED_BYTES = 16 * 1024 * 1024;
/** Least time between two collections (two trims) of one thread. */
export const MIN_INTERVAL_MS = 1000;

/** What the thread saw when its last running task ended. */
export interface TaskEndState {
  /** Tasks still running on the thread (the decision waits for the last one). */
  tasksRunning: number;
  /** Reserved V8 heap now less what it was when the first of these tasks started. */
  heapGrownBytes: number;
  /** Buffers these tasks freed (`ended`'s argument, summed). */
  freedBytes: number;
  msSinceCollect: number;
  msSinceTrim: number;
}

/** Whether the thread collects, and whether it trims, once these tasks ended. */
export function releaseAfterTasks(s: TaskEndState): { collect: boolean; trim: boolean } {
  if (s.tasksRunning > 0) return { collect: false, trim: false };
  return {
    collect: s.heapGrownBytes >= GROWN_BYTES && s.msSinceCollect >= MIN_INTERVAL_MS,
    trim: s.freedBytes >= FREED_BYTES && s.msSinceTrim >= MIN_INTERVAL_MS,
  };
}

export interface LargeTaskRelease {
  /** A task starts on this thread. */
  started(): void;
  /** A task has been answered; `freedBytes` of buffers it held have been freed. */
  ended(freedBytes?: number): void;
}

/** `heapBytes` and `now` are the V8 heap's reserved size and the clock, replaced by tests. */
export function startLargeTaskRelease(heapBytes = () => process.memoryUsage().heapTotal, now = () => performance.now()): LargeTaskRelease {
  let running = 0;
  let heapAtStart = 0;
  let freed = 0;
  let lastCollect = -Infinity;
  let lastTrim = -Infinity;
  return {
    started() {
      if (running++ === 0) { heapAtStart = heapBytes(); freed = 0; }
    },
    ended(freedBytes = 0) {
      running = Math.max(0, running - 1);
      freed += freedBytes;
      const t = now();
      const { collect, trim } = releaseAfterTasks({ tasksRunning: running, heapGrownBytes: heapBytes() - heapAtStart, freedBytes: freed, msSinceCollect: t - lastCollect, msSinceTrim: t - lastTrim });
      if (!collect && !trim) return;
      if (collect) lastCollect = t;
      if (trim) lastTrim = t;
      // Two event-loop turns on: the reply has been posted, and buffers freed by closing the ports they were
      // posted to (release-buffers.ts) are gone — ports close at the end of the turn that closed them.
      setImmediate(() => setImmediate(() => {
        if (running > 0) return;
        if (collect) collectGarbage();
        if (trim) releaseFreeMemory();
      }));
    },
  };
}
