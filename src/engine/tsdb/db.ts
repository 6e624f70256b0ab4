/**
 * One TSDB shard: a head (in memory, made durable by the WAL) over immutable blocks on disk. Appends are
 * validated and applied to the head synchronously, then logged; they resolve once the WAL record is
 * fsynced (so an acknowledged sample survives kill -9). Block cutting, compaction, retention and
 * tombstone cleaning live in db-maintenance.ts.
 */
import { ERRORS } from '../errors.ts';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { FetchedSeries, Labels, Matcher } from './api.ts';
import type { SeriesSource } from './chunk-meta.ts';
import { APPEND_DUP_IGNORED, APPEND_OK, ERR_DUPLICATE, ERR_OUT_OF_BOUNDS, ERR_OUT_OF_ORDER, Head } from './head.ts';
import { compareLabels, labelsFromFlat, labelsKey } from './labels.ts';
import { fetchSeries, MultiSourceQuerier } from './querier.ts';
import { ReadStop } from '../read-stop.ts';
import type { OpenWal, TsdbWal } from './wal-port.ts';
import { encodeSamplesRecord, encodeSeriesRecord, encodeTombstonesRecord, samplesRecordBound } from './prom-wal-records.ts';
import type { SeriesRec, TombstoneRec } from './prom-wal-records.ts';
import { replayInto, type WalReplayStatus } from './head-replay.ts';
import { upgradeLegacyWal } from './legacy-wal.ts';
import { HeadChunkFiles } from './head-chunks.ts';
import { Block, dirSize, listBlockDirs, openBlock } from './block.ts';
import { readMeta, type BlockMeta } from './block-meta.ts';
import { OwnedBlock } from './owned-block.ts';
import { removeBlockDir, supersededUlids } from './shard-layout.ts';

export const HOUR_MS = 3_600_000;
/**
 * Bound of the tombstone intervals an unbounded delete records: 2^52 - 1 ms (about 142,000 years), the largest
 * magnitude whose zigzag varint (2|t| or 2|t| - 1) is still an exact double. The JS date bound 8.64e15 used
 * before came back from a tombstones file or WAL record as +8.64e15 for the lower end (2 · 8.64e15 - 1 rounds).
 */
export const MAX_TIME_MS = 2 ** 52 - 1;
export const DEFAULT_BLOCK_RANGE_MS = 2 * HOUR_MS;

export interface TsdbOptions {
  dir: string;
  openWal: OpenWal;
  /** Block range (Prometheus's min block duration), default 2 h. */
  blockRangeMs?: number;
  /** `--storage.tsdb.retention.time` in ms (0 = off). */
  retentionMs?: number;
  /** `--storage.tsdb.retention.size` in bytes (0 = off). */
  retentionBytes?: number;
  /** Largest compacted block, default min(10% of retention, 31 d). */
  maxBlockDurationMs?: number;
  /** Extra directories whose block sub-directories this shard also serves (e.g. an import target). */
  extraBlockDirs?: string[];
  /**
   * Set when `dir` is a shard directory of a sharded TSDB (shard-layout.ts): the blocks live in `shared.dir`,
   * and `dir` only holds the parts this shard's head cuts until the shared maintenance merges them.
   */
  shared?: SharedDirOptions;
  /** Wall clock, replaceable in tests. */
  now?: () => number;
}

export interface SharedDirOptions {
  /** The TSDB directory whose blocks all shards share. */
  dir: string;
  /** This shard's number, and the number of shard workers the client routes series over. */
  shard: number;
  shards: number;
  /** Serve the shared blocks' series routed to `shard` (false for a shard directory adopted read-only). */
  serve: boolean;
  /** This shard writes the shared blocks' tombstones (one shard does; the others apply deletions in memory). */
  writer: boolean;
}

/**
 * A batch of samples: unique label sets (table entries), and per sample the index of its entry, t (ms) and
 * value. Label sets come either as `series` (one per entry) or in the worker protocol's flat
 * `[name, value, …]` form (`flat`), whose `join('\xff')` is the head's series key: label objects are then
 * only built for new series.
 */
export interface AppendBatch {
  series?: readonly Labels[];
  /**
   * The label sets of the entries given without a ref (`refs[i]` is 0, or all entries when there are no
   * `refs`), in entry order: a steady-state batch whose entries all go by ref carries none.
   */
  flat?: readonly (readonly string[])[];
  /**
   * Per table entry, a series ref the caller learnt from an earlier result (`AppendResult.refs`); 0 = none
   * (its labels come next in `flat`, or in `series`); negative = a ref the caller knows to be stale (from
   * another opening of the shard), sent without labels. A ref the head does not have (any longer), or a
   * negative one, is reported in `unknown`.
   */
  refs?: ArrayLike<number>;
  sidx: ArrayLike<number>;
  ts: Float64Array;
  vs: Float64Array;
}

