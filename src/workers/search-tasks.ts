/**
 * Worker adapters of the search API: the per-shard query+fetch phase, the dfs statistics phase, scroll
 * pages over a held reader, and `_analyze`. Shards come from the worker's shard registry; a search that hits
 * damaged files fails its shard there.
 */
import { readStopOf } from './read-stop-of.ts';
import type { SearchArgs, ShardCall, Stale, TaskSubset, WorkerInit } from './protocol.ts';
import { shardRegistry } from './docs-tasks.ts';
import {
  analyzeRequest, collectDfs, FetchBoard, fetchPhase, GlobalStats, ScrollStore, searchShard,
  type DfsStats, type IndexReader, type SearchRequest, type ShardResult, type ShardSearchOptions,
} from '../engine/search/index.ts';


/** Query-phase readers awaiting their fetch phase (freed by the fetch, or after a minute). */
const pendingFetch = new Map<string, { reader: IndexReader; req: SearchRequest; opts: ShardSearchOptions; timer: NodeJS.Timeout }>();

const scrolls = new ScrollStore();

function releaseFetch(key: string): void {
  const p = pendingFetch.get(key);
  if (!p) return;
  pendingFetch.delete(key);
  clearTimeout(p.timer);
  p.reader.release();
}

/** Runs `fn` on the shard's current reader (null when the shard needs its metadata sent). */
async function withReader<T>(c: ShardCall, init: WorkerInit, fn: (reader: IndexReader) => T): Promise<T | Stale> {
  const reg = shardRegistry(init);
  const o = await reg.shard(c.uuid, c.shard, c.mv, c.meta);
  if (!o) return { stale: true };
  const s = o.stored.shard;
  return reg.guard(o, () => fn(s.shardIndex.reader(s.mapping)));
}

/** Runs `fn` (on a reader held across tasks) guarded by its shard, when that shard is still open. */
function onHeld<T>(c: ShardCall, init: WorkerInit, fn: () => T): T | Promise<T> {
  const reg = shardRegistry(init);
  const o = reg.get(c.uuid, c.shard);
  return o ? reg.guard(o, fn) : fn();
}

let board: FetchBoard | null = null;

/** This worker's view of the fetch board it was started with. */
function fetchBoardOf(init: WorkerInit): FetchBoard | null {
  if (board === null && init.fetchBoard) board = new FetchBoard(init.fetchBoard);
  return board;
}

function query(a: SearchArgs, init: WorkerInit): Promise<ShardResult | Stale> {
  return withReader(a, init, (reader) => queryPhase(a, reader, init));
}

function queryPhase(a: SearchArgs, reader: IndexReader, init: WorkerInit): ShardResult {
  const opts = { index: a.index, type: a.type, boost: a.boost, nowMs: a.nowMs, filter: a.filter, shardCount: a.shardCount, maxBuckets: a.maxBuckets, stop: readStopOf(undefined, a.stopSlot, init), stats: a.stats ? new GlobalStats(a.stats) : undefined };
  if (a.fetchKey) {
    const key = a.fetchKey;
    // The reader stays open (its segments with it) until the fetch phase or a minute passes.
    reader.acquire();
    const timer = setTimeout(() => releaseFetch(key), 60_000);
    timer.unref();
    pendingFetch.set(key, { reader, req: a.req, opts, timer });
    return searchShard(reader, a.req, { ...opts, noFetch: true });
  }
  if (!a.scroll) {
    const b = a.board ? fetchBoardOf(init) : null;
    return searchShard(reader, a.req, b ? { ...opts, board: { board: b, seat: a.board! } } : opts);
  }
  const all = searchShard(reader, a.req, { ...opts, topN: reader.maxDoc(), noFetch: true });
  reader.acquire();
  scrolls.put(a.scroll.key, { reader, hits: all.hits, req: a.req, index: a.index, nowMs: a.nowMs }, a.scroll.keepAliveMs);
  const page = scrolls.page(a.scroll.key, 0, a.req.size)!;
  return { ...all, hits: page };
}

function dfs(a: SearchArgs, init: WorkerInit): Promise<DfsStats | Stale> {
  return withReader(a, init, (reader) => collectDfs(reader, a.req, a.index, a.nowMs, a.filter));
}

export const searchTasks = {
  'search.query': query,
  'search.dfs': dfs,
  'search.scroll': (a, init) => onHeld(a, init, () => {
    const hits = scrolls.page(a.key, a.offset, a.size, a.keepAliveMs);
    return hits ? { hits } : { missing: true as const };
  }),
  'search.clearScroll': (a) => a.keys.map((k) => scrolls.delete(k)),
  'search.fetch': (a, init) => {
    const p = pendingFetch.get(a.key);
    if (!p) return { missing: true as const };
    try {
      return onHeld(a, init, () => ({ hits: a.hits.length ? fetchPhase(p.reader, p.req, a.hits, p.opts) : [] }));
    } finally {
      releaseFetch(a.key);
    }
  },
  'search.analyze': (a) => analyzeRequest(a),
} satisfies TaskSubset;
