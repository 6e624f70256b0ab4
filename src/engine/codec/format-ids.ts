/**
 * Every magic number, format version, file name and LMDB key prefix / database name of the project, in one
 * place (like VictoriaMetrics's filenames.go). Each constant is documented in docs/format.md, and
 * test/format/format-ids.test.ts fails when one is not: add yours in your area's block and document it there.
 *
 * Magic numbers are four ASCII letters read as a big-endian u32, so they show up in a hex dump.
 */

// ── file header (docs/format.md "File header") ──────────────────────────────
/** Size of the header every Tessera file starts with: magic u32 BE · version u8 · flags u8 · reserved u16. */
export const FILE_HEADER_SIZE = 8;

// ── WAL (docs/format.md "WAL segment", "WAL record") ────────────────────────
/** 'TWAL'. */
export const WAL_SEGMENT_MAGIC = 0x5457414c;
/** Current segment format version, and the oldest one this build reads. */
export const WAL_SEGMENT_VERSION = 1;
export const WAL_SEGMENT_MIN_VERSION = 1;
/** Segment file names are the sequence number, zero-padded to this many decimal digits. */
export const WAL_SEGMENT_NAME_DIGITS = 8;
export const WAL_DEFAULT_SEGMENT_SIZE_BYTES = 128 * 1024 * 1024;
/** Record header: type|flags u8 · len u32 BE · crc32c u32 BE. */
export const WAL_RECORD_HEADER_SIZE = 9;
/** Bit of the type|flags byte saying the payload is snappy-compressed; the low 7 bits are the record type. */
export const WAL_RECORD_FLAG_SNAPPY = 0x80;
export const WAL_RECORD_TYPE_MASK = 0x7f;

// ── LMDB store (docs/format.md "LMDB environment") ──────────────────────────
/** Sub-directory of the data directory that holds the LMDB environment. */
export const STORE_DIR_NAME = 'lmdb';
/** Named database holding the store's own records. */
export const STORE_META_DB = '_meta';
/** Key (in STORE_META_DB) of the schema-version record. */
export const STORE_SCHEMA_KEY = 'schema_version';
/** Current schema version of the environment, and the oldest one this build reads. */
export const STORE_SCHEMA_VERSION = 1;
export const STORE_SCHEMA_MIN_VERSION = 1;
/** Leading byte of every LMDB value: the value-encoding version (1 = msgpack). */
export const STORE_VALUE_VERSION = 1;
/**
 * Empty file beside an LMDB environment's `data.mdb`, written (fsync'd) when the environment was closed cleanly
 * and removed when it is opened: absent at an open, the last close was not clean and LMDB's consistency read runs.
 */
export const STORE_CLEAN_CLOSE_FILE = 'closed-cleanly';

// ── documents ───────────────────────────────────────────────────────────────
/** 'TDSS': document shard snapshot (docs/format.md "Document shard snapshot"). */
export const DOC_SNAPSHOT_MAGIC = 0x54445353;
export const DOC_SNAPSHOT_VERSION = 1;
export const DOC_SNAPSHOT_MIN_VERSION = 1;
/** File name of a shard's snapshot inside `es/indices/<uuid>/<shard>/`. */
export const DOC_SNAPSHOT_FILE = 'shard.snap';
/**
 * Translog record types of a document shard (docs/format.md "Document translog record"): 1 and 2 are the
 * version 1 layout (msgpack arrays), still read; 3 and 4 the version 2 layout, written since.
 */
export const DOC_TRANSLOG_INDEX_V1 = 1;
export const DOC_TRANSLOG_DELETE_V1 = 2;
export const DOC_TRANSLOG_INDEX = 3;
export const DOC_TRANSLOG_DELETE = 4;
/**
 * Document segments (docs/format.md "Document segments"): one magic per file kind, all at SEGMENT_VERSION.
 * Files are `_<name>.<ext>` inside `es/indices/<uuid>/<shard>/index/`, live docs `_<name>_<delGen>.liv`.
 */
export const SEGMENT_VERSION = 1;
export const SEGMENT_MIN_VERSION = 1;
/** 'TSSI' segment info (`.si`). */
export const SEGMENT_INFO_MAGIC = 0x54535349;
/** 'TSTI' in-memory indexes: term indexes, `_id` index and Bloom filter, stored-block index (`.tip`). */
export const SEGMENT_TERM_INDEX_MAGIC = 0x54535449;
/** 'TSTM' term dictionary blocks (`.tim`). */
export const SEGMENT_TERMS_MAGIC = 0x5453544d;
/** 'TSDC' doc ids and frequencies (`.doc`). */
export const SEGMENT_POSTINGS_MAGIC = 0x54534443;
/** 'TSPS' positions (`.pos`). */
export const SEGMENT_POSITIONS_MAGIC = 0x54535053;
/** 'TSDV' doc values, norms, exists lists, nested structure (`.dvd`). */
export const SEGMENT_DOC_VALUES_MAGIC = 0x54534456;
/** 'TSFD' stored fields (`.fdt`). */
export const SEGMENT_STORED_MAGIC = 0x54534644;
/** 'TSID' `_id` dictionary blocks (`.ids`). */
export const SEGMENT_IDS_MAGIC = 0x54534944;
/** 'TSLV' live docs (`.liv`). */
export const SEGMENT_LIVE_DOCS_MAGIC = 0x54534c56;
/** 'TSCP' commit point (`segments_<gen>`): the segments of the last flush and the translog position it covers. */
export const COMMIT_POINT_MAGIC = 0x54534350;
export const COMMIT_POINT_VERSION = 1;
export const COMMIT_POINT_MIN_VERSION = 1;
/** Prefix of commit point file names; the generation follows in base 36. */
export const COMMIT_POINT_PREFIX = 'segments_';
/** Sub-directory of a shard directory holding its segments and commit points. */
export const SEGMENTS_DIR = 'index';
/** File written in a shard directory when the shard failed for damaged files (JSON of the error); see "Document shard layout". */
export const DOC_SHARD_FAILED_MARKER = 'corrupted';

