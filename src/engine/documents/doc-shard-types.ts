/** Request and result shapes of document-shard operations (plain data: they cross the worker boundary). */
import type { MappingJson } from '../search/api.ts';

export type VersionType = 'internal' | 'external' | 'external_gte' | 'force';
export type RefreshPolicy = 'false' | 'true' | 'wait_for';

export interface WriteConditions {
  version?: number;
  versionType?: VersionType;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
}

export interface IndexOp extends WriteConditions {
  id: string;
  /** The client's JSON bytes, stored verbatim. */
  source: Uint8Array;
  routing?: string;
  create?: boolean;
  /** The id was generated for this request (no earlier copy can exist, so none is looked up). */
  autoId?: boolean;
}

export interface DeleteOp extends WriteConditions {
  id: string;
  routing?: string;
}

export interface UpdateOp {
  id: string;
  routing?: string;
  /** The `_update` request body as JSON text. */
  body: string;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  version?: number;
  retryOnConflict?: number;
  /** `_source` filter of the `get` section ("true" = whole source). */
  fetchSource?: { includes: string[]; excludes: string[] } | true;
}

export interface WriteResult {
  result: 'created' | 'updated' | 'deleted' | 'not_found' | 'noop';
  version: number;
  seqNo: number;
  primaryTerm: number;
  /** Source after an update, when the request asked for it (JSON text). */
  getSource?: string;
  forcedRefresh?: boolean;
}

/** Returned instead of a result when the document needs fields the shard's mapping lacks. */
export interface MappingNeeded {
  mappingUpdate: MappingJson;
}

export interface StoredDoc {
  source: Uint8Array;
  version: number;
  seqNo: number;
  primaryTerm: number;
  routing?: string;
}

/** How the shard came up when it was opened (ES's store recovery of a primary). */
export interface ShardRecovery {
  /** `empty_store` for a shard created empty, `existing_store` when it opened files already on disk. */
  type: 'empty_store' | 'existing_store';
  startMs: number;
  stopMs: number;
  /** Index files found on disk at open (all reused: nothing is copied from another node). */
  files: number;
  bytes: number;
  /** Translog operations replayed on top of the last commit. */
  translogOps: number;
}

export interface ShardStats {
  /** Live and deleted Lucene docs (nested children included) as searches see them: `_cat/indices` docs. */
  docsCount: number;
  docsDeleted: number;
  /** Live top-level documents as searches see them (what `_count` and `_cat/count` count). */
  rootDocs: number;
  /** Segment files plus translog. */
  storeBytes: number;
  maxSeqNo: number;
  translogOps: number;
  translogBytes: number;
  segments: number;
  /** Bytes held in memory by the indexing buffer and in-memory segments. */
  segmentsMemoryBytes: number;
  merges: { total: number; current: number; currentDocs: number; currentBytes: number; totalDocs: number; totalBytes: number; totalTimeMs: number };
  refreshes: number;
  refreshMs: number;
  flushes: number;
  flushMs: number;
  /** Set when the shard failed (damaged files): the failure, and every other figure is zero. */
  failure?: string;
  /** The open that brought this shard up (absent for a failed shard). */
  recovery?: ShardRecovery;
  /** Bytes of text-field fielddata loaded for the current reader's segments, per field. */
  fielddata?: Record<string, number>;
}

/** The statistics of a failed shard: its failure, every figure zero. */
export function failedStats(failure: string): ShardStats {
  return {
    docsCount: 0, docsDeleted: 0, rootDocs: 0, storeBytes: 0, maxSeqNo: -1, translogOps: 0, translogBytes: 0, segments: 0, segmentsMemoryBytes: 0,
    merges: { total: 0, current: 0, currentDocs: 0, currentBytes: 0, totalDocs: 0, totalBytes: 0, totalTimeMs: 0 }, refreshes: 0, refreshMs: 0, flushes: 0, flushMs: 0, failure,
  };
}
