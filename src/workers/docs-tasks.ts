/**
 * Worker adapters of the documents API. Shards open lazily from disk on the first call that names them;
 * every call carries the index's mapping version and, when the worker may not have it, the index metadata
 * (`meta`). A call for a shard this worker has not opened, or with a newer mapping than it holds and no
 * `meta`, answers `{stale: true}` and the main thread repeats it with `meta`.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DocShard } from '../engine/documents/doc-shard.ts';
import { StoredShard } from '../engine/documents/shard-store.ts';
import { refreshIntervalMs, type FlatSettings } from '../engine/documents/settings.ts';
import type { ShardStats, StoredDoc } from '../engine/documents/doc-shard-types.ts';
import { BlockCache, IndexingMemory, type SegmentReport } from '../engine/indexing/index.ts';
import { toWire } from '../engine/errors.ts';
import type { ItemOutcome, ShardCall, ShardListArgs, ShardMeta, Stale, TaskSubset, WorkerInit, WriteArgs } from './protocol.ts';

interface Open { stored: StoredShard; mv: number; refreshMs: number | null; lastRefresh: number }

const shards = new Map<string, Open>();
const opening = new Map<string, Promise<Open>>();

/** The worker's share of the node-wide budgets (flags `indices.memory.*`), created with the first shard. */
let budgets: { cache: BlockCache; memory: IndexingMemory } | null = null;

function workerBudgets(init: WorkerInit): { cache: BlockCache; memory: IndexingMemory } {
  const per = (total: unknown, def: number): number => Math.max(1 << 20, Math.floor((typeof total === 'number' && total > 0 ? total : def) / init.workerCount));
  budgets ??= {
    cache: new BlockCache(per(init.options.segmentCacheBytes, 192 << 20)),
    memory: new IndexingMemory(per(init.options.indexBufferBytes, 128 << 20)),
  };
  return budgets;
}

/** The worker's segment cache and indexing buffer use (zeros before the first shard opens). */
export function budgetUse(): { cacheBytes: number; cacheHits: number; cacheMisses: number; indexBufferBytes: number } {
  if (!budgets) return { cacheBytes: 0, cacheHits: 0, cacheMisses: 0, indexBufferBytes: 0 };
  const c = budgets.cache.stats();
  return { cacheBytes: c.bytes, cacheHits: c.hits, cacheMisses: c.misses, indexBufferBytes: budgets.memory.usedBytes() };
}

/** The open shard (for search tasks running on this worker), or undefined. */
export function getDocShard(indexUuid: string, shardNum: number): DocShard | undefined {
  return shards.get(`${indexUuid}/${shardNum}`)?.stored.shard;
}

const FLUSH_TRANSLOG_BYTES = 64 * 1024 * 1024;
let timer: NodeJS.Timeout | null = null;

/** Scheduled refreshes and size-triggered flushes of every open shard that is due. */
function tick(): void {
  const now = Date.now();
  for (const o of shards.values()) {
    const s = o.stored.shard;
    // Merged segments are published by the scheduled refresh too, so searches move off the merged inputs.
    const due = s.dirty || s.shardIndex.mergedSinceRefresh;
    if (due && o.refreshMs !== null && now - o.lastRefresh >= o.refreshMs) { s.refresh(); o.lastRefresh = now; }
    if (s.translogBytes > FLUSH_TRANSLOG_BYTES) void o.stored.flush();
  }
}

// The pool runs workers with `atomics: 'async'`, so this timer runs in an idle worker too; every task also calls
// tick() first, so a read never sees a refresh that is overdue.
function startTimer(): void {
  if (timer) return;
  timer = setInterval(tick, 100);
  timer.unref();
}

async function shardFor(c: ShardCall, init: WorkerInit): Promise<Open | null> {
  tick();
  const key = `${c.uuid}/${c.shard}`;
  let cur = shards.get(key);
  if (!cur) {
    // No await between the lookups and `opening.set`: two concurrent calls must share one open, or two
    // instances would write the same translog.
    let p = opening.get(key);
    if (!p) {
      if (!c.meta) return null;
      p = openShard(key, c, c.meta, init);
      opening.set(key, p);
    }
    cur = await p;
  }
  if (cur.mv >= c.mv) return cur;
  if (!c.meta) return null;
  const s = cur.stored.shard;
  s.mapping = c.meta.mapping; s.type = c.meta.type; s.indexName = c.meta.name;
  cur.mv = c.meta.mappingVersion;
  cur.refreshMs = refreshIntervalMs(c.meta.settings);
  return cur;
}