/** LMDB databases holding the documents cluster metadata (docs/format.md "Documents metadata"). */
export const DOC_META_INDICES_DB = 'es_indices';
export const DOC_META_TEMPLATES_DB = 'es_templates';
export const DOC_META_CLUSTER_DB = 'es_cluster';

// ── metrics (TSDB) ──────────────────────────────────────────────────────────
/**
 * Blocks are Prometheus 2.x blocks (docs/format.md "TSDB blocks"): Prometheus's magic numbers and versions for
 * the chunk segment files, the index (format v2) and the tombstones file.
 */
export const PROM_CHUNKS_MAGIC = 0x85bd40dd;
export const PROM_CHUNKS_VERSION = 1;
export const PROM_INDEX_MAGIC = 0xbaaad700;
export const PROM_INDEX_VERSION = 2;
export const PROM_TOMBSTONES_MAGIC = 0x0130ba30;
export const PROM_TOMBSTONES_VERSION = 1;
/** Head chunk files (`chunks_head/000001`), docs/format.md "TSDB head chunks". */
export const PROM_HEAD_CHUNKS_MAGIC = 0x0130bc91;
export const PROM_HEAD_CHUNKS_VERSION = 1;
/**
 * Tessera's own block files before they became Prometheus's (block layout 1): read only to convert such a
 * block on first open ('TCHK' chunk files, 'TIDX' index, 'TTMB' tombstones).
 */
export const LEGACY_CHUNKS_MAGIC = 0x5443484b;
export const LEGACY_INDEX_MAGIC = 0x54494458;
export const LEGACY_TOMBSTONES_MAGIC = 0x54544d42;
/**
 * Layout 1 of the TSDB WAL (read only, to upgrade a shard on first open, "TSDB WAL upgrade from layout 1"): the
 * 'TCKP' checkpoint file `<shard>/checkpoint.NNNNNNNN` beside a `wal/` of 'TWAL' segments.
 */
export const LEGACY_CHECKPOINT_MAGIC = 0x54434b50;
export const LEGACY_CHECKPOINT_VERSION = 1;
/** Where an upgrade moves a shard's layout-1 `wal/` while it rewrites it ("TSDB WAL upgrade from layout 1"). */
export const LEGACY_WAL_DIR = 'wal-v1';
/**
 * TSDB directory layout marker `<tsdb>/TSDB_LAYOUT_FILE` = `{"version": TSDB_LAYOUT_VERSION}`, docs/format.md
 * "TSDB directory layout": version 2 keeps the blocks in the TSDB directory itself, one per range.
 */
export const TSDB_LAYOUT_FILE = 'tessera-layout.json';
export const TSDB_LAYOUT_VERSION = 2;
/** `version` field of a block's meta.json, "TSDB block meta.json". */
export const TSDB_META_VERSION = 1;
/** 'TEND': footer magic of Tessera's framed TSDB files (the layout-1 checkpoint; followed by crc32c of all bytes before). */
export const TSDB_FOOTER_MAGIC = 0x54454e44;
/** Encoding byte of a chunk in a chunk file (Prometheus's `EncXOR`), "XOR chunk". */
export const TSDB_CHUNK_ENC_XOR = 1;
/** Largest chunk segment file of a block. */
export const TSDB_CHUNK_SEGMENT_MAX_BYTES = 512 * 1024 * 1024;
/**
 * TSDB WAL (docs/format.md "TSDB WAL (Prometheus's wlog)"): Prometheus's segment format, no file header. Segments
 * are cut into 32 KiB pages; a record is written as fragments of at most a page, each with a 7-byte header
 * `type u8 · len u16 BE · crc32c u32 BE` whose type byte holds the fragment kind (low 3 bits) and compression flags.
 */
