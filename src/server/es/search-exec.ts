/**
 * Coordinator of a search: resolves indices (aliases with their filters, wildcards), fans the query out to
 * every shard's worker (after a dfs round for `dfs_query_then_fetch`), merges the shard top hits by score or
 * sort keys (ties: shard order — shard number, then index name, as ES's ShardId order — then doc id),
 * reduces aggregations, and turns shard failures into ES's grouped `search_phase_execution_exception`.
 */
import type { EsCluster, ResolvedIndex } from './cluster.ts';
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import type { SearchRequest } from '../../engine/search/index.ts';
import { simpleMatch } from '../../engine/regex/index.ts';
import type { ShardHit, ShardResult } from '../../engine/search/index.ts';
import type { Query } from '../../engine/search/index.ts';
import { parseQuery } from '../../engine/search/index.ts';
import { mergeDfs, type DfsStats } from '../../engine/search/index.ts';
import { reduceAggs } from '../../engine/search/index.ts';
import { reduceSuggest, type SuggestResult } from '../../engine/search/index.ts';
import type { AggPartial } from '../../engine/search/index.ts';
import { compareKeys, type SortValue } from '../../engine/search/index.ts';
import { sliceForShard, type SliceSpec } from '../../engine/search/index.ts';
import { boardFits } from '../../engine/search/index.ts';
import { EngineError, InvalidArgumentError } from '../../engine/errors.ts';
import { asErrorLike, errorObject, esErrorType } from './errors.ts';
import type { CollapseInnerHits } from './search-collapse.ts';

export interface ShardTarget { index: ResolvedIndex; meta: IndexMeta; shard: number; filter: Query | null; order: number }

export interface MergedHit extends ShardHit {
  indexName: string; type: string; shardOrder: number; shardNum?: number;
  /** Collapsed searches with inner_hits: the group searches of this hit (search-collapse.ts). */
  collapseInner?: CollapseInnerHits[];
}

export interface SearchOutcome {
  total: number;
  maxScore: number;
  hits: MergedHit[];
  aggs: AggPartial[] | null;
  shards: { total: number; successful: number; skipped: number; failed: number; failures?: unknown[] };
  terminatedEarly: boolean | null;
  sortKinds: string[] | null;
  /** Per-shard results (scroll keeps offsets). */
  perShard: (ShardResult | null)[];
  /** The most aggregation buckets one shard built (6.8 warns past 10,000). */
  shardAggBuckets: number;
  suggest?: SuggestResult;
}

export function aliasFilterQuery(f: unknown): Query | null {
  if (f === null || f === undefined) return null;
  const filters = Array.isArray(f) ? f : [f];
  const qs = filters.map((x) => parseQuery({ q: x }, 'q', true));
  if (qs.length === 1) return qs[0];
  // Several aliases selecting the same index: ES ORs their filters.
  return { type: 'bool', must: [], should: qs, mustNot: [], filter: [], filterContext: true, boost: 1 };
}

/** Shards to search, in ES's shard-iterator order. */
export function shardTargets(cluster: EsCluster, indices: ResolvedIndex[], routing: string[] | null, shardOf: (meta: IndexMeta, routing: string) => number): ShardTarget[] {
  const out: ShardTarget[] = [];
  for (const r of indices) {
    const meta = cluster.indexByUuid(r.uuid);
    if (!meta) continue;
    const filter = aliasFilterQuery(r.aliasFilter);
    const routes = routing ?? (r.searchRouting ? r.searchRouting.split(',') : null);
    const shards = routes ? [...new Set(routes.map((v) => shardOf(meta, v)))] : Array.from({ length: r.numberOfShards }, (_, i) => i);
    for (const s of shards) out.push({ index: r, meta, shard: s, filter, order: 0 });
  }
  out.sort((a, b) => a.shard - b.shard || (a.index.name < b.index.name ? -1 : a.index.name > b.index.name ? 1 : 0));
  out.forEach((t, i) => { t.order = i; });
  return out;
}

