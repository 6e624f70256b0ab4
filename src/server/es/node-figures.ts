/** This process's figures that several ES endpoints report: the data directory's file system and the heap limit. */
import { statfsSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

export interface DiskUsage { totalBytes: number; freeBytes: number; availableBytes: number; usedBytes: number }

/** The file system holding `dir` (`_nodes/stats` fs, `_cat/allocation`). */
export function diskUsage(dir: string): DiskUsage {
  const f = statfsSync(dir);
  const totalBytes = f.blocks * f.bsize, freeBytes = f.bfree * f.bsize;
  return { totalBytes, freeBytes, availableBytes: f.bavail * f.bsize, usedBytes: totalBytes - freeBytes };
}

/** The V8 heap limit (what `--max-old-space-size` sets), the analogue of the JVM's -Xmx. */
export function heapLimit(): number {
  return getHeapStatistics().heap_size_limit;
}