export const PROM_WAL_PAGE_SIZE = 32 * 1024;
export const PROM_WAL_FRAGMENT_HEADER_SIZE = 7;
export const PROM_WAL_SEGMENT_SIZE_BYTES = 128 * 1024 * 1024;
/** Fragment kinds: 0 = rest of the page is zero padding, 1 = a whole record, 2/3/4 = first/middle/last piece. */
export const PROM_WAL_FRAG_PAGE_TERM = 0;
export const PROM_WAL_FRAG_FULL = 1;
export const PROM_WAL_FRAG_FIRST = 2;
export const PROM_WAL_FRAG_MIDDLE = 3;
export const PROM_WAL_FRAG_LAST = 4;
export const PROM_WAL_FRAG_KIND_MASK = 0x07;
/** Type-byte flag: the record (every fragment of it) is snappy-compressed. */
export const PROM_WAL_FLAG_SNAPPY = 0x08;
/**
 * Type-byte flag of the zstd compression of Prometheus ≥ 2.46 (`--storage.tsdb.wal-compression-type=zstd`), which
 * this build does not read.
 */
export const PROM_WAL_FLAG_ZSTD = 0x10;
/** Checkpoint directories inside a WAL directory: `checkpoint.NNNNNNNN` (8 digits), itself a WAL. */
export const PROM_WAL_CHECKPOINT_PREFIX = 'checkpoint.';
/** TSDB WAL record types: the first byte of every record ("TSDB WAL records"), Prometheus's numbering. */
export const TSDB_REC_SERIES = 1;
export const TSDB_REC_SAMPLES = 2;
export const TSDB_REC_TOMBSTONES = 3;
export const TSDB_REC_EXEMPLARS = 4;
/**
 * File in a shard directory recording which state of a Prometheus WAL found at `<tsdb path>/wal` the shard has
 * imported its series from ("Prometheus's WAL directory").
 */
export const PROM_WAL_IMPORT_MARKER = 'prometheus-wal-import.json';

// ── workflow (docs/format.md "Workflow state") ──────────────────────────────
/** WAL directory of inbound workflow events, under the data directory. */
export const WORKFLOW_WAL_DIR = 'workflow-wal';
/** WAL record type of one inbound event, batch or viewlog: msgpack `{seq, op, body, at?}`. */
export const WORKFLOW_WAL_RECORD_INGEST = 1;
/** Layout 1 only (converted on first open): prefix of its named databases in the shared store (`wf_runs`, …). */
export const WORKFLOW_DB_PREFIX = 'wf_';
/** Key of the engine's meta record (counters, applied-event marks, test clock, partition) in `wf2_meta`. */
export const WORKFLOW_META_KEY = 'meta';
/**
 * Version of the workflow record layout (kept in the meta record as `layout`); 2 = per-partition, indexed;
 * 3 = with the commit guard (`WORKFLOW_COMMIT_DB`); 4 = records written as `WORKFLOW_VALUE_RECORDS` values;
 * 5 = commits made durable by the partition's commit log (`WORKFLOW_COMMIT_LOG_DIR`), LMDB written behind it.
 */
export const WORKFLOW_STATE_VERSION = 5;
/** Oldest layout a partition environment is opened (and upgraded) from: 2 (layout 1 is converted, not opened). */
export const WORKFLOW_STATE_MIN_VERSION = 2;
/**
 * Layout 3: versioned database (lmdb-js `useVersions`) of a partition environment holding the commit guard,
 * entry `WORKFLOW_COMMIT_KEY`: its version is the number of the partition's last commit.
 */
export const WORKFLOW_COMMIT_DB = 'wf2_commit';
export const WORKFLOW_COMMIT_KEY = 'seq';
/**
 * Layout 5: directory (in a partition's environment directory) of its commit log, a WAL (docs/format.md "WAL
 * segment") of `WORKFLOW_COMMIT_LOG_RECORD` records, one per commit: a commit is acknowledged once its record
 * is fsynced; LMDB is written behind the log and the segments it has flushed are deleted.
 */
export const WORKFLOW_COMMIT_LOG_DIR = 'commit-log';
/** Layout 5: WAL record type of one commit: f64 LE commit number, u32 LE write count, then the writes. */
export const WORKFLOW_COMMIT_LOG_RECORD = 1;
/** Layout 2: directory (under the data directory) holding one LMDB environment per engine partition, `p0`, `p1`, … */
export const WORKFLOW_DIR = 'workflow';
/** Layout 2: text file in WORKFLOW_DIR holding the partition count (decimal), written when the directory is created. */
export const WORKFLOW_PARTITIONS_FILE = 'partitions';
/**
 * Layout 4: leading byte of a workflow value written as msgpack records over the fixed record structures of
 * `src/engine/workflow/values.ts` (docs/format.md "Workflow state", values). Values led by
 * `STORE_VALUE_VERSION` (plain msgpack maps, layouts 2–3) are still read.
 */
export const WORKFLOW_VALUE_RECORDS = 2;
/** Layout 2: prefix of the named databases of a partition environment (`wf2_runs`, `wf2_ix_timers_due`, …). */
export const WORKFLOW_V2_DB_PREFIX = 'wf2_';

/**
 * Suffix of the numeric doc-values column holding a `geo_point` field's encoded points (docs/format.md, "geo_point
 * doc values"). No mapped path can end so: ES refuses empty field names, so a path never holds "..".
 */
export const GEO_COLUMN_SUFFIX = '..geo';