export interface AppendResult {
  added: number;
  outOfOrder: number;
  duplicate: number;
  outOfBounds: number;
  /** The first error text, as Prometheus words it, when any sample was refused. */
  firstError: string;
  /**
   * Present when some table entry came with labels: the ref of each such entry (0 elsewhere), for the caller
   * to send next time instead of the labels.
   */
  refs?: Float64Array;
  /** Table entries whose given ref is gone (e.g. the series was dropped at a block cut); not appended. */
  unknown?: number[];
}

export type { WalReplayStatus } from './head-replay.ts';

export class Tsdb {
  readonly head: Head;
  /** Identifies this opening of the shard: refs handed out are only valid together with it. */
  readonly epoch = Math.floor(Math.random() * 0x7fffffff) + 1;
  /** Blocks of this shard's directory: all its blocks, or in a sharded TSDB the parts not yet merged. */
  blocks: Block[] = [];
  /** This shard's views of the shared blocks (sharded TSDB only). */
  shared: OwnedBlock[] = [];
  readonly now: () => number;
  readonly blockRangeMs: number;
  walReplay: WalReplayStatus = { min: 0, max: 0, current: 0 };
  /** Changes retention settings (applied by the next tick). */
  setRetention(r: { retentionMs?: number; retentionBytes?: number; maxBlockDurationMs?: number }): void {
    const o = this.opts as { retentionMs?: number; retentionBytes?: number; maxBlockDurationMs?: number };
    if (r.retentionMs !== undefined) o.retentionMs = r.retentionMs;
    if (r.retentionBytes !== undefined) o.retentionBytes = r.retentionBytes;
    if (r.maxBlockDurationMs !== undefined) o.maxBlockDurationMs = r.maxBlockDurationMs;
  }

  /** Per-append working arrays, reused: an append of 100k samples would otherwise allocate megabytes each time. */
  private readonly scratch = new AppendScratch();

  /** Serialises maintenance (cut, compaction, retention, clean, snapshot) in this shard. */
  maintenance: Promise<unknown> = Promise.resolve();

  private constructor(readonly opts: TsdbOptions, readonly wal: TsdbWal, head: Head) {
    this.blockRangeMs = opts.blockRangeMs ?? DEFAULT_BLOCK_RANGE_MS;
    this.head = head;
    this.now = opts.now ?? Date.now;
  }

  get dir(): string { return this.opts.dir; }

  static async open(opts: TsdbOptions): Promise<Tsdb> {
    await fsp.mkdir(opts.dir, { recursive: true });
    const head = new Head(opts.blockRangeMs ?? DEFAULT_BLOCK_RANGE_MS, new HeadChunkFiles(path.join(opts.dir, 'chunks_head')));
    const loaded = await retryVanished(() => loadBlocks(opts, { blocks: [], shared: [] }, head));
    // A shard whose WAL is still in layout 1 is replayed from it and rewritten (legacy-wal.ts); the new WAL
    // then holds exactly the head, so it is not replayed again.
    const upgraded = await upgradeLegacyWal(head, opts.dir, opts.openWal);
    const wal = upgraded ? upgraded.wal : await opts.openWal(path.join(opts.dir, 'wal'));
    const db = new Tsdb(opts, wal, head);
    db.blocks = loaded.blocks;
    db.shared = loaded.shared;
    db.walReplay = upgraded ? upgraded.status : await replayInto(head, wal);
    return db;
  }

  /** (Re)reads the block directories: picks up new ones (e.g. written by an import) and drops vanished ones. */
  async reloadBlocks(): Promise<void> {
    const next = await retryVanished(() => loadBlocks(this.opts, this, this.head));
    this.blocks = next.blocks;
    this.shared = next.shared;
  }

  /** Bytes of this shard's WAL, checkpoints included (counted towards the size retention). */
  async walSizeBytes(): Promise<number> {
    return dirSize(path.join(this.dir, 'wal')).catch(() => 0);
  }