/** The first `indices_boost` entry naming this index (or a wildcard matching it), as ES applies them. */
function indexBoost(req: SearchRequest, name: string): number {
  for (const [pat, b] of req.indicesBoost) if (simpleMatch(pat, name)) return b;
  return 1;
}

export interface ExecOptions {
  dfs: boolean; nowMs: number; scroll?: { keyPrefix: string; keepAliveMs: number };
  /** `search.max_buckets` (-1 or absent: unset). */
  maxBuckets?: number;
  /** The client's: the shard searches stop in the workers once it goes away. */
  signal?: AbortSignal;
  /** Every shard fetches all its top hits (no fetch board): the retry of a search whose page had unfetched hits. */
  fetchAll?: boolean;
}

export async function executeSearch(cluster: EsCluster, targets: ShardTarget[], req: SearchRequest, o: ExecOptions): Promise<SearchOutcome> {
  if (req.slice) {
    // As ES's SearchService: every shard refuses a slice outside a scroll.
    if (!o.scroll) throw phaseFailure(targets.map((t) => ({ t, err: new InvalidArgumentError('SEARCH_CONTEXT', '`slice` cannot be used outside of a scroll context') })));
    targets = targets.map((t) => sliced(t, req.slice!));
  }
  const shardCount = targets.length;
  let stats: DfsStats | undefined;
  if (o.dfs && targets.length > 0) {
    const parts = await Promise.all(targets.map((t) => cluster.shardCall(t.meta, t.shard, 'search.dfs', { index: t.index.name, req, filter: t.filter, nowMs: o.nowMs, shardCount })));
    stats = mergeDfs(parts);
  }
  // Several shards: query then fetch (only the final page's hits are fetched), as ES's query_then_fetch — unless
  // every shard's page is small: then each shard fetches its own top hits in the query phase and the extra
  // round trip to the workers (the larger cost here, where shards share the process) is saved.
  const fetchId = !o.scroll && targets.length > 1 && req.size > 0 && targets.length * (req.from + req.size) > SINGLE_PHASE_MAX_HITS ? `f${++fetchSeq}` : null;
  // Single phase over several shards: the shards share a fetch board, and each fetches only the hits that can
  // still be on the page (engine/search/fetch-board.ts). Collapsed pages keep one hit per group: not ranks.
  const slots = !fetchId && !o.scroll && !o.fetchAll && !req.collapse && boardFits(targets.length, req.from, req.size) ? cluster.fetchBoard : null;
  const lent = slots ? slots.borrow() : null;
  let settled: PromiseSettledResult<ShardResult>[];
  try {
    settled = await Promise.allSettled(targets.map((t) => cluster.shardCall(t.meta, t.shard, 'search.query', {
      index: t.index.name, type: t.index.type ?? '_doc', boost: indexBoost(req, t.index.name), req, filter: t.filter, nowMs: o.nowMs, shardCount, stats, maxBuckets: o.maxBuckets,
      scroll: o.scroll ? { key: `${o.scroll.keyPrefix}/${t.order}`, keepAliveMs: o.scroll.keepAliveMs } : undefined,
      fetchKey: fetchId ? `${fetchId}/${t.order}` : undefined,
      board: lent ? { slot: lent.slot, epoch: lent.epoch, shard: t.order, shardCount } : undefined,
    }, o.signal)));
  } finally {
    if (lent) slots!.giveBack(lent.slot);
  }
  const failures: { t: ShardTarget; err: EngineError | Error }[] = [];
  const perShard: (ShardResult | null)[] = settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    failures.push({ t: targets[i], err: s.reason });
    return null;
  });
  if (targets.length > 0 && failures.length === targets.length) throw phaseFailure(failures);
  const out = merge(targets, perShard, req, failures);
  // A hit the board left unfetched made the page after all (a shard that published its hits then failed): the
  // board only advises, so the search runs again with every shard fetching its own.
  if (lent && out.hits.some((h) => h.unfetched)) return executeSearch(cluster, targets, req, { ...o, fetchAll: true });
  if (fetchId) await fetchPage(cluster, targets, perShard, out, fetchId);
  return out;
}

let fetchSeq = 0;

