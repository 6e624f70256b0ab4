import type { RecentObservations } from '../model/recent-observations.ts';

/**
 * The write-ahead log as the TSDB uses it. The database takes a factory so that engine tests can run over an
 * in-memory log; shard workers pass `PromWal.open` (Prometheus's WAL format, prom-wal.ts).
 */
export interface WalStats {
  bytesWritten: number; fsyncs: number; records: number; segments: number; counts: WalCounts;
  /** The segment being written (`prometheus_tsdb_wal_segment_current`). */
  segmentCurrent: number;
  /** The latest fsyncs' durations in seconds, with their sum and count (copied out only by who reports them). */
  fsyncSeconds: RecentObservations;
}

/**
 * Since the log was opened, Prometheus's `prometheus_tsdb_checkpoint_*` and `prometheus_tsdb_wal_*` counters: each
 * checkpoint attempted and failed, the truncation of the segments it covers, the deletion of older checkpoints,
 * and damage found by a replay (a torn tail too, as Prometheus counts it before repairing).
 */
export interface WalCounts {
  checkpointsCreated: number; checkpointCreationsFailed: number;
  truncations: number; truncationsFailed: number;
  checkpointDeletions: number; checkpointDeletionsFailed: number;
  corruptions: number;
}

export function noWalCounts(): WalCounts {
  return { checkpointsCreated: 0, checkpointCreationsFailed: 0, truncations: 0, truncationsFailed: 0, checkpointDeletions: 0, checkpointDeletionsFailed: 0, corruptions: 0 };
}

/** What a replay read: records and bytes (decompressed), and the range of segments after the checkpoint (-1: none). */
export interface WalReplayResult { records: number; bytes: number; firstSegment: number; lastSegment: number }

export interface TsdbWal {
  /**
   * Logs records (each a whole TSDB record, type byte first: prom-wal-records.ts) in order; resolves once they
   * are durable, so an acknowledged append survives kill -9. Records logged by one synchronous run of code are
   * written before any checkpoint that starts after it.
   */
  log(records: readonly Uint8Array[]): Promise<void>;
  /**
   * Calls `onRecord` for every record of the newest checkpoint, then of the segments after it, in log order;
   * `rec` is valid only during the call and `file` names where it was read (for errors). Repairs a torn tail.
   */
  replay(onRecord: (rec: Uint8Array, file: string) => void): Promise<WalReplayResult>;
  /**
   * Closes the current segment, writes `records` (the state the head still needs) as the checkpoint covering
   * every segment up to the closed one, then deletes those segments and older checkpoints. `records` is
   * consumed after the segment was closed, so it must reflect state at least that new.
   */
  checkpoint(records: Iterable<Uint8Array>): Promise<void>;
  stats(): WalStats;
  close(): Promise<void>;
}

export type OpenWal = (dir: string) => Promise<TsdbWal>;