  /**
   * Appends a batch; samples before `minValidMs` are out of bounds. The default is the live window (the newest
   * block, or half a block range behind the head's max time); an import of older, logged data passes the
   * head's own min valid time instead, as WAL replay uses. Everything up to the WAL write runs synchronously.
   */
  async append(batch: AppendBatch, minValidMs = this.head.appendableMinValidTime()): Promise<AppendResult> {
    const head = this.head;
    const res: AppendResult = { added: 0, outOfOrder: 0, duplicate: 0, outOfBounds: 0, firstError: '' };
    const minValid = minValidMs;
    const nSeries = batch.refs ? batch.refs.length : batch.flat ? batch.flat.length : batch.series!.length;
    const resolved = this.scratch.series(nSeries);
    const created: SeriesRec[] = [];
    let outRefs: Float64Array | undefined;
    const unknown: number[] = [];
    let nextFlat = 0;
    for (let i = 0; i < nSeries; i++) {
      const given = batch.refs ? batch.refs[i] : 0;
      if (given !== 0) {
        const s = given > 0 ? head.slotOf(given) : -1;
        if (s < 0) unknown.push(i);
        resolved[i] = s;
        continue;
      }
      const flat = batch.flat ? batch.flat[nextFlat++] : null;
      let s = flat ? head.seriesOfFlat(flat) : head.seriesOf(batch.series![i]);
      if (s < 0) {
        const r = head.getOrCreate(flat ? labelsFromFlat(flat) : batch.series![i]);
        s = r.series;
        if (r.created) created.push({ ref: head.refAt(s), labels: head.labelsAt(s) });
      }
      resolved[i] = s;
      (outRefs ??= new Float64Array(nSeries))[i] = head.refAt(s);
    }
    if (outRefs) res.refs = outRefs;
    if (unknown.length) res.unknown = unknown;
    const n = batch.ts.length;
    const { refs, accepted } = this.scratch.samples(n);
    let na = 0;
    for (let i = 0; i < n; i++) {
      const s = resolved[batch.sidx[i]];
      if (s < 0) continue; // stale ref: reported in `unknown`, the caller resends with labels
      const t = batch.ts[i], v = batch.vs[i];
      const code = head.appendable(s, t, v, minValid);
      if (code === APPEND_OK) { head.appendUnchecked(s, t, v); refs[i] = head.refAt(s); accepted[na++] = i; continue; }
      if (code === APPEND_DUP_IGNORED) continue;
      countError(res, code);
    }
    res.added = na;
    head.totals.outOfOrderRefused += res.outOfOrder;
    head.totals.outOfBoundsRefused += res.outOfBounds;
    head.totals.seriesNotFound += unknown.length;
    const records: Uint8Array[] = [];
    if (created.length) records.push(encodeSeriesRecord(created));
    const buf = na ? this.scratch.takeRecordBuffer(samplesRecordBound(na)) : null;
    if (na) records.push(encodeSamplesRecord(refs, batch.ts, batch.vs, accepted, na, buf!));
    if (records.length) await this.wal.log(records);
    head.totals.samplesAppended += na;
    // The log has read the record: the next append may write over its buffer.
    if (buf) this.scratch.giveRecordBuffer(buf);
    return res;
  }

  /**
   * Sources a query over `[mint, maxt]` reads: overlapping blocks, oldest first, then the head; without this
   * shard's views of the shared blocks when `withShared` is false (label names and values are read from a
   * block's whole index, so one shard answers for the shared blocks).
   */
  sources(withShared = true): SeriesSource[] {
    return withShared ? [...this.blocks, ...this.shared, this.head] : [...this.blocks, this.head];
  }

  querier(mint: number, maxt: number, withShared = true): MultiSourceQuerier {
    return new MultiSourceQuerier(this.sources(withShared), mint, maxt);
  }

  /** Series matching `ms` with their samples in `[mint, maxt]`; throws once `stop` says so (ReadStop.check). */
  select(ms: readonly Matcher[], mint: number, maxt: number, stop: ReadStop = ReadStop.NEVER): FetchedSeries[] {
    return fetchSeries(this.querier(mint, maxt), ms, mint, maxt, stop);
  }

  /** Label sets of the series matching any of the selectors, in range, sorted and distinct. */
  series(selectors: readonly (readonly Matcher[])[], mint: number, maxt: number): Labels[] {
    const q = this.querier(mint, maxt);
    // One selector's list already is (a key string per series cost more than listing them).
    if (selectors.length === 1) return q.seriesLabels(selectors[0], mint, maxt);
    const byKey = new Map<string, Labels>();
    for (const ms of selectors) for (const ls of q.seriesLabels(ms, mint, maxt)) byKey.set(labelsKey(ls), ls);
    return [...byKey.values()].sort(compareLabels);
  }

