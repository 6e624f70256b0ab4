/**
 * Starts a Tessera node. Its threads start first — the shard workers, and the first query thread when the
 * metrics service runs — and this thread loads the rest of the server (node.ts: listeners, services) while they
 * load theirs: loading modules is most of a start-up, and each thread's loading then overlaps the others'
 * (docs/benchmarks.md, issue 11). The threads touch the data directory only with their first task, which comes
 * after node.ts took its lock; a start that fails closes them.
 */
import { resolve } from 'node:path';
import { bytesOf, type Flags } from './flags.ts';
import { QueryPool, ShardPool } from './pool.ts';
import { createLogger, logProcessWarnings } from '../runtime/logger.ts';
import type { Tessera } from './node.ts';

export type { Tessera };

export async function startTessera(flags: Flags): Promise<Tessera> {
  const log = createLogger(flags['log.level']);
  logProcessWarnings(log);
  const pool = new ShardPool({
    workers: flags.workers,
    dataDir: resolve(flags['path.data']),
    options: workerOptions(flags),
    youngGenerationBytes: bytesOf(flags['workers.young_generation_size']),
    onWorkerError: (id, err) => log.error('shard worker crashed; it is restarted and its shards reopen from disk', { worker: id, err }),
  });
  let queries: QueryPool | null = null;
  if (flags.services.includes('metrics')) {
    queries = new QueryPool(QueryPool.threadsFor(flags['query.max-concurrency']), bytesOf(flags['workers.young_generation_size']));
    void queries.warm();
  }
  try {
    const { startNode } = await import('./node.ts');
    return await startNode(flags, log, { pool, queries });
  } catch (err) {
    await Promise.all([pool.close(), queries?.close()]);
    throw err;
  }
}

/** What the shard workers need from the flags (they get plain data, not the Flags object). */
function workerOptions(flags: Flags): Record<string, unknown> {
  return {
    walCompression: flags['storage.tsdb.wal-compression'],
    walSegmentSizeBytes: flags['wal.segment-size'],
    walRepair: flags['wal.repair'],
    indexBufferBytes: bytesOf(flags['indices.memory.index_buffer_size']),
    segmentCacheBytes: bytesOf(flags['indices.memory.segment_cache_size']),
    tsdbPath: flags['storage.tsdb.path'] ? resolve(flags['storage.tsdb.path']) : '',
    services: flags.services,
    allowCrashTask: process.env.TESSERA_TEST_HOOKS === '1',
    testStallReads: process.env.TESSERA_TEST_HOOKS === '1' && process.env.TESSERA_TEST_SHARD_READ_STALL === '1',
    testStallCompaction: process.env.TESSERA_TEST_HOOKS === '1' && process.env.TESSERA_TEST_COMPACTION_STALL === '1',
    logLevel: flags['log.level'],
  };
}
