/**
 * The contract between the main thread and the shard workers: every operation a worker answers, with its
 * argument and result types, in one map (`WorkerOps`). `ShardPool.call` and the worker's task table are both
 * typed from it, so a wrong operation name, argument or result is a compile error on either side
 * (`test/architecture/protocol.test.ts` holds the `@ts-expect-error` cases).
 *
 * On the wire a task is a batch: every call the main thread made for one worker during one event-loop turn,
 * msgpack-encoded into one transferred buffer. Calls in a batch start in order (so per-shard order is kept)
 * and may complete concurrently (so their WAL appends share one fsync).
 */
import type { WireError } from '../engine/errors.ts';
import type { PackedMessage } from '../engine/codec/msgpack.ts';
import type { DeleteOp, IndexOp, MappingNeeded, ShardStats, StoredDoc, UpdateOp, WriteResult } from '../engine/documents/doc-shard-types.ts';
import type { AnalyzeArgs, BoardSeat, DfsStats, FetchBoardSlots, Query, SearchRequest, ShardHit, ShardResult, SortValue, Token } from '../engine/search/index.ts';
import type { FetchedSeries, Labels } from '../engine/tsdb/api.ts';
import type { SegmentReport } from '../engine/indexing/index.ts';
import type { ShardIndexMeta, ShardState } from '../engine/documents/shard-registry.ts';
import type { TermVectorsRequest, TermVectorsResult } from '../engine/documents/doc-term-vectors.ts';
import type { PackedSelect } from '../engine/tsdb/packed-series.ts';
import type { ShardFigures, ShardStatus, TickResult, WalReplayStatus } from '../engine/tsdb/index.ts';

/** What a worker thread is started with (Piscina `workerData`). */
export interface WorkerInit {
  workerId: number;
  workerCount: number;
  dataDir: string;
  /** Service options the engine needs in the worker (WAL compression, segment size, retention, …). */
  options: Record<string, unknown>;
  /**
   * `STOP_WORDS` Int32 words shared with the main thread: word 0 set stops every read (shutdown), word `stopSlot`
   * of a read's args set stops that read (its client went away). Absent: reads stop only at their deadline.
   */
  stopWords?: SharedArrayBuffer;
  /** The fetch board every worker shares (engine/search/fetch-board.ts). Absent: searches fetch all their hits. */
  fetchBoard?: SharedArrayBuffer;
}

/** Stop words per worker: word 0 for shutdown, the rest lent to reads in flight (more wait for none of their own). */
export const STOP_WORDS = 1024;

/** A call that needs index metadata the worker may not have yet gets this back and is repeated with `meta`. */
export interface Stale { stale: true }

// ---- core ----

export interface WorkerFigures {
  wal: { bytesWritten: number; fsyncs: number; records: number };
  /** The worker isolate's V8 heap in use and reserved, and the ArrayBuffer memory outside it. */
  heapUsedBytes: number; heapTotalBytes: number; arrayBuffersBytes: number;
  /** The documents engine's budgets in this worker: segment cache and indexing buffer use. */
  documents: { cacheBytes: number; cacheHits: number; cacheMisses: number; indexBufferBytes: number };
}

// ---- documents ----

/** What a worker needs to open a shard of an index. */
export type ShardMeta = ShardIndexMeta;
export interface ShardKey { uuid: string; shard: number }
/** Names a shard, the mapping version the caller holds, and (when the worker may lack it) the metadata. */
export interface ShardCall extends ShardKey { mv: number; meta?: ShardMeta }

export type WriteItem =
  | { action: 'index' | 'create'; op: IndexOp }
  | { action: 'delete'; op: DeleteOp }
  | { action: 'update'; op: UpdateOp };

export type ItemOutcome = { ok: WriteResult } | { err: WireError } | MappingNeeded | { pending: true };

