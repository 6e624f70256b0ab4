/**
 * Worker adapters of the documents API over the worker's shard registry (`engine/documents/shard-registry.ts`).
 * Every call carries the index's mapping version and, when the worker may not have it, the index metadata
 * (`meta`). A call for a shard this worker has not opened, or with a newer mapping than it holds and no
 * `meta`, answers `{stale: true}` and the main thread repeats it with `meta`.
 */
import { ShardRegistry, type OpenShard, type ShardState } from '../engine/documents/shard-registry.ts';
import { failedStats, type ShardStats, type StoredDoc } from '../engine/documents/doc-shard-types.ts';
import type { SegmentReport } from '../engine/indexing/index.ts';
import { toWire, type WireError } from '../engine/errors.ts';
import { shardTermVectors } from '../engine/documents/doc-term-vectors.ts';
import { clearFielddata, fielddataBytes } from '../engine/search/index.ts';
import { setDocumentsFigures } from './documents-figures.ts';
import { newWriteOutcomes, OUTCOME_FORCED_REFRESH, OUTCOME_OTHER, OUTCOME_PENDING, setOutcome, setResult, WRITE_RESULTS, writeCount, writeItemAt } from './protocol.ts';
import type { ItemOutcome, ShardCall, ShardListArgs, Stale, TaskSubset, WorkerInit, WriteArgs, WriteBatch, WriteOutcomes } from './protocol.ts';

let registry: ShardRegistry | null = null;

/** The worker's registry, created on first use with this worker's share of the node-wide budgets. */
export function shardRegistry(init: WorkerInit): ShardRegistry {
  const per = (total: unknown, def: number): number => Math.max(1 << 20, Math.floor((typeof total === 'number' && total > 0 ? total : def) / init.workerCount));
  registry ??= new ShardRegistry({
    dataDir: init.dataDir, cacheBytes: per(init.options.segmentCacheBytes, 128 << 20), indexBufferBytes: per(init.options.indexBufferBytes, 128 << 20),
    walRepair: init.options.walRepair === true, onWarning: (m) => process.emitWarning(m, 'TesseraShardWarning'), onInfo: (m) => console.log(m),
  });
  // The pool runs workers with `atomics: 'async'`, so a timer runs in an idle worker too; every call also ticks.
  startTimer();
  return registry;
}

let timer: NodeJS.Timeout | null = null;
function startTimer(): void {
  if (timer) return;
  timer = setInterval(() => registry?.tick(), 100);
  timer.unref();
}

// The worker's segment cache and indexing buffer use, once a shard has opened (zeros until then).
setDocumentsFigures(() => registry?.budgetUse() ?? null);

function shardFor(c: ShardCall, init: WorkerInit): Promise<OpenShard | null> {
  return shardRegistry(init).shard(c.uuid, c.shard, c.mv, c.meta);
}

/** Applies every item in order (each changes memory before the next), then awaits their translog appends. */
async function write(args: WriteArgs, init: WorkerInit): Promise<Stale | WriteOutcomes> {
  const n = writeCount(args.items);
  const out = newWriteOutcomes(n);
  const refused = shardRegistry(init).diskFullRefusal(args.uuid, args.shard);
  if (refused) { const err = { err: toWire(refused) }; for (let i = 0; i < n; i++) setOutcome(out, i, err); return out; }
  const o = await shardFor(args, init);
  if (!o) return { stale: true };
  const refresh = args.refresh;
  let items: WriteBatch | null = args.items;
  return shardRegistry(init).guard(o, async () => {
    const s = o.stored.shard;
    let stopped = false, wrote = false;
    // The items' translog records go to the log as one batch once all are applied (doc-shard.ts `beginBatch`).
    let bytes = 0;
    if (Array.isArray(items)) { for (const it of items) if (it.action === 'index' || it.action === 'create') bytes += it.op.source.byteLength + 64; }
    else bytes = items!.sources.byteLength + 64 * n;
    s.beginBatch(bytes);
    let durable: Promise<unknown>;
    try {
      for (let i = 0; i < n; i++) {
        if (stopped) { out.code[i] = OUTCOME_PENDING; continue; }
        const it = writeItemAt(items!, i);
        try {
          if (it.action === 'create') it.op.create = true;
          const r = it.action === 'delete' ? s.deleteNow(it.op) : it.action === 'update' ? s.updateNow(it.op) : s.indexNow(it.op);
          // A mapping update stops the batch here: later items may use the new fields.
          if ('mappingUpdate' in r) { setOutcome(out, i, r); stopped = true; continue; }
          if (r.result.getSource === undefined) setResult(out, i, r.result); else setOutcome(out, i, { ok: r.result });
          wrote = true;
        } catch (e) {
          setOutcome(out, i, { err: toWire(e) });
        }
      }
    } finally {
      // Applied items are not needed past here. Held through the fsync wait below, a batch's item objects, id
      // strings and source views (and through them the batch's bytes) outlived the scavenges that the next
      // batches' indexing ran meanwhile, and were copied and promoted to the old generation.
      items = null;
      durable = s.endBatch();
    }
    try {
      await durable;
    } catch (e) {
      // Every record of the batch failed with it; a noop update wrote none and stands.
      failWritten(out, toWire(e));
      wrote = out.others.some((r) => 'ok' in r) || out.code.some((c) => c < OUTCOME_PENDING);
    }
    // A failed translog append dropped the shard (shard-registry.ts): there is nothing left to refresh.
    wrote &&= !o.dropped;
    if (refresh === 'true' && wrote) { s.refresh(); o.lastRefresh = Date.now(); markForced(out); }
    else if (refresh === 'wait_for' && wrote) {
      if (o.refreshMs === null) { s.refresh(); markForced(out); } else await s.waitForRefresh();
    }
    return out;
  });
}

