/** Process and worker figures for `/metrics`: memory, CPU, start time, shard worker queue depths. */
import type { ShardPool } from './pool.ts';
import type { WorkerFigures } from '../workers/protocol.ts';
import type { SelfMetrics } from './self-metrics.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { walThreadTotals } from '../engine/wal/index.ts';

export function registerProcessMetrics(metrics: SelfMetrics, pool: ShardPool): void {
  const startSeconds = Math.floor(Date.now() / 1000 - process.uptime());
  metrics.gauge('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', [], () => {
    const u = process.cpuUsage();
    return [[[], (u.user + u.system) / 1e6]];
  }, 'counter');
  metrics.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', [], () => [[[], process.memoryUsage.rss()]]);
  if (process.platform === 'linux') registerProcfsMetrics(metrics);
  metrics.gauge('process_heap_bytes', 'Main-thread V8 heap in use, in bytes.', [], () => [[[], process.memoryUsage().heapUsed]]);
  metrics.gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', [], () => [[[], startSeconds]]);
  // Worker figures are fetched once per scrape; a worker that does not answer within a second keeps its last figures.
  let workers: WorkerFigures[] = [];
  metrics.addCollector(async () => {
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('worker stats timeout')), 1000).unref());
    workers = await Promise.race([pool.broadcast('core.stats', {}), timeout]);
  });
  const walTotal = (key: 'bytesWritten' | 'fsyncs' | 'records') => (): [string[], number][] => {
    const out: [string[], number][] = [[['main'], walThreadTotals()[key]]];
    for (let i = 0; i < workers.length; i++) out.push([[String(i)], workers[i].wal[key]]);
    return out;
  };
  metrics.gauge('tessera_wal_bytes_written_total', 'Bytes written to WAL segments, by thread.', ['thread'], walTotal('bytesWritten'), 'counter');
  metrics.gauge('tessera_wal_fsyncs_total', 'WAL fsyncs (one per group commit), by thread.', ['thread'], walTotal('fsyncs'), 'counter');
  metrics.gauge('tessera_wal_records_total', 'WAL records appended, by thread.', ['thread'], walTotal('records'), 'counter');
  metrics.gauge('tessera_worker_heap_bytes', 'V8 heap in use per shard worker, in bytes.', ['worker'], () => workers.map((w, i) => [[String(i)], w.heapUsedBytes]));
  metrics.gauge('tessera_worker_heap_reserved_bytes', 'V8 heap reserved per shard worker, in bytes.', ['worker'], () => workers.map((w, i) => [[String(i)], w.heapTotalBytes]));
  metrics.gauge('tessera_worker_array_buffers_bytes', 'ArrayBuffer memory outside the V8 heap per shard worker, in bytes.', ['worker'], () => workers.map((w, i) => [[String(i)], w.arrayBuffersBytes]));
  metrics.gauge('tessera_segment_cache_bytes', 'Decoded segment data held by the block cache per shard worker, in bytes.', ['worker'], () => workers.map((w, i) => [[String(i)], w.documents.cacheBytes]));
  metrics.gauge('tessera_segment_cache_hits_total', 'Block cache hits per shard worker.', ['worker'], () => workers.map((w, i) => [[String(i)], w.documents.cacheHits]), 'counter');
  metrics.gauge('tessera_segment_cache_misses_total', 'Block cache misses per shard worker.', ['worker'], () => workers.map((w, i) => [[String(i)], w.documents.cacheMisses]), 'counter');
  metrics.gauge('tessera_index_buffer_bytes', 'Indexing buffer and in-memory segments per shard worker, in bytes.', ['worker'], () => workers.map((w, i) => [[String(i)], w.documents.indexBufferBytes]));
  metrics.gauge('process_heap_reserved_bytes', 'Main-thread V8 heap reserved, in bytes.', [], () => [[[], process.memoryUsage().heapTotal]]);
  metrics.gauge('process_array_buffers_bytes', 'Main-thread ArrayBuffer memory outside the V8 heap, in bytes.', [], () => [[[], process.memoryUsage().arrayBuffers]]);
  metrics.gauge('tessera_worker_queue_depth', 'Calls queued or running per shard worker.', ['worker'], () => {
    const out: [string[], number][] = [];
    for (let i = 0; i < pool.size; i++) out.push([[String(i)], pool.depth(i)]);
    return out;
  });
}

/**
 * The process collector's figures client_golang reads from procfs (so only on Linux, as there): open and allowed
 * file descriptors, virtual memory and its limit. An unlimited limit is the largest uint64, as Go reports it.
 */
function registerProcfsMetrics(metrics: SelfMetrics): void {
  const limit = (name: string) => (): [string[], number][] => {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith(name));
    const soft = line?.slice(name.length).trim().split(/\s+/)[0];
    return soft === undefined ? [] : [[[], soft === 'unlimited' ? 2 ** 64 : Number(soft)]];
  };
  metrics.gauge('process_open_fds', 'Number of open file descriptors.', [], () => [[[], readdirSync('/proc/self/fd').length]]);
  metrics.gauge('process_max_fds', 'Maximum number of open file descriptors.', [], limit('Max open files'));
  // Field 23 of /proc/self/stat, counted after the command name (which may hold spaces) ends with ')'.
  metrics.gauge('process_virtual_memory_bytes', 'Virtual memory size in bytes.', [], () => {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return [[[], Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[20])]];
  });
  metrics.gauge('process_virtual_memory_max_bytes', 'Maximum amount of virtual memory available in bytes.', [], limit('Max address space'));
}
