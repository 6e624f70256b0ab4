/** Public entry of the indexing engine for workers and tools: shard indexes and the worker's memory budgets. */
export { ShardIndex, type DocVersion, type IndexStats, type LiveDoc, type SegmentReport } from './shard-index.ts';
export { IndexingMemory } from './indexing-memory.ts';
export { BlockCache, type CacheStats } from '../segments/block-cache.ts';
