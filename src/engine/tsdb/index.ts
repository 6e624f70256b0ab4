/** Public entry of the TSDB engine for workers and tools. */
export { Tsdb, DEFAULT_BLOCK_RANGE_MS } from './db.ts';
export type { AppendBatch, AppendResult, SharedDirOptions, TsdbOptions, WalReplayStatus } from './db.ts';
export { SharedBlocks, maintainShared, cleanSharedTombstones } from './shared-blocks.ts';
export { checkTsdbLayout } from './shard-layout.ts';
export { emptyTick, tick, cleanTombstones, snapshot, mergeOverlappingBlocks, flushHead, refreshBlocks } from './db-maintenance.ts';
export type { TickResult } from './db-maintenance.ts';
export { CHUNK_RANGE_BUCKETS, CHUNK_SAMPLES_BUCKETS, CHUNK_SIZE_BUCKETS } from './chunk-histograms.ts';
export type { CutChunkHistograms } from './chunk-histograms.ts';
export { writeBlock } from './block-writer.ts';
export { headStatus, shardFigures } from './status.ts';
export type { ShardFigures, ShardStatus } from './status.ts';
export type { TsdbWal, OpenWal } from './wal-port.ts';
export { PromWal } from './prom-wal.ts';
export { importPrometheusWal } from './prom-wal-import.ts';
export type { PromWalOptions } from './prom-wal.ts';
