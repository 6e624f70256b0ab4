/**
 * One document shard's write semantics: `_version`, `_seq_no` (per shard) and `_primary_term`, delete
 * tombstones (kept `index.gc_deletes`, 60 s), optimistic concurrency checks, and the translog. Documents
 * themselves live in the shard's `ShardIndex` (buffer, segments, stored fields). An operation changes the
 * index synchronously (so later operations and real-time GETs see it in order), appends its translog record,
 * and is acknowledged only when that append is durable; searches see it after a refresh.
 */
import type { MappingJson } from '../search/api.ts';
import type { IndexStats, ShardIndex } from '../indexing/shard-index.ts';
import { ByteWriter } from '../codec/byte-buf.ts';
import { decodeTranslogOp, encodeTranslogOp } from './translog-record.ts';
import { docError } from './doc-errors.ts';
import { dynamicUpdate, NEED_LOSSLESS } from './dynamic.ts';
import { cause, mapperParsing } from './doc-errors.ts';
import { jsonProblemMessage, jsonStructureProblem, MAX_JSON_DEPTH } from '../codec/json-structure.ts';
import { parseLossless, filterSource, stringifyLossless } from './source.ts';
import { computeUpdate, parseUpdateBody } from './update.ts';
import type { DeleteOp, IndexOp, MappingNeeded, ShardStats, StoredDoc, UpdateOp, WriteConditions, WriteResult } from './doc-shard-types.ts';

/** The translog operations a shard needs (the project's `Wal` satisfies it). */
export interface Translog {
  append(type: number, payload: Uint8Array): Promise<unknown>;
  /** Several records in order, durable together. Their payloads are read only until the promise settles. */
  appendBatch(records: readonly { type: number; payload: Uint8Array }[]): Promise<unknown>;
}

/** First size of a write batch's record buffer (a 2,000-document bulk body's share of a shard grows it a few times). */
const BATCH_BUFFER_BYTES = 64 * 1024;

/** Written batches' record buffers kept for reuse: a few bulk bodies in flight each hold one until durable. */
const SPARE_BATCH_BUFFERS = 4;

/** What `log` returns inside a write batch: the batch's own promise (`endBatch`) says when it is durable. */
const IN_BATCH: Promise<unknown> = Promise.resolve();

/** An operation as applied and logged: `source` null for a delete. */
export interface DocEntry {
  source: Uint8Array | null;
  version: number;
  seqNo: number;
  primaryTerm: number;
  routing?: string;
  deletedAt?: number;
}

/** What a recent delete leaves behind for versioning (for `index.gc_deletes`). */
interface Tombstone { version: number; seqNo: number; primaryTerm: number; deletedAt: number }

/** The version state of an id: its live copy, or a recent delete's tombstone. */
interface VersionEntry { version: number; seqNo: number; primaryTerm: number; live: boolean }

export interface DocShardOptions {
  indexName: string;
  uuid: string;
  shard: number;
  type: string;
  mapping: MappingJson;
  index: ShardIndex;
  translog: Translog | null;
  gcDeletesMs?: number;
  now?: () => number;
}

const PRIMARY_TERM = 1;

export class DocShard {
  readonly uuid: string;
  readonly shard: number;
  indexName: string;
  type: string;
  mapping: MappingJson;
  readonly shardIndex: ShardIndex;
  translog: Translog | null;
  private readonly tombstones = new Map<string, Tombstone>();
  maxSeqNo = -1;
  dirty = false;
  translogOps = 0;
  translogBytes = 0;
  private refreshWaiters: (() => void)[] = [];
  /** The open write batch (`beginBatch`): its records' bytes, types and end offsets; null outside one. */
  private batch: { bytes: ByteWriter; types: number[]; ends: number[] } | null = null;
  /** Record buffers of batches the log has written, for the next batches (`beginBatch`). */
  private readonly spareBatchBytes: ByteWriter[] = [];
  private readonly gcDeletesMs: number;
  private readonly now: () => number;

  constructor(o: DocShardOptions) {
    this.indexName = o.indexName;
    this.uuid = o.uuid;
    this.shard = o.shard;
    this.type = o.type;
    this.mapping = o.mapping;
    this.shardIndex = o.index;
    this.translog = o.translog;
    this.gcDeletesMs = o.gcDeletesMs ?? 60_000;
    this.now = o.now ?? Date.now;
  }