/** `WriteOutcomes.code` of a plain result: its index here, plus OUTCOME_FORCED_REFRESH when the batch refreshed. */
export const WRITE_RESULTS: readonly WriteResult['result'][] = ['created', 'updated', 'deleted', 'not_found', 'noop'];
export const OUTCOME_FORCED_REFRESH = 0x10;
/** The item was not run (an earlier item of its batch needs a mapping update first): the caller sends it again. */
export const OUTCOME_PENDING = 0xfe;
/** The item's outcome is in `WriteOutcomes.others` (an error, a mapping update, or a result carrying a source). */
export const OUTCOME_OTHER = 0xff;

/**
 * A write batch's outcomes by item, as columns: a bulk batch's thousands of plain results cross the thread
 * boundary as four typed arrays instead of an object per item that both threads build, encode or decode and
 * keep for the whole batch. Only the rare outcome (`OUTCOME_OTHER`) is an object.
 */
export interface WriteOutcomes {
  code: Uint8Array;
  version: Float64Array;
  seqNo: Float64Array;
  primaryTerm: Float64Array;
  /** The items whose code is OUTCOME_OTHER, ascending, and their outcomes. */
  otherAt: number[];
  others: ItemOutcome[];
}

export function newWriteOutcomes(n: number): WriteOutcomes {
  return { code: new Uint8Array(n), version: new Float64Array(n), seqNo: new Float64Array(n), primaryTerm: new Float64Array(n), otherAt: [], others: [] };
}

/** Records item `i`'s outcome (items in ascending order for an OUTCOME_OTHER one). */
export function setOutcome(o: WriteOutcomes, i: number, r: ItemOutcome): void {
  if ('pending' in r) { o.code[i] = OUTCOME_PENDING; return; }
  if ('ok' in r && r.ok.getSource === undefined) { setResult(o, i, r.ok); return; }
  o.code[i] = OUTCOME_OTHER;
  o.otherAt.push(i);
  o.others.push(r);
}

export function setResult(o: WriteOutcomes, i: number, r: WriteResult): void {
  o.code[i] = WRITE_RESULTS.indexOf(r.result) | (r.forcedRefresh ? OUTCOME_FORCED_REFRESH : 0);
  o.version[i] = r.version; o.seqNo[i] = r.seqNo; o.primaryTerm[i] = r.primaryTerm;
}

/** Item `i`'s outcome as an object (single-document writes and by-query batches read it this way). */
export function outcomeAt(o: WriteOutcomes, i: number): ItemOutcome {
  const c = o.code[i];
  if (c === OUTCOME_PENDING) return { pending: true };
  if (c === OUTCOME_OTHER) return o.others[o.otherAt.indexOf(i)];
  const ok: WriteResult = { result: WRITE_RESULTS[c & ~OUTCOME_FORCED_REFRESH], version: o.version[i], seqNo: o.seqNo[i], primaryTerm: o.primaryTerm[i] };
  if (c & OUTCOME_FORCED_REFRESH) ok.forcedRefresh = true;
  return { ok };
}

/**
 * A write batch of plain index/create items (an id and a source; no routing or conditions), as columns: a bulk
 * batch's thousands of items cross to the worker as an id array and one byte array of their sources instead
 * of two objects and a source view per item that the HTTP thread builds, holds until the reply (a mapping
 * update's retry needs them) and encodes one by one. `writeItemAt` makes the item back where one is needed.
 */
export interface WriteColumns {
  ids: string[];
  /** Per item: WRITE_CREATE and WRITE_AUTO_ID bits. */
  flags: Uint8Array;
  /** The items' sources back to back: item i's are `sources[ends[i - 1] ?? 0, ends[i])`. */
  sources: Uint8Array;
  ends: Uint32Array;
}
/** `WriteColumns.flags`: a create (else an index) item. */
export const WRITE_CREATE = 1;
/** `WriteColumns.flags`: the id was generated by the node (IndexOp `autoId`). */
export const WRITE_AUTO_ID = 2;

export type WriteBatch = WriteItem[] | WriteColumns;

export function writeCount(b: WriteBatch): number {
  return Array.isArray(b) ? b.length : b.ids.length;
}

