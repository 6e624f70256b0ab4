/**
 * Worker adapters for the metrics store. Worker i owns the TSDB shard `<tsdb path>/shard-i` (head, WAL and
 * the parts its head cuts), which receives the series the client hashes to i. The blocks live in `<tsdb
 * path>` itself, one per range for the whole TSDB (docs/format.md "TSDB directory layout"): every worker
 * serves the series of them routed to it, and worker 0 merges the parts into them, compacts them and applies
 * retention (`tsdb.maintainShared`). Shard directories left by a larger worker count (shard-j, j ≥ workers)
 * are adopted by worker j mod workers: their head is flushed to parts on open, which the next maintenance
 * merges, so changing `--workers` loses nothing. A Prometheus WAL at `<tsdb path>/wal` is imported, each
 * worker taking the series routed to it.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { FetchedSeries, Labels, Matcher, MatchType } from '../engine/tsdb/api.ts';
import { newMatcher } from '../engine/tsdb/api.ts';
import { InvalidArgumentError } from '../engine/errors.ts';
import { checkTsdbLayout, cleanSharedTombstones, maintainShared, emptyTick, SharedBlocks, cleanTombstones, flushHead, headStatus, importPrometheusWal, mergeOverlappingBlocks, PromWal, refreshBlocks, shardFigures, snapshot, tick, Tsdb } from '../engine/tsdb/index.ts';
import type { AppendArgs, AppendReply, OpArgs, OpResult, MatcherWire, SelectArgs, SelectReply, SelectorRangeArgs, TaskSubset, WorkerInit } from './protocol.ts';
import type { PackedSelect } from '../engine/tsdb/packed-series.ts';
import { readSelection } from '../engine/tsdb/select-reader.ts';
import { outOfBand } from '../engine/codec/msgpack.ts';
import { readStopOf, shutdownStopOf } from './read-stop-of.ts';
import { sortedUnion, sortedUnionBy } from '../engine/tsdb/sorted-union.ts';
import { compareFlatLabels } from '../engine/tsdb/labels.ts';
import type { MultiSourceQuerier } from '../engine/tsdb/querier.ts';

/** This worker's shards; `shared` (worker 0 only) maintains the shared blocks. */
interface Shards { own: Tsdb; all: Tsdb[]; shared: SharedBlocks | null }

let opened: Promise<Shards> | null = null;
let openArgs: OpArgs<'tsdb.open'> = { retentionMs: 15 * 86_400_000, retentionBytes: 0 };

function tsdbRoot(ctx: WorkerInit): string {
  const p = ctx.options.tsdbPath as string | undefined;
  return p ? p : path.join(ctx.dataDir, 'tsdb');
}

function openShard(ctx: WorkerInit, root: string, n: number): Promise<Tsdb> {
  const own = n === ctx.workerId;
  const compress = openArgs.walCompression ?? (ctx.options.walCompression as boolean | undefined) ?? true;
  return Tsdb.open({
    dir: path.join(root, `shard-${n}`),
    openWal: (dir) => PromWal.open({
      dir, compress,
      segmentSizeBytes: ctx.options.walSegmentSizeBytes as number | undefined,
      repair: ctx.options.walRepair as boolean | undefined,
      onFailure: (err) => dropShards(err),
    }),
    retentionMs: openArgs.retentionMs,
    retentionBytes: openArgs.retentionBytes,
    blockRangeMs: openArgs.blockRangeMs,
    maxBlockDurationMs: openArgs.maxBlockDurationMs,
    shared: { dir: root, shard: n, shards: ctx.workerCount, serve: own, writer: own && n === 0 },
  });
}

/**
 * A failed WAL batch (disk full, I/O error) left samples and series in the head that were refused: the shards
 * are dropped at once — the WAL calls this before the batch's appends reject — and the next call reopens them
 * from disk (blocks + the WAL, put back to its durable end). That is also how appends resume once space is
 * back; the new head's epoch makes clients resend labels for refs of the old one.
 */