  /** The live document `id` (real-time), or null. */
  getDoc(id: string): StoredDoc | null {
    const d = this.shardIndex.get(id);
    if (!d) return null;
    const out: StoredDoc = { source: d.source, version: d.version, seqNo: d.seqNo, primaryTerm: d.primaryTerm };
    if (d.routing !== null) out.routing = d.routing;
    return out;
  }

  /** The entry that still counts for versioning: the live copy, or a tombstone younger than gc_deletes. */
  private versionEntry(id: string): VersionEntry | undefined {
    const v = this.shardIndex.version(id);
    if (v) return { version: v.version, seqNo: v.seqNo, primaryTerm: v.primaryTerm, live: true };
    const t = this.tombstones.get(id);
    if (!t) return undefined;
    if (this.now() - t.deletedAt > this.gcDeletesMs) { this.tombstones.delete(id); return undefined; }
    return { version: t.version, seqNo: t.seqNo, primaryTerm: t.primaryTerm, live: false };
  }

  /** Indexes a document; returns MappingNeeded when its fields are not all mapped yet. */
  async index(op: IndexOp): Promise<WriteResult | MappingNeeded> {
    return settle(this.indexNow(op));
  }

  /** The synchronous part of `index`: checks, applies to memory, starts the translog append. */
  indexNow(op: IndexOp): Pending | MappingNeeded {
    const text = utf8Of(op.source);
    const doc = parseDocument(text, this.indexName);
    const needed = this.mappingDelta(doc, text);
    if (needed) return needed;
    // Auto-generated ids are new by construction: no lookup (Elasticsearch's append-only optimisation).
    const cur = op.autoId ? undefined : this.versionEntry(op.id);
    const live = cur !== undefined && cur.live;
    if (op.create && live) this.conflict(op.id, `document already exists (current version [${cur!.version}])`);
    this.checkConditions(op.id, op, cur);
    const version = nextVersion(op, cur);
    // `op.source` is usually a view into a whole task batch: the translog record and the indexing buffer take
    // copies of it (the buffer into its source column), so nothing keeps the batch alive.
    const entry: DocEntry = { source: op.source, version, seqNo: this.maxSeqNo + 1, primaryTerm: PRIMARY_TERM, routing: op.routing };
    // The version lookup above already found whether a live copy exists: the index need not look again.
    this.apply(op.id, entry, doc, !live);
    const durable = this.log(entry, op.id);
    return { result: { result: live ? 'updated' : 'created', version, seqNo: entry.seqNo, primaryTerm: PRIMARY_TERM }, durable };
  }

  private mappingDelta(doc: Record<string, unknown>, text: string): MappingNeeded | null {
    let delta: MappingJson | null;
    try {
      delta = dynamicUpdate(this.mapping, this.type, doc);
    } catch (e) {
      if (e !== NEED_LOSSLESS) throw e;
      delta = dynamicUpdate(this.mapping, this.type, parseLossless(text) as Record<string, unknown>);
    }
    return delta ? { mappingUpdate: delta } : null;
  }

  async delete(op: DeleteOp): Promise<WriteResult> {
    return settle(this.deleteNow(op)) as Promise<WriteResult>;
  }

  deleteNow(op: DeleteOp): Pending {
    const cur = this.versionEntry(op.id);
    const live = cur !== undefined && cur.live;
    this.checkConditions(op.id, op, cur);
    const version = op.versionType === 'external' || op.versionType === 'external_gte' ? op.version! : (cur?.version ?? 0) + 1;
    const entry: DocEntry = { source: null, version, seqNo: this.maxSeqNo + 1, primaryTerm: PRIMARY_TERM, deletedAt: this.now() };
    this.apply(op.id, entry, null, false);
    const durable = this.log(entry, op.id);
    return { result: { result: live ? 'deleted' : 'not_found', version, seqNo: entry.seqNo, primaryTerm: PRIMARY_TERM }, durable };
  }

  async update(op: UpdateOp): Promise<WriteResult | MappingNeeded> {
    return settle(this.updateNow(op));
  }

