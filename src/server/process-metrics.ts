/** Process and worker figures for `/metrics`: memory, CPU, start time, shard worker queue depths. */
import type { ShardPool } from './pool.ts';
import type { SelfMetrics } from './self-metrics.ts';

export function registerProcessMetrics(metrics: SelfMetrics, pool: ShardPool): void {
  const startSeconds = Math.floor(Date.now() / 1000 - process.uptime());
  metrics.gauge('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', [], () => {
    const u = process.cpuUsage();
    return [[[], (u.user + u.system) / 1e6]];
  }, 'counter');
  metrics.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [], () => [[[], process.memoryUsage.rss()]]);
  metrics.gauge('process_heap_bytes', 'Main-thread V8 heap in use, in bytes.', [], () => [[[], process.memoryUsage().heapUsed]]);
  metrics.gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', [], () => [[[], startSeconds]]);
  metrics.gauge('tessera_worker_queue_depth', 'Calls queued or running per shard worker.', ['worker'], () => {
    const out: [string[], number][] = [];
    for (let i = 0; i < pool.size; i++) out.push([[String(i)], pool.depth(i)]);
    return out;
  });
}