let closing: { dbs: Promise<Shards>; done: Promise<boolean>; cause: unknown } | null = null;

function dropShards(cause: unknown): void {
  if (!opened) return;
  const dbs = opened;
  opened = null;
  process.emitWarning(`TSDB WAL write failed (${(cause as Error).message}); reopening the shard from disk`, 'TesseraWalWarning');
  startClosing(dbs, cause);
}

function startClosing(dbs: Promise<Shards>, cause: unknown): void {
  const c = { dbs, cause, done: Promise.resolve(false) };
  c.done = dbs.then(async (s) => {
    s.shared?.close();
    const results = await Promise.allSettled(s.all.map((d) => d.close()));
    const bad = results.find((r) => r.status === 'rejected');
    if (bad) { process.emitWarning(`TSDB: putting back the WAL failed (${String((bad as PromiseRejectedResult).reason)}); retrying on the next call`, 'TesseraWalWarning'); return false; }
    if (closing === c) closing = null;
    return true;
  }, () => true);
  closing = c;
}

/** Waits for dropped shards to close; when the WAL is still not put back, retries and throws the failure. */
async function awaitClosed(): Promise<void> {
  const c = closing;
  if (!c || await c.done) return;
  if (closing === c) startClosing(c.dbs, c.cause);
  throw c.cause;
}

async function shards(ctx: WorkerInit): Promise<Shards> {
  if (closing) await awaitClosed();
  opened ??= (async () => {
    const root = tsdbRoot(ctx);
    await checkTsdbLayout(root, ctx.workerId === 0);
    const own = await openShard(ctx, root, ctx.workerId);
    // A Prometheus data directory's WAL: this shard takes the series routed to it (read-only import, once).
    await importPrometheusWal(own, root, ctx.workerId, ctx.workerCount);
    const all = [own];
    for (const name of await fsp.readdir(root).catch(() => [] as string[])) {
      const m = /^shard-(\d+)$/.exec(name);
      const j = m ? Number(m[1]) : -1;
      if (j < ctx.workerCount || j % ctx.workerCount !== ctx.workerId) continue;
      const extra = await openShard(ctx, root, j);
      await flushHead(extra);
      all.push(extra);
    }
    const shared = ctx.workerId === 0 ? new SharedBlocks({ dir: root, view: own, blockRangeMs: own.blockRangeMs, now: own.now, shutdown: shutdownStopOf(ctx), ...retentionOf(openArgs) }) : null;
    return { own, all, shared };
  })();
  const mine = opened;
  // A failed open (a full disk cannot create the WAL's segment) is retried by the next call.
  mine.catch(() => { if (opened === mine) opened = null; });
  return mine;
}

function retentionOf(a: Partial<OpArgs<'tsdb.open'>>): { retentionMs?: number; retentionBytes?: number; maxBlockDurationMs?: number } {
  return { retentionMs: a.retentionMs, retentionBytes: a.retentionBytes, maxBlockDurationMs: a.maxBlockDurationMs };
}

export function toLabels(flat: readonly string[]): Labels {
  const out = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ name: flat[i], value: flat[i + 1] });
  return out;
}

function flatLabels(ls: Labels): string[] {
  const out: string[] = new Array(ls.length * 2);
  for (let i = 0; i < ls.length; i++) { out[2 * i] = ls[i].name; out[2 * i + 1] = ls[i].value; }
  return out;
}

function matchers(ws: readonly MatcherWire[]): Matcher[] {
  return ws.map((w) => {
    try { return newMatcher(w.type as MatchType, w.name, w.value); } catch (err) {
      throw InvalidArgumentError.of('INVALID_ARGUMENT', [`invalid regular expression "${w.value}": ${(err as Error).message}`]);
    }
  });
}