  /** Marks `[mint, maxt]` of every matching series deleted, in the head (logged) and in the blocks. */
  async deleteSeries(ms: readonly Matcher[], mint: number, maxt: number): Promise<void> {
    // Unbounded requests arrive as ±Infinity; tombstones store exact integers (see MAX_TIME_MS).
    mint = Math.max(mint, -MAX_TIME_MS);
    maxt = Math.min(maxt, MAX_TIME_MS);
    if (mint > maxt) return;
    const recs: TombstoneRec[] = [];
    const refs = this.head.index.select(ms).toUint32Array();
    for (let i = 0; i < refs.length; i++) recs.push({ ref: refs[i], mint, maxt });
    await this.deleteHeadSeries(recs);
    // Block tombstones go through the maintenance chain so a compaction never rewrites a block from data
    // read before a concurrent delete (the delete then lands on the compacted block instead).
    const run = async (): Promise<void> => {
      for (const b of this.blocks) {
        if (b.meta.maxTime <= mint || b.meta.minTime > maxt) continue;
        await b.addTombstones(ms, mint, maxt);
      }
      const writer = this.opts.shared?.writer ?? false;
      for (const v of this.shared) {
        if (v.maxTime <= mint || v.minTime > maxt) continue;
        await v.block.addTombstones(ms, mint, maxt, writer);
      }
    };
    const p = this.maintenance.then(run, run);
    this.maintenance = p.catch(() => {});
    await p;
  }

  /** Tombstones head series by ref (intervals in ms, inclusive) and logs them; unknown refs are ignored. */
  async deleteHeadSeries(recs: readonly TombstoneRec[]): Promise<void> {
    for (const r of recs) this.head.addTombstone(r.ref, [r.mint, r.maxt]);
    if (recs.length) await this.wal.log([encodeTombstonesRecord(recs)]);
  }

  /** Closes the WAL and the head's chunk files; throws when the WAL could not put back a failed batch's files. */
  async close(): Promise<void> {
    await this.maintenance.catch(() => {});
    try {
      await this.wal.close();
    } finally {
      // chunks_head/ is emptied at open and rebuilt from the WAL: a last flush that fails (disk full) loses nothing.
      try { this.head.chunkFiles.close(); } catch { /* see above */ }
      // Blocks hold their files open from the start (block.ts): release them with the shard.
      for (const blk of this.blocks) blk.close();
      for (const v of this.shared) v.block.close();
    }
  }
}

function countError(res: AppendResult, code: number): void {
  if (code === ERR_OUT_OF_ORDER) { res.outOfOrder++; res.firstError ||= ERRORS.TSDB_OUT_OF_ORDER; }
  else if (code === ERR_DUPLICATE) { res.duplicate++; res.firstError ||= ERRORS.TSDB_DUPLICATE_SAMPLE; }
  else if (code === ERR_OUT_OF_BOUNDS) { res.outOfBounds++; res.firstError ||= ERRORS.TSDB_OUT_OF_BOUNDS; }
}

/**
 * Opens the block directories of the shard (its own directory, its extra directories and in a sharded TSDB the
 * shared directory), keeping the already open ones and closing those gone, and raises the head's min valid
 * time to the newest data cut from this head. Only that bounds its appends; backfilled blocks may overlap it
 * (as in Prometheus, whose head min-valid time is the max time of the blocks it persisted itself). Blocks a
 * shared block names as parents are superseded: never served, and deleted by their directory's owner.
 */
async function loadBlocks(opts: TsdbOptions, open: { blocks: readonly Block[]; shared: readonly OwnedBlock[] }, head: Head): Promise<{ blocks: Block[]; shared: OwnedBlock[] }> {
  const byDir = new Map<string, Block>();
  for (const b of open.blocks) byDir.set(b.dir, b);
  for (const v of open.shared) byDir.set(v.block.dir, v.block);
  const known = new Set(byDir.values());
  const sh = opts.shared;
  try {
    const sharedBlocks: Block[] = [];
    const metas: BlockMeta[] = [];
    if (sh) {
      const dirs = await listBlockDirs([sh.dir], byDir);
      if (sh.serve) await openNew(dirs, byDir);
      for (const d of dirs) {
        if (!sh.serve) { metas.push(await readMeta(d)); continue; }
        const b = byDir.get(d)!;
        sharedBlocks.push(b);
        metas.push(b.meta);
      }
    }
    const ownAll: Block[] = [];
    const ownDirs = await listBlockDirs([opts.dir, ...(opts.extraBlockDirs ?? [])], byDir);
    await openNew(ownDirs, byDir);
    for (const d of ownDirs) {
      const b = byDir.get(d)!;
      ownAll.push(b);
      metas.push(b.meta);
    }
    const superseded = supersededUlids(metas);
    const blocks: Block[] = [];
    for (const b of ownAll) {
      // Merged or compacted before a crash let the inputs' deletion finish: delete them now.
      if (superseded.has(b.ulid)) { b.close(); await removeBlockDir(b.dir); } else blocks.push(b);
    }
    const prev = new Map(open.shared.map((v) => [v.block, v]));
    const shared: OwnedBlock[] = [];
    for (const b of sharedBlocks) {
      if (!superseded.has(b.ulid)) shared.push(prev.get(b) ?? new OwnedBlock(b, sh!.shard, sh!.shards));
    }
    blocks.sort((x, y) => x.minTime - y.minTime);
    shared.sort((x, y) => x.minTime - y.minTime);
    const kept = new Set<Block>(blocks);
    for (const v of shared) kept.add(v.block);
    for (const b of byDir.values()) if (!kept.has(b)) b.close(); // gone, superseded (the shared pass deletes those)
    head.minValidTime = Math.max(head.minValidTime, headBound(blocks, sh ? metasOfShared(shared, metas, sh) : [], sh?.shard ?? -1));
    return { blocks, shared };
  } catch (err) {
    for (const b of byDir.values()) if (!known.has(b)) b.close(); // opened by this attempt
    throw err;
  }
}

