/**
 * TSDB on-disk identifiers (documented in docs/format.md). Kept here until `src/engine/codec/format-ids.ts`
 * exists on main, then moved there.
 */
/** 'TCHK': block chunk segment files (`chunks/000001`). */
export const TSDB_CHUNKS_MAGIC = 0x5443484b;
export const TSDB_CHUNKS_VERSION = 1;
/** 'TIDX': block index file. */
export const TSDB_INDEX_MAGIC = 0x54494458;
export const TSDB_INDEX_VERSION = 1;
/** 'TTMB': block tombstones file. */
export const TSDB_TOMBSTONES_MAGIC = 0x54544d42;
export const TSDB_TOMBSTONES_VERSION = 1;
/** 'TCKP': head checkpoint file. */
export const TSDB_CHECKPOINT_MAGIC = 0x54434b50;
export const TSDB_CHECKPOINT_VERSION = 1;
/** `meta.json` "version" field. */
export const TSDB_META_VERSION = 1;
/** 'TEND': footer magic of index, tombstones and checkpoint files (followed by crc32c of all bytes before). */
export const TSDB_FOOTER_MAGIC = 0x54454e44;
/** Chunk encoding byte in chunk files (Prometheus's `EncXOR`). */
export const TSDB_CHUNK_ENC_XOR = 1;