/** Item `i` of a batch (for columns, a new item over a view of its source bytes). */
export function writeItemAt(b: WriteBatch, i: number): WriteItem {
  if (Array.isArray(b)) return b[i];
  const f = b.flags[i];
  const source = b.sources.subarray(i === 0 ? 0 : b.ends[i - 1], b.ends[i]);
  return { action: f & WRITE_CREATE ? 'create' : 'index', op: f & WRITE_AUTO_ID ? { id: b.ids[i], source, autoId: true } : { id: b.ids[i], source } };
}

export interface WriteArgs extends ShardCall { items: WriteBatch; refresh?: 'true' | 'wait_for' }
/** Per-shard maintenance over several shards of one worker; results in `keys` order. */
export interface ShardListArgs { keys: ShardCall[] }
/** `_forcemerge`'s parameters. */
export interface ForceMergeArgs extends ShardListArgs { maxNumSegments: number; onlyExpungeDeletes: boolean; flush: boolean }

// ---- search ----

export interface SearchArgs extends ShardCall {
  index: string; type?: string; boost?: number; req: SearchRequest; filter: Query | null; nowMs: number; shardCount: number;
  stats?: DfsStats; scroll?: { key: string; keepAliveMs: number };
  /** `search.max_buckets` (-1: unset). */
  maxBuckets?: number;
  /** Two-phase search: keep the reader under this key for the fetch phase, return hits without sources. */
  fetchKey?: string;
  /** The shard's seat on the search's fetch board: hits that cannot be on the page come back unfetched. */
  board?: BoardSeat;
  /** The read's word in `WorkerInit.stopWords` (0 or absent: none). */
  stopSlot?: number;
}
export interface FetchArgs extends ShardCall { key: string; hits: { doc: number; score: number; sort: SortValue[] | null }[] }
export interface ScrollArgs extends ShardCall { key: string; offset: number; size: number; keepAliveMs: number }

// ---- metrics (label sets travel as flat [name, value, …] arrays, samples as typed arrays) ----

export interface MatcherWire { type: number; name: string; value: string }

export interface TsdbOpenArgs {
  retentionMs: number;
  retentionBytes: number;
  blockRangeMs?: number;
  maxBlockDurationMs?: number;
  walCompression?: boolean;
}

/**
 * Label-set table of an append: entry i is a known series ref (`refs[i] > 0`, valid only for `epoch`) or, when
 * `refs[i]` is 0, the next label set of `series` (flat; only the entries without a ref have one). Samples
 * point into the table with `sidx`. The typed arrays go out of band (transferred: the sender gives them up).
 */
export interface AppendArgs { series: string[][]; refs: Float64Array; epoch: number; sidx: Uint32Array; ts: Float64Array; vs: Float64Array }

export interface AppendReply {
  added: number; outOfOrder: number; duplicate: number; outOfBounds: number; firstError: string;
  /** When some entries came with labels: the ref of each such entry (0 elsewhere); and the epoch refs belong to. */
  refs?: Float64Array;
  epoch: number;
  /**
   * Table entries whose ref was not valid; their samples were not appended and must be resent with labels.
   * Those samples come back in `resend` (entry, t, v; the sender gave up its columns).
   */
  unknown?: number[];
  resend?: { sidx: Uint32Array; ts: Float64Array; vs: Float64Array };
}

/** Selector sets and an inclusive millisecond window (label names/values, series, delete). */
export interface SelectorRangeArgs { selectors: MatcherWire[][]; mint: number; maxt: number }

export interface SelectArgs {
  matchers: MatcherWire[]; mint: number; maxt: number;
  /** The query's deadline (ms since the epoch): the worker stops selecting past it. */
  deadlineMs?: number;
  /** The read's word in `WorkerInit.stopWords` (0 or absent: none). */
  stopSlot?: number;
}

/** Concatenated samples: series i owns `[offsets[i], offsets[i+1])` of t and v. */
export interface SelectReply { labels: string[][]; offsets: Uint32Array; t: Float64Array; v: Float64Array }