/** The target restricted to what slice `s` reads of its shard (all, nothing, or an `_id`-hash part). */
function sliced(t: ShardTarget, s: SliceSpec): ShardTarget {
  const part = sliceForShard(s, t.shard, t.index.numberOfShards);
  if (part === 'all') return t;
  const q: Query = part === 'none' ? { type: 'match_none', boost: 1 } : { type: 'slice', id: part.id, max: part.max, boost: 1 };
  const filter: Query = t.filter ? { type: 'bool', must: [], should: [], mustNot: [], filter: [t.filter, q], filterContext: true, boost: 1 } : q;
  return { ...t, filter };
}

/** Searches fetching at most this many hits over all shards skip the separate fetch phase. */
const SINGLE_PHASE_MAX_HITS = 64;

/** Fetch phase: each shard that answered fetches its hits of the final page (an empty list frees its reader). */
async function fetchPage(cluster: EsCluster, targets: ShardTarget[], perShard: (ShardResult | null)[], out: SearchOutcome, fetchId: string): Promise<void> {
  const byShard = new Map<number, number[]>();
  out.hits.forEach((h, i) => { const l = byShard.get(h.shardOrder); if (l) l.push(i); else byShard.set(h.shardOrder, [i]); });
  await Promise.all(targets.map(async (t) => {
    if (!perShard[t.order]) return;
    const idx = byShard.get(t.order) ?? [];
    const r = await cluster.shardCall(t.meta, t.shard, 'search.fetch', {
      key: `${fetchId}/${t.order}`, hits: idx.map((i) => ({ doc: out.hits[i].doc, score: out.hits[i].score, sort: out.hits[i].sort })),
    });
    ('hits' in r ? r.hits : []).forEach((h, j) => { const i = idx[j]; out.hits[i] = { ...out.hits[i], ...h }; });
  }));
}

function merge(targets: ShardTarget[], perShard: (ShardResult | null)[], req: SearchRequest, failures: { t: ShardTarget; err: Error }[]): SearchOutcome {
  let total = 0, maxScore = -Infinity, terminated: boolean | null = null, shardAggBuckets = 0;
  const all: MergedHit[] = [];
  const aggParts: AggPartial[][] = [];
  perShard.forEach((r, i) => {
    if (!r) return;
    const t = targets[i];
    total += r.total;
    if (r.maxScore > maxScore) maxScore = r.maxScore;
    if (r.terminatedEarly !== null) terminated = (terminated ?? false) || r.terminatedEarly;
    if (r.aggs) aggParts.push(r.aggs);
    if (r.aggBuckets > shardAggBuckets) shardAggBuckets = r.aggBuckets;
    // The shard's hits were decoded for this search alone: completed in place (a spread copy per hit went
    // through V8's slow object-clone path, ~5% of the HTTP thread's time per search).
    const type = t.index.type ?? '_doc';
    for (const h of r.hits as MergedHit[]) {
      h.indexName = t.index.name; h.type = type; h.shardOrder = t.order; h.shardNum = t.shard;
      all.push(h);
    }
  });
  const sortKinds = sortKindsOf(req);
  all.sort(hitComparator(req, sortKinds));
  const hits = (req.collapse ? firstOfEachGroup(all) : all).slice(req.from, req.from + req.size);
  const aggs = req.aggs && aggParts.length ? reduceAggs(req.aggs, aggParts) : null;
  const shards: SearchOutcome['shards'] = { total: targets.length, successful: targets.length - failures.length, skipped: 0, failed: failures.length };
  if (failures.length) shards.failures = failures.map((f) => shardFailure(f.t, f.err));
  const out: SearchOutcome = { total, maxScore, hits, aggs, shards, terminatedEarly: terminated, sortKinds, perShard, shardAggBuckets };
  const suggests = perShard.flatMap((r) => (r?.suggest ? [r.suggest] : []));
  if (req.suggest && suggests.length) out.suggest = reduceSuggest(req.suggest, suggests);
  return out;
}