  /** Runs an update synchronously (so read-modify-write is atomic), starting its translog append. */
  updateNow(op: UpdateOp): Pending | MappingNeeded {
    const req = parseUpdateBody(op.body);
    const cur = this.getDoc(op.id);
    if (cur && op.ifSeqNo !== undefined && (cur.seqNo !== op.ifSeqNo || cur.primaryTerm !== op.ifPrimaryTerm)) {
      this.conflict(op.id, `required seqNo [${op.ifSeqNo}], primary term [${op.ifPrimaryTerm}]. current document has seqNo [${cur.seqNo}] and primary term [${cur.primaryTerm}]`);
    }
    if (cur && op.version !== undefined && cur.version !== op.version) {
      this.conflict(op.id, `current version [${cur.version}] is different than the one provided [${op.version}]`);
    }
    const outcome = computeUpdate(req, cur, { index: this.indexName, type: this.type, id: op.id, now: this.now() },
      () => docError('DOC_MISSING', [this.type, op.id], { index_uuid: this.uuid, shard: String(this.shard), index: this.indexName }));
    if (outcome.kind === 'noop') {
      const result: WriteResult = { result: 'noop', version: cur?.version ?? 0, seqNo: -1, primaryTerm: 0, getSource: this.fetch(op, cur?.source) };
      return { result, durable: Promise.resolve() };
    }
    if (outcome.kind === 'delete') return this.deleteNow({ id: op.id, routing: op.routing });
    const source = Buffer.from(outcome.source, 'utf8');
    const r = this.indexNow({ id: op.id, source, routing: op.routing ?? cur?.routing });
    if ('mappingUpdate' in r) return r;
    r.result.result = outcome.created ? 'created' : 'updated';
    r.result.getSource = this.fetch(op, source);
    return r;
  }

  private fetch(op: UpdateOp, src: Uint8Array | undefined): string | undefined {
    if (!op.fetchSource || !src) return undefined;
    const text = Buffer.from(src).toString('utf8');
    if (op.fetchSource === true) return text;
    return stringifyLossless(filterSource(parseLossless(text), op.fetchSource));
  }

  private checkConditions(id: string, c: WriteConditions, cur: VersionEntry | undefined): void {
    const live = cur !== undefined && cur.live;
    if (c.ifSeqNo !== undefined) {
      if (!live) this.conflict(id, `required seqNo [${c.ifSeqNo}], primary term [${c.ifPrimaryTerm}] but no document was found`);
      if (cur!.seqNo !== c.ifSeqNo || cur!.primaryTerm !== c.ifPrimaryTerm) {
        this.conflict(id, `required seqNo [${c.ifSeqNo}], primary term [${c.ifPrimaryTerm}]. current document has seqNo [${cur!.seqNo}] and primary term [${cur!.primaryTerm}]`);
      }
    }
    if (c.version === undefined) return;
    const vt = c.versionType ?? 'internal';
    const current = cur ? cur.version : -1;
    if (vt === 'internal' && (!live || current !== c.version)) {
      this.conflict(id, `current version [${live ? current : -1}] is different than the one provided [${c.version}]`);
    }
    if (vt === 'external' && cur && current >= c.version) this.conflict(id, `current version [${current}] is higher or equal to the one provided [${c.version}]`);
    if (vt === 'external_gte' && cur && current > c.version) this.conflict(id, `current version [${current}] is higher than the one provided [${c.version}]`);
  }

  private conflict(id: string, what: string): never {
    throw docError('DOC_VERSION_CONFLICT', [this.type, id, what], { index_uuid: this.uuid, shard: String(this.shard), index: this.indexName });
  }

  /** Applies an entry to the index (also used by translog replay); `isNew` skips looking for a live copy. */
  apply(id: string, entry: DocEntry, parsed: Record<string, unknown> | null, isNew: boolean): void {
    if (entry.source !== null) {
      // Stored sources were checked when written (or by an older version that did not check): not again.
      const doc = parsed ?? parseDocument(Buffer.from(entry.source).toString('utf8'), null);
      this.shardIndex.index(id, doc, entry.source, entry.routing ?? null, entry, this.mapping, isNew);
      this.tombstones.delete(id);
    } else {
      this.shardIndex.delete(id);
      this.tombstones.set(id, { version: entry.version, seqNo: entry.seqNo, primaryTerm: entry.primaryTerm, deletedAt: entry.deletedAt ?? this.now() });
    }
    if (entry.seqNo > this.maxSeqNo) this.maxSeqNo = entry.seqNo;
    this.dirty = true;
  }