/**
 * Opens the directories of `dirs` not in `byDir` yet, adding each block to `byDir` as it opens, so that the caller
 * closes them when another fails; the first failure stops the opening and is thrown. One at a time: opening reads
 * its files synchronously (see `isLegacyBlock`), so there are no waits to overlap.
 */
async function openNew(dirs: readonly string[], byDir: Map<string, Block>): Promise<void> {
  for (const d of dirs) if (!byDir.has(d)) byDir.set(d, await openBlock(d));
}

/** The shared blocks' metas this shard's head bound is read from (all of them when it does not serve them). */
function metasOfShared(shared: readonly OwnedBlock[], metas: readonly BlockMeta[], sh: SharedDirOptions): BlockMeta[] {
  return sh.serve ? shared.map((v) => v.block.meta) : [...metas];
}

/**
 * The newest time this shard's head was cut at: its own `cutFromHead` blocks' max time, and what the shared
 * blocks record for shard `shard` in `tessera.headCuts`.
 */
function headBound(own: readonly Block[], shared: readonly BlockMeta[], shard: number): number {
  let t = -Infinity;
  for (const b of own) if (b.meta.tessera?.cutFromHead && b.meta.maxTime > t) t = b.meta.maxTime;
  for (const m of shared) t = Math.max(t, m.tessera?.headCuts?.[shard] ?? -Infinity);
  return t;
}

/**
 * Runs `load` again when a block directory vanished while it was being opened (another shard's maintenance
 * deleted a block between the listing and the open): the next listing no longer has it.
 */
async function retryVanished<T>(load: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try { return await load(); } catch (err) {
      const gone = (err as NodeJS.ErrnoException).code === 'ENOENT' || /ENOENT/.test((err as Error).message);
      if (!gone || attempt >= 3) throw err;
    }
  }
}

/**
 * Working arrays of `Tsdb.append`, grown to the largest batch seen and reused (their contents are dead once
 * the WAL records are encoded, which copies them, before the append's first await).
 */
class AppendScratch {
  /** Head slots of a batch's series, -1 for a ref the head does not know. */
  private seriesArr = new Int32Array(1024);
  private refsArr = new Float64Array(1024);
  private acceptedArr = new Uint32Array(1024);

  series(n: number): Int32Array {
    if (this.seriesArr.length < n) this.seriesArr = new Int32Array(n);
    return this.seriesArr;
  }

  samples(n: number): { refs: Float64Array; accepted: Uint32Array } {
    if (this.refsArr.length < n) { this.refsArr = new Float64Array(n); this.acceptedArr = new Uint32Array(n); }
    return { refs: this.refsArr, accepted: this.acceptedArr };
  }

  /**
   * A samples record's buffer, kept between appends once the WAL has logged the record in it: a scrape's
   * 50,000-sample record was a fresh 1.4 MB array per append, hundreds of first-touched pages (~15 µs each on
   * this project's virtual machines). Appends in flight at once each take their own.
   */
  private spareRecord: Uint8Array | null = null;

  takeRecordBuffer(bytes: number): Uint8Array {
    const b = this.spareRecord;
    this.spareRecord = null;
    return b !== null && b.byteLength >= bytes ? b : new Uint8Array(bytes);
  }

  /** Keeps `b` for the next append (the larger of it and the one kept). */
  giveRecordBuffer(b: Uint8Array): void {
    if (this.spareRecord === null || this.spareRecord.byteLength < b.byteLength) this.spareRecord = b;
  }
}