/** Collapsed searches: each shard sent its best hit per group; the best of them wins (ES's CollapseTopFieldDocs.merge). */
function firstOfEachGroup(sorted: MergedHit[]): MergedHit[] {
  const seen = new Set<string>();
  return sorted.filter((h) => {
    const k = h.group === null || h.group === undefined ? 'null' : `${typeof h.group}:${h.group}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function sortKindsOf(req: SearchRequest): string[] | null {
  if (!req.sort || (req.sort.length === 1 && req.sort[0].field === '_score' && req.sort[0].order === 'desc')) return null;
  return req.sort.map((s) => (s.field === '_score' ? 'score' : s.field === '_doc' ? 'doc' : 'any'));
}

export function hitComparator(req: SearchRequest, kinds: string[] | null): (a: MergedHit, b: MergedHit) => number {
  if (!kinds) return (a, b) => b.score - a.score || a.shardOrder - b.shardOrder || a.doc - b.doc;
  const rev = req.sort!.map((s) => s.order === 'desc');
  const first = req.sort!.map((s) => s.missing === '_first');
  return (a, b) => compareSortValues(a.sort ?? [], b.sort ?? [], rev, first) || a.shardOrder - b.shardOrder || a.doc - b.doc;
}

const isStr = (v: SortValue): boolean => v === null || (typeof v === 'string' && v !== 'Infinity' && v !== '-Infinity');

function compareSortValues(a: SortValue[], b: SortValue[], rev: boolean[], first: boolean[]): number {
  const kinds = a.map((v, i) => (isStr(v) || isStr(b[i]) ? 'str' : 'num'));
  return compareKeys(kinds, rev, a, b, first);
}

/** Script failures carry no index metadata in ES (a ScriptException is not tied to an index). */
const NO_INDEX_META = new Set(['DOC_SCRIPT', 'SEARCH_SCRIPT_RUNTIME', 'SEARCH_CONTEXT', 'SEARCH_TOO_MANY_BUCKETS']);

function shardFailure(t: ShardTarget, err: Error): Record<string, unknown> {
  const e = asErrorLike(err);
  const withIdx = NO_INDEX_META.has(e.code) ? e : { code: e.code, message: e.message, details: { ...e.details, index_uuid: t.index.uuid, index: t.index.name } };
  return { shard: t.shard, index: t.index.name, node: 'tessera-node', reason: errorObject(withIdx, true) };
}

/**
 * The final reduce failed (every shard answered): as 6.8, where the reduce runs in the fetch phase, a
 * search_phase_execution_exception of phase `fetch` with no shard failures and the status of its cause.
 */
export function reducePhaseFailure(err: EngineError): EngineError {
  return new InvalidArgumentError(phaseFailedCode(esErrorType(err.code).status), '', { phase: 'fetch', grouped: true, failed_shards: [], cause: err });
}

/** As Elasticsearch's SearchPhaseExecutionException: the status of the failures it wraps. */
function phaseFailedCode(status: number): 'SEARCH_PHASE_FAILED_503' | 'SEARCH_PHASE_FAILED_500' | 'SEARCH_PHASE_FAILED' {
  return status === 503 ? 'SEARCH_PHASE_FAILED_503' : status >= 500 ? 'SEARCH_PHASE_FAILED_500' : 'SEARCH_PHASE_FAILED';
}

/** All shards failed: ES's search_phase_execution_exception with identical causes grouped. */
export function phaseFailure(failures: { t: ShardTarget; err: Error }[]): EngineError {
  const grouped: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const f of failures) {
    const fail = shardFailure(f.t, f.err);
    const key = `${f.t.index.name}\u0000${JSON.stringify(fail.reason)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    grouped.push(fail);
  }
  const first = asErrorLike(failures[0].err);
  const firstWithIdx = { code: first.code, message: first.message, details: { ...first.details, index_uuid: failures[0].t.index.uuid, index: failures[0].t.index.name } };
  return new InvalidArgumentError(phaseFailedCode(esErrorType(first.code).status), 'all shards failed', {
    phase: 'query', grouped: true, failed_shards: grouped, cause: firstWithIdx
  });
}
