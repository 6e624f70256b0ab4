/** Public entry of the workflow engine (what `src/workers/workflow.ts` may import). */
export { WorkflowEngine, EVENT_COMMITS_IN_FLIGHT, type EngineOptions } from './engine.ts';
export { MemoryKv, type KvBackend, type KvWrite } from './kv.ts';
export { LmdbKv } from './lmdb-kv.ts';
export { openPartition, partitionDir, type PartitionOptions } from './open-partition.ts';
export { partitionOf } from './partition.ts';
export type { EngineOps, IngestArgs, BatchItem, Replayed } from './engine.ts';