/** Series of every shard of this worker, concatenated (the client merges equal label sets). */
async function select(a: SelectArgs, ctx: WorkerInit): Promise<SelectReply> {
  const ms = matchers(a.matchers);
  const got: FetchedSeries[] = [];
  const stop = readStopOf(a.deadlineMs, a.stopSlot, ctx);
  for (const d of (await shards(ctx)).all) got.push(...d.select(ms, a.mint, a.maxt, stop));
  const offsets = new Uint32Array(got.length + 1);
  for (let i = 0; i < got.length; i++) offsets[i + 1] = offsets[i] + got[i].t.length;
  const t = new Float64Array(offsets[got.length]), v = new Float64Array(offsets[got.length]);
  for (let i = 0; i < got.length; i++) { t.set(got[i].t, offsets[i]); v.set(got[i].v, offsets[i]); }
  return { labels: got.map((s) => flatLabels(s.labels)), offsets, t, v };
}

/**
 * The query path's select: label sets interned, samples as their stored XOR chunks in one byte array sent
 * out of band (transferred), so the main thread forwards the reply to the evaluating worker without decoding
 * it, and that worker decodes a series when the evaluation reaches it.
 */
async function selectPacked(a: SelectArgs, ctx: WorkerInit): Promise<PackedSelect> {
  const queriers = (await shards(ctx)).all.map((d) => d.querier(a.mint, a.maxt));
  const p = readSelection(queriers, matchers(a.matchers), a.mint, a.maxt, readStopOf(a.deadlineMs, a.stopSlot, ctx));
  return { ...p, refs: outOfBand(p.refs), lOff: outOfBand(p.lOff), cOff: outOfBand(p.cOff), bStart: outOfBand(p.bStart), bEnd: outOfBand(p.bEnd), data: outOfBand(p.data) };
}

/**
 * The queriers label names and values are read from. Those come from a block's whole index, not from the
 * series a shard owns, so every shard's views of the shared blocks would report the same names and values:
 * only worker 0's own shard reads the shared blocks (each worker did, and the main thread merged copies).
 */
async function labelQueriers(a: SelectorRangeArgs, ctx: WorkerInit): Promise<MultiSourceQuerier[]> {
  return (await shards(ctx)).all.map((d, i) => d.querier(a.mint, a.maxt, ctx.workerId === 0 && i === 0));
}

/** Sorted, distinct: the main thread merges the workers' lists (sortedUnion). */
async function labelNames(a: SelectorRangeArgs, ctx: WorkerInit): Promise<string[]> {
  const sets = a.selectors.length ? a.selectors.map(matchers) : [[]];
  const lists: string[][] = [];
  for (const q of await labelQueriers(a, ctx)) for (const ms of sets) lists.push(q.labelNames(ms));
  return sortedUnion(lists);
}

/** Sorted, distinct: the main thread merges the workers' lists (sortedUnion). */
async function labelValues(a: SelectorRangeArgs & { name: string }, ctx: WorkerInit): Promise<string[]> {
  const sets = a.selectors.length ? a.selectors.map(matchers) : [[]];
  const lists: string[][] = [];
  for (const q of await labelQueriers(a, ctx)) for (const ms of sets) lists.push(q.labelValues(a.name, ms));
  return sortedUnion(lists);
}

/** Flat label sets, sorted and distinct: the main thread merges the workers' lists. */
async function series(a: SelectorRangeArgs, ctx: WorkerInit): Promise<string[][]> {
  const sets = a.selectors.map(matchers);
  const lists: string[][][] = [];
  for (const d of (await shards(ctx)).all) lists.push(d.series(sets, a.mint, a.maxt).map(flatLabels));
  return sortedUnionBy(lists, compareFlatLabels);
}

