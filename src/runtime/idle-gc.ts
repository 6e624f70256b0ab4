/**
 * Garbage collection when a thread goes idle after heavy allocation — the role of the JVM's periodic GC for
 * idle applications (G1PeriodicGCInterval). V8 collects when allocation goes on; once a bulk load stops, the
 * garbage it left (parsed documents, indexing buffers written to disk, request bodies) would otherwise stay
 * resident until the next burst of work. Every `checkMs`, a thread that ran no work since the previous check
 * (no task, and its event loop active under 5% of the interval) and whose heap plus ArrayBuffer memory grew by
 * `thresholdBytes` since the last collection runs one full collection. With `backgroundChecks`, a thread
 * whose only work for that many checks in a row was its own background work (a shard worker's merges after a
 * bulk load, which run for seconds) collects too, once it grew by `BACKGROUND_GROWTH`× the threshold: no
 * client is waiting on it, and the load's garbage would otherwise stay resident for as long as the merges
 * run. A thread with tasks is never interrupted, and one that allocated little is left alone.
 *
 * A check that finds heap plus ArrayBuffer memory `thresholdBytes` below its peak since the last release
 * (this collection's work, or V8's own) gives the allocator's free memory back to the system
 * (`releaseFreeMemory`): without it, freed backing stores and native buffers stay resident in fragmented malloc
 * arenas. It runs a check after the collection, because V8 frees backing stores on a background thread, and only
 * when the thread is idle in a process whose threads together were idle too, or when the thread's only work
 * was its own background work for `backgroundChecks` checks (see `shouldRelease`).
 *
 * Collects with V8's `gc` function (v8-gc.ts).
 */
import { performance } from 'node:perf_hooks';
import { releaseFreeMemory } from './malloc-trim.ts';
import { collectGarbage } from './v8-gc.ts';

export interface IdleGc {
  /** Marks work on this thread (a request, a task); collections wait for a quiet interval. */
  busy(): void;
  stop(): void;
}

/** Share of a check interval the event loop may be active and the thread still count as idle. */
const BUSY_SHARE = 0.05;
/**
 * Checks in a row without a task after which a shard worker's background work no longer defers a collection.
 * Three (1.5 s at the default interval): a worker fed every second — one-second scrapes — has a task within
 * every two consecutive checks, so only a worker its clients have left qualifies.
 */
export const BACKGROUND_CHECKS = 3;
/** Growth (or, for a release, shrinkage), in thresholds, that a collection (release) during background work waits for. */
const BACKGROUND_GROWTH = 4;

/** What one check saw: a task ran, the event loop's own activity, growth since the last collection. */
export interface CheckState {
  worked: boolean; activeMs: number; checkMs: number; checksWithoutTask: number; grownBytes: number; thresholdBytes: number;
  /** 0: background work always defers collections. */
  backgroundChecks: number;
}

/** Whether a check runs a full collection. */
export function shouldCollect(c: CheckState): boolean {
  if (c.worked || c.grownBytes < c.thresholdBytes) return false;
  if (c.activeMs <= c.checkMs * BUSY_SHARE) return true;
  return c.backgroundChecks > 0 && c.checksWithoutTask >= c.backgroundChecks && c.grownBytes >= c.thresholdBytes * BACKGROUND_GROWTH;
}

/** What one check saw for a release: besides `CheckState`, how far memory fell and the whole process's CPU. */
export interface ReleaseState {
  worked: boolean; activeMs: number; checkMs: number; checksWithoutTask: number; backgroundChecks: number;
  /** Heap plus ArrayBuffer bytes below their peak since the last release. */
  shrunkBytes: number; thresholdBytes: number;
  /** CPU time of all the process's threads during the check interval, this collector's own excluded. */
  processCpuMs: number;
}

/**
 * Whether a check gives free malloc memory back. malloc_trim walks and locks every thread's arena and hands back
 * pages others may be about to reuse, so an idle thread does it only when the whole process is quiet. A thread
 * whose only work for `backgroundChecks` checks was its own (a shard worker merging after a bulk load) does it
 * during that work: merges run for seconds after a load, and until they ended the arenas kept the load's freed
 * buffers resident (measured, 1M documents: 741 MB anonymous 3 s after the flush, 388 MB after one trim then).
 * The trim costs that thread about 0.1 s, and no client waits on it.
 */
export function shouldRelease(r: ReleaseState): boolean {
  if (r.worked || r.shrunkBytes < r.thresholdBytes) return false;
  if (r.activeMs <= r.checkMs * BUSY_SHARE && r.processCpuMs < r.checkMs * BUSY_SHARE) return true;
  // During background work, as for collections, only once it fell by several thresholds: merges free and
  // allocate as they go, and each trim costs the merging thread time.
  return r.backgroundChecks > 0 && r.checksWithoutTask >= r.backgroundChecks && r.shrunkBytes >= r.thresholdBytes * BACKGROUND_GROWTH;
}

/** Heap plus the ArrayBuffers this thread allocated (`arrayBuffers` counts only its own allocator's). */
export function usedBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Heap plus all external memory, ArrayBuffers other threads transferred in included: V8 counts those in this
 * isolate's external memory, while `arrayBuffers` leaves them to the thread that allocated them.
 */
export function usedWithTransferredBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** `used` is the figure growth is measured on (`usedWithTransferredBytes` for a thread fed transferred arrays). */
export function startIdleGc(checkMs = 500, thresholdBytes = 16 * 1024 * 1024, backgroundChecks = 0, used = usedBytes): IdleGc {
  const usedBytes = used;
  let worked = false;
  let base = usedBytes();
  let peak = base;
  let lastElu = performance.eventLoopUtilization();
  let lastCpu = process.cpuUsage();
  /** Event-loop time this collector itself spent since the last check (not work of the thread's own). */
  let ownMs = 0;
  let checksWithoutTask = 0;
  const timer = setInterval(() => {
    const used = usedBytes();
    // The lowest figure since a collection is its true result: V8 frees backing stores after the collection
    // returns, and collects on its own too.
    if (used < base) base = used;
    if (used > peak) peak = used;
    // Idle means no task started (`busy`) and the event loop nearly unused: background work that runs between
    // tasks (merges, refreshes, flushes) counts as busy too, unless `backgroundChecks` says how long it may.
    const elu = performance.eventLoopUtilization();
    const activeMs = performance.eventLoopUtilization(elu, lastElu).active - ownMs;
    lastElu = elu;
    const cpu = process.cpuUsage();
    const processCpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000 - ownMs;
    lastCpu = cpu;
    ownMs = 0;
    checksWithoutTask = worked ? 0 : checksWithoutTask + 1;
    const collectNow = shouldCollect({ worked, activeMs, checkMs, checksWithoutTask, grownBytes: used - base, thresholdBytes, backgroundChecks });
    const releaseNow = !collectNow && shouldRelease({ worked, activeMs, checkMs, checksWithoutTask, backgroundChecks, shrunkBytes: peak - used, thresholdBytes, processCpuMs });
    worked = false;
    if (!collectNow && !releaseNow) return;
    const t0 = performance.now();
    if (collectNow) {
      collectGarbage();
      base = usedBytes();
    } else {
      releaseFreeMemory();
      peak = used;
    }
    ownMs = performance.now() - t0;
  }, checkMs);
  timer.unref();
  return { busy: () => { worked = true; }, stop: () => clearInterval(timer) };
}
