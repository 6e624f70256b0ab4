/**
 * What the calling thread itself spends over a stretch of a bench: its own CPU time (`/proc/thread-self/schedstat`,
 * in ns, so the threads LMDB, libuv and V8's GC helpers run on are not billed to it as they are in
 * `process.cpuUsage()`), and the bytes its isolate allocated (heap growth between GCs, summed with V8's
 * `GCProfiler`: a GC frees what it collects, so the heap's size alone undercounts).
 */
import { readFileSync } from 'node:fs';
import { GCProfiler, getHeapStatistics } from 'node:v8';

interface GcEntry { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }

function threadCpuNs(): number {
  return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]);
}

/** Starts measuring; the returned function stops and gives the CPU (µs) and bytes allocated since. */
export function startThreadCost(): () => { cpuUs: number; allocatedBytes: number; gcs: number } {
  const cpu0 = threadCpuNs();
  const used0 = getHeapStatistics().used_heap_size;
  const profiler = new GCProfiler();
  profiler.start();
  return () => {
    const cpuUs = (threadCpuNs() - cpu0) / 1000;
    const usedEnd = getHeapStatistics().used_heap_size;
    const gcs = (profiler.stop()?.statistics ?? []) as GcEntry[];
    let allocated = 0;
    let after = used0;
    for (const g of gcs) {
      allocated += Math.max(0, g.beforeGC.heapStatistics.usedHeapSize - after);
      after = g.afterGC.heapStatistics.usedHeapSize;
    }
    allocated += Math.max(0, usedEnd - after);
    return { cpuUs, allocatedBytes: allocated, gcs: gcs.length };
  };
}
