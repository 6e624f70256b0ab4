/**
 * The contract between a document shard (`engine/documents`, which owns sources, versions and the translog)
 * and its search index (`engine/search` + `engine/postings`, which own analysis, postings, doc values and
 * query execution). The shard tells the index what changed; search tasks in the worker reach the index
 * through the shard.
 */

/** An Elasticsearch type mapping body as JSON: `{dynamic?, properties: {field: {type, analyzer, fields, …}}}`. */
export interface MappingJson {
  dynamic?: boolean | 'strict' | 'true' | 'false';
  properties?: Record<string, FieldMappingJson>;
  [k: string]: unknown;
}

export interface FieldMappingJson {
  type?: string;
  analyzer?: string;
  search_analyzer?: string;
  fields?: Record<string, FieldMappingJson>;
  properties?: Record<string, FieldMappingJson>;
  ignore_above?: number;
  index?: boolean;
  format?: string;
  [k: string]: unknown;
}

/** What a document shard calls on its index. All calls happen on the owning worker thread. */
export interface ShardIndexApi {
  /** Adds `id`, or replaces its previous version, with the parsed source under `mapping` (already updated for dynamic fields). */
  index(id: string, source: Record<string, unknown>, mapping: MappingJson): void;
  /** Removes `id` if present. */
  delete(id: string): void;
  /** Publishes changes since the last refresh to searches. */
  refresh(): void;
  /** Live documents visible to searches (after the last refresh). */
  docCount(): number;
  /** Deleted documents not yet merged away (for `_cat/indices` docs.deleted). */
  deletedCount(): number;
}

/** Creates the index of one shard from the index's settings (`analysis` and the rest, as ES JSON). */
export type ShardIndexFactory = (indexSettings: Record<string, unknown>) => ShardIndexApi;