export interface PromqlEvalArgs {
  query: string;
  kind: 'instant' | 'range';
  startMs: number;
  endMs: number;
  stepMs: number;
  /** Absolute deadline (ms since the epoch) shared with the main thread. */
  deadlineMs: number;
  lookbackMs: number;
  maxSamples: number;
  defaultSubqueryStepMs: number;
  /**
   * What `@ start()`/`@ end()` stand for when this call evaluates a part of a range query's steps: the whole
   * query's start and end (absent: `startMs`/`endMs`).
   */
  atStartMs?: number;
  atEndMs?: number;
  /** Per selector range, every shard worker's reply (merged here, off the HTTP thread). */
  selected: PackedSelect[][];
  /**
   * Set by the query thread, not sent in the message: the task's control words (`QUERY_CANCEL_WORD` is the
   * one the evaluator reads).
   */
  cancel?: Int32Array;
}

/**
 * A query task's control words, shared between the main thread and the query thread (`Int32Array` indexes).
 * The main thread sets `QUERY_CANCEL_WORD` to 1 to stop the evaluation (client gone, deadline passed); the
 * query thread sets `QUERY_STARTED_WORD` to 1 as it takes the task, before it reads the cancel word.
 */
export const QUERY_CANCEL_WORD = 0, QUERY_STARTED_WORD = 1, QUERY_CONTROL_WORDS = 2;

/**
 * `json`: the encoded `data` object without its closing brace, as UTF-8 bytes (bytes cross threads without
 * re-encoding). `index`: for a range query, where each series lies in `json` (`matrixJson`'s index), so that
 * the answers of parts of the query's steps can be joined.
 */
export interface PromqlEvalReply { json: Uint8Array; evalMs: number; samples: number; index?: Float64Array }

export interface RulesEvalArgs {
  query: string;
  tMs: number;
  series: FetchedSeries[];
  lookbackMs: number;
  maxSamples: number;
  timeoutMs: number;
}

export interface RulesEvalSample { labels: Labels; v: number }

/** Every operation a shard worker answers: `args` is what the caller sends, `result` what it gets back. */
export interface WorkerOps {
  'core.ping': { args: { echo?: unknown }; result: unknown };
  'core.stats': { args: Record<string, never>; result: WorkerFigures };
  /** Tests only (enabled by `allowCrashTask`): kills the worker thread. */
  'core.crash': { args: { message?: string }; result: never };

  'docs.write': { args: WriteArgs; result: Stale | WriteOutcomes };
  'docs.get': { args: ShardCall & { id: string }; result: Stale | { doc: StoredDoc | null } };
  'docs.termvectors': { args: ShardCall & TermVectorsRequest; result: Stale | TermVectorsResult };
  'docs.refresh': { args: ShardListArgs; result: Stale | boolean[] };
  'docs.flush': { args: ShardListArgs; result: Stale | boolean[] };
  'docs.stats': { args: ShardListArgs; result: Stale | ShardStats[] };
  /** Opens each shard (start-up checks) and reports it started or failed. */
  'docs.state': { args: ShardListArgs; result: Stale | ShardState[] };
  'docs.segments': { args: ShardListArgs; result: Stale | SegmentReport[][] };
  'docs.forceMerge': { args: ForceMergeArgs; result: Stale | boolean[] };
  'docs.drop': { args: { uuid: string }; result: boolean };
  'docs.closeAll': { args: Record<string, never>; result: boolean };
  'docs.closeIndex': { args: { uuid: string }; result: boolean };
  'docs.clearCache': { args: Record<string, never>; result: boolean };

  'search.query': { args: SearchArgs; result: Stale | ShardResult };
  'search.dfs': { args: SearchArgs; result: Stale | DfsStats };
  'search.fetch': { args: FetchArgs; result: { hits: ShardHit[] } | { missing: true } };
  'search.scroll': { args: ScrollArgs; result: { hits: ShardHit[] } | { missing: true } };
  'search.clearScroll': { args: ShardCall & { keys: string[] }; result: boolean[] };
  'search.analyze': { args: AnalyzeArgs; result: { tokens: Token[] } };