  private log(e: DocEntry, id: string): Promise<unknown> {
    if (!this.translog) return Promise.resolve();
    const b = this.batch;
    const w = b !== null ? b.bytes : new ByteWriter(64 + (e.source?.byteLength ?? 0));
    const start = w.len;
    const type = encodeTranslogOp(w, id, e.version, e.seqNo, e.primaryTerm, e.routing ?? null, e.source, e.deletedAt ?? null);
    this.translogOps++;
    this.translogBytes += w.len - start;
    if (b === null) return this.translog.append(type, w.buf.subarray(0, w.len));
    b.types.push(type);
    b.ends.push(w.len);
    return IN_BATCH;
  }

  /**
   * Opens a write batch: the operations applied until `endBatch` keep their order in memory, but their translog
   * records are encoded into one buffer and appended together at its end — one append and one promise for a
   * bulk body's items instead of one each. Inside a batch an operation's `durable` resolves at once; the
   * batch's promise is what counts.
   */
  beginBatch(sizeHint = 0): void {
    if (this.batch !== null) throw new Error('a write batch is already open');
    // Sized from the caller's hint (its sources' bytes): a 2,000-item bulk body's records grew a 64 KiB buffer
    // four times over, a megabyte of copies and of short-lived ArrayBuffers per batch. The buffer of a batch
    // the log has written is taken again when large enough (see endBatch).
    const need = Math.max(BATCH_BUFFER_BYTES, sizeHint);
    let bytes: ByteWriter | undefined;
    while ((bytes = this.spareBatchBytes.pop()) !== undefined && bytes.buf.byteLength < need);
    if (bytes === undefined) bytes = new ByteWriter(need);
    bytes.len = 0;
    this.batch = { bytes, types: [], ends: [] };
  }

  /** Closes the write batch; resolves when all of its records are durable (rejects when the append fails). */
  endBatch(): Promise<unknown> {
    const b = this.batch;
    this.batch = null;
    if (b === null) throw new Error('no write batch is open');
    // The batch's sources are copied: their message's buffer need not stay alive.
    wholeBuffer = null;
    if (b.types.length === 0 || !this.translog) { this.spare(b.bytes); return Promise.resolve(); }
    const records: { type: number; payload: Uint8Array }[] = new Array(b.types.length);
    for (let i = 0, start = 0; i < records.length; start = b.ends[i++]) records[i] = { type: b.types[i], payload: b.bytes.buf.subarray(start, b.ends[i]) };
    const durable = this.translog.appendBatch(records);
    // The log reads the records' bytes until they are written; once they are durable a later batch may write
    // over them. A fresh buffer of a bulk batch's size per batch was hundreds of first-touched pages (~15 µs
    // each on this project's virtual machines). A failed append keeps its buffer out of reuse.
    durable.then(() => this.spare(b.bytes), () => {});
    return durable;
  }

  /** Keeps a written batch's buffer for a later batch (at most SPARE_BATCH_BUFFERS of them). */
  private spare(bytes: ByteWriter): void {
    if (this.spareBatchBytes.length < SPARE_BATCH_BUFFERS) this.spareBatchBytes.push(bytes);
  }

  /** Replays one translog record (idempotent: older sequence numbers than what is held are skipped). */
  replayRecord(type: number, payload: Uint8Array): void {
    const op = decodeTranslogOp(type, payload, `translog of [${this.indexName}][${this.shard}]`);
    // Records the last commit already holds (those between the translog cut and the commit) are skipped.
    const cur = this.versionEntry(op.id);
    if (cur && cur.seqNo >= op.seqNo) { if (op.seqNo > this.maxSeqNo) this.maxSeqNo = op.seqNo; return; }
    const entry: DocEntry = { source: op.source, version: op.version, seqNo: op.seqNo, primaryTerm: op.primaryTerm };
    if (op.routing !== null) entry.routing = op.routing;
    if (op.deletedAt !== null) entry.deletedAt = op.deletedAt;
    this.apply(op.id, entry, null, false);
    this.translogOps++;
    this.translogBytes += payload.byteLength;
  }