const NOOP = WRITE_RESULTS.indexOf('noop');

/** Turns every written item's result (all but noops) into `err`. */
function failWritten(out: WriteOutcomes, err: WireError): void {
  const n = out.code.length, failed = { err };
  const otherAt: number[] = [], others: ItemOutcome[] = [];
  for (let i = 0, k = 0; i < n; i++) {
    const c = out.code[i];
    const r = c === OUTCOME_OTHER ? out.others[k++] : null;
    if (c === OUTCOME_PENDING || c === NOOP || (r !== null && !('ok' in r && r.ok.result !== 'noop'))) {
      if (r !== null) { otherAt.push(i); others.push(r); }
      continue;
    }
    out.code[i] = OUTCOME_OTHER;
    otherAt.push(i); others.push(failed);
  }
  out.otherAt = otherAt; out.others = others;
}

function markForced(out: WriteOutcomes): void {
  for (let i = 0; i < out.code.length; i++) {
    const c = out.code[i];
    if (c < OUTCOME_PENDING && c !== NOOP) out.code[i] = c | OUTCOME_FORCED_REFRESH;
  }
  for (const r of out.others) if ('ok' in r && r.ok.result !== 'noop') r.ok.forcedRefresh = true;
}

async function get(args: ShardCall & { id: string }, init: WorkerInit): Promise<Stale | { doc: StoredDoc | null }> {
  const o = await shardFor(args, init);
  if (!o) return { stale: true };
  return shardRegistry(init).guard(o, () => ({ doc: o.stored.shard.getDoc(args.id) }));
}

async function eachOpen<T>(args: ShardListArgs, init: WorkerInit, fn: (o: OpenShard) => T | Promise<T>): Promise<Stale | T[]> {
  const out: T[] = [];
  for (const k of args.keys) {
    const o = await shardFor(k, init);
    if (!o) return { stale: true };
    out.push(await shardRegistry(init).guard(o, () => fn(o)));
  }
  return out;
}

/** Statistics of each shard; a failed shard reports zeros and its failure instead of failing the call. */
async function stats(args: ShardListArgs, init: WorkerInit): Promise<Stale | ShardStats[]> {
  const out: ShardStats[] = [];
  for (const k of args.keys) {
    const st = await shardRegistry(init).state(k.uuid, k.shard, k.mv, k.meta);
    if (st === null) return { stale: true };
    if (st.state === 'FAILED') { out.push(failedStats(st.error.message)); continue; }
    const o = shardRegistry(init).get(k.uuid, k.shard)!;
    const shardStats = o.stored.shard.stats(o.stored.translogBytes());
    if (o.stored.recovery) shardStats.recovery = o.stored.recovery;
    const fd = fielddataBytes(o.stored.shard.shardIndex.reader().segments);
    if (fd.size) shardStats.fielddata = Object.fromEntries(fd);
    out.push(shardStats);
  }
  return out;
}

export const docsTasks = {
  'docs.write': write,
  'docs.get': get,
  'docs.termvectors': async (a, init) => {
    const o = await shardFor(a, init);
    return o ? shardRegistry(init).guard(o, () => shardTermVectors(o.stored.shard, a)) : { stale: true };
  },
  'docs.refresh': (a, init) => eachOpen(a, init, (o) => { o.stored.shard.refresh(); o.lastRefresh = Date.now(); return true; }),
  'docs.flush': (a, init) => eachOpen(a, init, async (o) => { await o.stored.flush(); return true; }),
  'docs.stats': stats,
  'docs.state': async (a, init) => {
    const out: ShardState[] = [];
    for (const k of a.keys) {
      const st = await shardRegistry(init).state(k.uuid, k.shard, k.mv, k.meta);
      if (st === null) return { stale: true };
      out.push(st);
    }
    return out;
  },
  'docs.segments': (a, init) => eachOpen(a, init, (o): SegmentReport[] => o.stored.shard.shardIndex.segments()),
  'docs.forceMerge': (a, init) => eachOpen(a, init, async (o) => {
    await o.stored.shard.shardIndex.forceMerge(a.maxNumSegments, a.onlyExpungeDeletes);
    if (a.flush) await o.stored.flush();
    return true;
  }),
  'docs.drop': async (a, init) => { await shardRegistry(init).drop(a.uuid); return true; },
  'docs.closeAll': async () => { await registry?.closeAll(); return true; },
  'docs.closeIndex': async (a, init) => { await shardRegistry(init).closeIndex(a.uuid); return true; },
  'docs.clearCache': async (_a, init) => { shardRegistry(init).clearCache(); clearFielddata(); return true; },
} satisfies TaskSubset;