/** The samples of table entries `entries` (not appended: their refs were unknown), for the sender to resend. */
function samplesOfEntries(a: AppendArgs, entries: readonly number[]): NonNullable<AppendReply['resend']> {
  const wanted = new Uint8Array(a.refs.length);
  for (const j of entries) wanted[j] = 1;
  let n = 0;
  for (let k = 0; k < a.sidx.length; k++) n += wanted[a.sidx[k]];
  const out = { sidx: new Uint32Array(n), ts: new Float64Array(n), vs: new Float64Array(n) };
  for (let k = 0, q = 0; k < a.sidx.length; k++) {
    if (wanted[a.sidx[k]] === 0) continue;
    out.sidx[q] = a.sidx[k]; out.ts[q] = a.ts[k]; out.vs[q++] = a.vs[k];
  }
  return out;
}

async function forAll<T>(ctx: WorkerInit, fn: (d: Tsdb) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const d of (await shards(ctx)).all) out.push(await fn(d));
  return out;
}

export const tsdbTasks = {
  'tsdb.open': async (a, ctx) => {
    if (!opened) openArgs = a;
    return (await shards(ctx)).own.walReplay;
  },
  'tsdb.append': async (a, ctx) => {
    const own = (await shards(ctx)).own;
    // Refs from another opening of the shard (worker restarted) mean nothing: marked stale (negative).
    const refs = a.epoch === own.epoch ? a.refs : a.refs.map((r) => (r > 0 ? -1 : 0));
    const r = await own.append({ flat: a.series, refs, sidx: a.sidx, ts: a.ts, vs: a.vs });
    const reply: OpResult<'tsdb.append'> = { ...r, epoch: own.epoch };
    if (r.refs) reply.refs = outOfBand(r.refs);
    if (r.unknown) reply.resend = samplesOfEntries(a, r.unknown);
    return reply;
  },
  'tsdb.select': select,
  'tsdb.selectPacked': selectPacked,
  'tsdb.labelNames': labelNames,
  'tsdb.labelValues': labelValues,
  'tsdb.series': series,
  'tsdb.deleteSeries': async (a, ctx) => {
    const sets = a.selectors.map(matchers);
    await forAll(ctx, async (d) => { for (const ms of sets) await d.deleteSeries(ms, a.mint, a.maxt); });
    return null;
  },
  'tsdb.cleanTombstones': async (_a, ctx) => {
    const s = await shards(ctx);
    const n = (await forAll(ctx, cleanTombstones)).reduce((x, y) => x + y, 0);
    return n + (s.shared ? await cleanSharedTombstones(s.shared) : 0);
  },
  'tsdb.snapshot': async (a, ctx) => { await forAll(ctx, (d) => snapshot(d, a.dir, a.withHead)); return null; },
  'tsdb.mergeSnapshot': async (a, ctx) => mergeOverlappingBlocks(a.dir, (await shards(ctx)).own.now()),
  'tsdb.status': async (_a, ctx) => headStatus((await shards(ctx)).own),
  'tsdb.figures': async (_a, ctx) => shardFigures((await shards(ctx)).own),
  'tsdb.walReplay': async (_a, ctx) => (await shards(ctx)).own.walReplay,
  /** Block cutting, compaction and retention; carries the retention settings so a restarted worker gets them. */
  'tsdb.tick': async (a, ctx) => forAll(ctx, async (d) => {
    if (a) d.setRetention(a);
    await refreshBlocks(d); // imported blocks appear within one tick, without a restart
    return tick(d);
  }),
  'tsdb.maintainShared': async (a, ctx) => {
    const s = await shards(ctx);
    if (!s.shared) return emptyTick();
    if (a) s.shared.setRetention(retentionOf(a));
    return maintainShared(s.shared);
  },
  'tsdb.reloadBlocks': async (_a, ctx) => { await forAll(ctx, refreshBlocks); return null; },
  'tsdb.close': async () => {
    if (!opened) return null;
    const s = await opened;
    opened = null;
    s.shared?.close();
    for (const d of s.all) await d.close();
    return null;
  },
} satisfies TaskSubset;