  'tsdb.open': { args: TsdbOpenArgs; result: WalReplayStatus };
  'tsdb.append': { args: AppendArgs; result: AppendReply };
  'tsdb.select': { args: SelectArgs; result: SelectReply };
  'tsdb.selectPacked': { args: SelectArgs; result: PackedSelect };
  'tsdb.labelNames': { args: SelectorRangeArgs; result: string[] };
  'tsdb.labelValues': { args: SelectorRangeArgs & { name: string }; result: string[] };
  'tsdb.series': { args: SelectorRangeArgs; result: string[][] };
  'tsdb.deleteSeries': { args: SelectorRangeArgs; result: null };
  'tsdb.cleanTombstones': { args: null; result: number };
  'tsdb.snapshot': { args: { dir: string; withHead: boolean }; result: null };
  /** Merges a snapshot's overlapping blocks (the shards' parts of each range) into one each; the count written. */
  'tsdb.mergeSnapshot': { args: { dir: string }; result: number };
  'tsdb.status': { args: null; result: ShardStatus };
  'tsdb.figures': { args: null; result: ShardFigures };
  'tsdb.walReplay': { args: null; result: WalReplayStatus };
  /** Block cutting, compaction and retention; carries the retention settings so a restarted worker gets them. */
  'tsdb.tick': { args: Partial<TsdbOpenArgs> | null; result: TickResult[] };
  /**
   * Worker 0, after every worker's tick: merges the shards' parts into the shared blocks, compacts them and
   * applies retention (shared-blocks.ts).
   */
  'tsdb.maintainShared': { args: Partial<TsdbOpenArgs> | null; result: TickResult };
  'tsdb.reloadBlocks': { args: null; result: null };
  'tsdb.close': { args: null; result: null };

  'promql.eval': { args: PromqlEvalArgs; result: PromqlEvalReply };
  'rules.eval': { args: RulesEvalArgs; result: RulesEvalSample[] };
}

export type OpName = keyof WorkerOps;
export type OpArgs<K extends OpName> = WorkerOps[K]['args'];
export type OpResult<K extends OpName> = WorkerOps[K]['result'];

/** What calls workers: the real pool (`server/pool.ts`) or a test's in-process stand-in. */
export interface WorkerTransport {
  readonly size: number;
  /** `signal` (reads whose args take `stopSlot`): the worker stops the read once it aborts. */
  call<K extends OpName>(workerId: number, op: K, args: OpArgs<K>, signal?: AbortSignal): Promise<OpResult<K>>;
  /** Slots of the fetch board the workers were started with (absent: none). */
  readonly fetchBoard?: FetchBoardSlots;
}

/** A worker-side task: runs engine code for one call. May return a promise (e.g. waiting for fsync). */
export type TaskHandler<K extends OpName> = (args: OpArgs<K>, ctx: WorkerInit) => OpResult<K> | Promise<OpResult<K>>;
/** The whole op table: one handler per operation, none missing, none extra. */
export type TaskTable = { [K in OpName]: TaskHandler<K> };
/** One area's part of the table (`docs.*`, `tsdb.*`, …); `satisfies TaskSubset` checks each entry. */
export type TaskSubset = Partial<TaskTable>;

export interface TaskCall { op: OpName; args: unknown }

/**
 * One batch on the wire: msgpack of `TaskCall[]` plus the typed arrays marked `outOfBand`, whose buffers are
 * transferred beside it (replies have the same shape, with `CallResult[]`).
 */
export type BatchMessage = PackedMessage;

export type CallResult = { ok: true; value: unknown } | { ok: false; error: WireError };

// ---- workflow engine threads (src/workers/workflow.ts; one per partition, fed by its own ring) ----

/**
 * Every operation a workflow engine thread answers, with its argument and result types. It is the engine's
 * own operation table (`EngineOps`), so the server's `WorkflowClient.call` and the engine cannot disagree on
 * a name, an argument or a result; `test/architecture/protocol.test.ts` holds `@ts-expect-error` cases.
 */
export type WorkflowOps = import('../engine/workflow/index.ts').EngineOps;
export type WorkflowOpName = keyof WorkflowOps & string;
export type WorkflowArgs<K extends WorkflowOpName> = WorkflowOps[K]['args'];
export type WorkflowResult<K extends WorkflowOpName> = WorkflowOps[K]['result'];