  /** Publishes writes to searches and wakes `refresh=wait_for` waiters. */
  refresh(): void {
    this.shardIndex.refresh();
    this.dirty = false;
    const w = this.refreshWaiters;
    this.refreshWaiters = [];
    for (const f of w) f();
  }

  /** Resolves after the next refresh. */
  waitForRefresh(): Promise<void> {
    return new Promise((r) => this.refreshWaiters.push(r));
  }

  /** Forgets tombstones older than gc_deletes and resets the translog counters a flush trims. */
  afterFlush(): void {
    const now = this.now();
    for (const [id, t] of this.tombstones) if (now - t.deletedAt > this.gcDeletesMs) this.tombstones.delete(id);
    this.translogOps = 0;
    this.translogBytes = 0;
  }

  stats(translogSizeBytes: number): ShardStats {
    const s: IndexStats = this.shardIndex.stats();
    return {
      docsCount: s.docs, docsDeleted: s.deleted, rootDocs: s.roots, storeBytes: s.sizeBytes + translogSizeBytes,
      maxSeqNo: this.maxSeqNo, translogOps: this.translogOps, translogBytes: translogSizeBytes,
      segments: s.segments, segmentsMemoryBytes: s.memoryBytes, merges: s.merges, refreshes: s.refreshes, refreshMs: s.refreshMs, flushes: s.flushes, flushMs: s.flushMs,
    };
  }
}

/** A Buffer over the whole ArrayBuffer of the last source decoded: a bulk body's sources share one. */
let wholeBuffer: Buffer | null = null;

/** The UTF-8 text of `view` without a Buffer object per document (sources are views into one task batch). */
function utf8Of(view: Uint8Array): string {
  if (wholeBuffer === null || wholeBuffer.buffer !== view.buffer) wholeBuffer = Buffer.from(view.buffer, 0, view.buffer.byteLength);
  return wholeBuffer.toString('utf8', view.byteOffset, view.byteOffset + view.byteLength);
}

/** A write applied in memory whose translog append is `durable`. */
export interface Pending { result: WriteResult; durable: Promise<unknown> }

async function settle(p: Pending | MappingNeeded): Promise<WriteResult | MappingNeeded> {
  if ('mappingUpdate' in p) return p;
  await p.durable;
  return p.result;
}

function nextVersion(op: WriteConditions, cur: VersionEntry | undefined): number {
  if ((op.versionType === 'external' || op.versionType === 'external_gte' || op.versionType === 'force') && op.version !== undefined) return op.version;
  return (cur?.version ?? 0) + 1;
}

/**
 * ES's `index.mapping.depth.limit` default. Not read from the index settings yet: the limit also keeps the
 * recursive mapping and indexing walks within the stack, so it is not raised per index.
 */
const MAPPING_DEPTH_LIMIT = 20;

/**
 * Parses a document body; ES answers `mapper_parsing_exception: failed to parse` for anything not a JSON
 * object, and (when `checkIndex` names the index) for duplicate keys, nesting past `MAX_JSON_DEPTH`, or
 * objects nested past the mapping depth limit.
 */
export function parseDocument(text: string, checkIndex: string | null = ''): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw mapperParsing('failed to parse', { cause: cause('DOC_JSON_PARSE', [(e as Error).message]) });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw mapperParsing('failed to parse', { cause: cause('DOC_NOT_X_CONTENT', ['Compressor detection can only be called on some xcontent bytes or compressed xcontent bytes']) });
  }
  // A repeated key would be stored as sent and break every later update; deep nesting would overflow the
  // mapping walk. ES's parser refuses both, before anything is stored.
  const problem = checkIndex !== null ? jsonStructureProblem(text, MAX_JSON_DEPTH, MAPPING_DEPTH_LIMIT) : null;
  if (problem?.kind === 'objectDepth') {
    throw mapperParsing('failed to parse', { cause: cause('DOC_ILLEGAL_ARGUMENT', [`Limit of mapping depth [${MAPPING_DEPTH_LIMIT}] in index [${checkIndex}] has been exceeded due to object field [${problem.key}]`]) });
  }
  if (problem !== null) throw mapperParsing('failed to parse', { cause: cause('DOC_JSON_PARSE', [jsonProblemMessage(problem)]) });
  return doc as Record<string, unknown>;
}