function openShard(key: string, c: ShardCall, meta: ShardMeta, init: WorkerInit): Promise<Open> {
  const { cache, memory } = workerBudgets(init);
  // Translog records are not compressed: like ES's translog, they are short-lived and snappy costs ~8% of a
  // worker's indexing time for a file that a flush deletes anyway.
  return StoredShard.open(join(init.dataDir, 'es', 'indices', c.uuid, String(c.shard)), {
    indexName: meta.name, uuid: c.uuid, shard: c.shard, type: meta.type, mapping: meta.mapping,
  }, {
    cache, memory, indexSettings: nestedIndexSettings(meta.settings), walCompression: false, walRepair: init.options.walRepair === true,
    onWarning: (m) => console.warn(m), onInfo: (m) => console.log(m),
  }).then(
    (stored): Open => {
      const o: Open = { stored, mv: meta.mappingVersion, refreshMs: refreshIntervalMs(meta.settings), lastRefresh: Date.now() };
      shards.set(key, o);
      opening.delete(key);
      startTimer();
      return o;
    },
    (err: unknown) => { opening.delete(key); throw err; },
  );
}

function nestedIndexSettings(flat: FlatSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flat)) {
    const parts = k.replace(/^index\./, '').split('.');
    let node = out;
    for (let i = 0; i < parts.length - 1; i++) node = (node[parts[i]] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = v;
  }
  return out;
}

/** Applies every item in order (each changes memory before the next), then awaits their translog appends. */
async function write(args: WriteArgs, init: WorkerInit): Promise<Stale | ItemOutcome[]> {
  const o = await shardFor(args, init);
  if (!o) return { stale: true };
  const s = o.stored.shard;
  const out: ItemOutcome[] = new Array(args.items.length);
  const durable: Promise<unknown>[] = [];
  let stopped = false;
  for (let i = 0; i < args.items.length; i++) {
    const it = args.items[i];
    if (stopped) { out[i] = { pending: true }; continue; }
    try {
      const r = it.action === 'delete' ? s.deleteNow(it.op) : it.action === 'update' ? s.updateNow(it.op) : s.indexNow({ ...it.op, create: it.action === 'create' });
      // A mapping update stops the batch here: later items may use the new fields.
      if ('mappingUpdate' in r) { out[i] = r; stopped = true; continue; }
      out[i] = { ok: r.result };
      durable.push(r.durable.catch((e) => { out[i] = { err: toWire(e) }; }));
    } catch (e) {
      out[i] = { err: toWire(e) };
    }
  }
  await Promise.all(durable);
  const wrote = out.some((r) => 'ok' in r);
  if (args.refresh === 'true' && wrote) { s.refresh(); o.lastRefresh = Date.now(); markForced(out); }
  else if (args.refresh === 'wait_for' && wrote) {
    if (o.refreshMs === null) { s.refresh(); markForced(out); } else await s.waitForRefresh();
  }
  return out;
}

function markForced(out: ItemOutcome[]): void {
  for (const r of out) if ('ok' in r && r.ok.result !== 'noop') r.ok.forcedRefresh = true;
}

async function get(args: ShardCall & { id: string }, init: WorkerInit): Promise<Stale | { doc: StoredDoc | null }> {
  const o = await shardFor(args, init);
  if (!o) return { stale: true };
  return { doc: o.stored.shard.getDoc(args.id) };
}

async function eachOpen<T>(args: ShardListArgs, init: WorkerInit, fn: (o: Open) => T | Promise<T>): Promise<Stale | T[]> {
  const out: T[] = [];
  for (const k of args.keys) {
    const o = await shardFor(k, init);
    if (!o) return { stale: true };
    out.push(await fn(o));
  }
  return out;
}

async function dropIndex(args: { uuid: string }, init: WorkerInit): Promise<boolean> {
  for (const [key, o] of [...shards]) {
    if (!key.startsWith(`${args.uuid}/`)) continue;
    shards.delete(key);
    await o.stored.destroy();
  }
  await rm(join(init.dataDir, 'es', 'indices', args.uuid), { recursive: true, force: true });
  return true;
}

async function closeAll(): Promise<boolean> {
  for (const [key, o] of [...shards]) { shards.delete(key); await o.stored.flush(); await o.stored.close(); }
  return true;
}

export const docsTasks = {
  'docs.write': write,
  'docs.get': get,
  'docs.refresh': (a, init) => eachOpen(a, init, (o) => { o.stored.shard.refresh(); o.lastRefresh = Date.now(); return true; }),
  'docs.flush': (a, init) => eachOpen(a, init, async (o) => { await o.stored.flush(); return true; }),
  'docs.stats': (a, init) => eachOpen(a, init, (o): ShardStats => o.stored.shard.stats(o.stored.translogBytes())),
  'docs.segments': (a, init) => eachOpen(a, init, (o): SegmentReport[] => o.stored.shard.shardIndex.segments()),
  'docs.forceMerge': (a, init) => eachOpen(a, init, async (o) => {
    await o.stored.shard.shardIndex.forceMerge(a.maxNumSegments, a.onlyExpungeDeletes);
    if (a.flush) await o.stored.flush();
    return true;
  }),
  'docs.drop': dropIndex,
  'docs.closeAll': closeAll,
} satisfies TaskSubset;
