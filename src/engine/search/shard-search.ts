/**
 * The query and fetch phases of one shard: compile the query against the reader, walk every segment's
 * scorer over live root docs, feed aggregations (before `post_filter`), keep the top `from + size` hits by
 * score or sort keys, then fetch `_source`, highlight and metadata for those hits.
 */
import { NO_MORE_DOCS } from '../postings/cursor.ts';
import type { IndexReader, StatsSource } from './index-reader.ts';
import type { SearchRequest, SourceFilter } from './search-request.ts';
import { compile, allWeight } from './query-compiler.ts';
import type { CompileContext, Weight } from './weight.ts';
import { BoundSort, compareKeys, compareOne, type SortValue } from './sort.ts';
import { TopFieldCollector, TopScoreCollector } from './top-collectors.ts';
import { TermScorer } from './scorers.ts';
import { WindowSumScorer } from './window-scorer.ts';
import { filterSource } from './source-filter.ts';
import { createAggCollectors, type AggPartial } from './aggs/agg-collectors.ts';
import { BucketBudget, consumePartialBuckets } from './aggs/bucket-budget.ts';
import { ReadStop } from '../read-stop.ts';
import { highlightHit } from './highlighter.ts';
import type { Query } from './query-ast.ts';
import { explainQuery, type Explanation } from './explain.ts';
import { InnerHitsFetcher, nestedWithInnerHits, type InnerHitsResult } from './inner-hits.ts';
import { GroupTopCollector, GroupValues, type GroupValue } from './collapse.ts';
import { suggestShard, type SuggestResult } from './suggest.ts';
import { BOARD_BY_KEY_ASC, BOARD_BY_KEY_DESC, BOARD_BY_SCORE, FETCH_BOARD_MAX_HITS, type BoardSeat, type FetchBoard } from './fetch-board.ts';


export interface ShardHit {
  id: string;
  /** Shard-wide doc id (ties break on it). */
  doc: number;
  score: number;
  sort: SortValue[] | null;
  source: string | null;
  highlight: Record<string, string[]> | null;
  version?: number;
  seqNo?: number;
  primaryTerm?: number;
  fields?: Record<string, unknown[]>;
  explanation?: Explanation | null;
  routing?: string;
  innerHits?: Record<string, InnerHitsResult>;
  /** The hit's collapse group (searches with `collapse` only). */
  group?: GroupValue;
  /** Not fetched: the fetch board showed it cannot be on the page (fetch-board.ts); id, source and the rest are empty. */
  unfetched?: true;
}

export interface ShardResult {
  total: number;
  maxScore: number;
  hits: ShardHit[];
  aggs: AggPartial[] | null;
  /** Buckets in `aggs`, sub-aggregations included (the coordinator warns past 10,000 as 6.8 does). */
  aggBuckets: number;
  terminatedEarly: boolean | null;
  /** The shard's term suggestions (requests with `suggest`). */
  suggest?: SuggestResult;
}

export interface ShardSearchOptions {
  index: string;
  nowMs: number;
  stats?: StatsSource;
  /** Extra filter (alias filters) applied in filter context. */
  filter?: Query | null;
  /** Hits to keep (defaults to from + size). */
  topN?: number;
  /** Skip the fetch phase (two-phase searches, scroll bookkeeping): hits carry no `_id` or source yet. */
  noFetch?: boolean;
  /** Number of shards in the whole search (terms shard_size defaults depend on it). */
  shardCount?: number;
  /** The index's mapping type (for `_type` queries). */
  type?: string;
  /** Score multiplier of this index (`indices_boost`). */
  boost?: number;
  /** `search.max_buckets` (-1 or absent: unset). */
  maxBuckets?: number;
  /** When the search stops early (its client went away, the node shuts down); checked every 4,096 matches. */
  stop?: ReadStop;
  /** This shard's seat on its search's fetch board: only hits that can be on the merged page are fetched. */
  board?: { board: FetchBoard; seat: BoardSeat };
}

const SEARCH_PHASE = 'shard search';
/** Matches handed to the aggregations at once. */
const AGG_BLOCK = 256;

export function compileContext(reader: IndexReader, index: string, nowMs: number, stats?: StatsSource, type?: string): CompileContext {
  return { reader, stats: stats ?? reader, index, type, field: (p) => reader.infos.get(p), nowMs };
}

function mainWeight(ctx: CompileContext, req: SearchRequest, filter: Query | null | undefined, boost: number): Weight {
  const q: Query = req.query ?? { type: 'match_all', boost: 1 };
  if (!filter) return req.query ? compile(q, ctx, boost) : allWeight(boost);
  return compile({ type: 'bool', must: [q], filter: [filter], should: [], mustNot: [], filterContext: false, boost: 1 }, ctx, boost);
}

export function searchShard(reader: IndexReader, req: SearchRequest, opts: ShardSearchOptions): ShardResult {
  const ctx = compileContext(reader, opts.index, opts.nowMs, opts.stats, opts.type);
  const weight = mainWeight(ctx, req, opts.filter, opts.boost ?? 1);
  const post = req.postFilter ? compile(req.postFilter, ctx) : null;
  const sort = req.sort && !(req.sort.length === 1 && req.sort[0].field === '_score' && req.sort[0].order === 'desc') ? new BoundSort(req.sort, reader.infos, opts.index, opts.type) : null;
  const topN = opts.topN ?? req.from + req.size;
  const scoreTop = sort ? null : new TopScoreCollector(topN);
  const fieldTop = sort ? new TopFieldCollector(topN, sort.kinds, sort.reverse, sort.missingFirst) : null;
  const aggs = req.aggs ? createAggCollectors(req.aggs, ctx, opts.shardCount ?? 1, opts.maxBuckets ?? -1) : null;
  const after = req.searchAfter && sort ? req.searchAfter.map((v) => v as SortValue) : null;
  let total = 0, terminated = false;
  const groupValues = req.collapse ? new GroupValues(req.collapse.field, ctx, req.collapse.innerHits.length > 0) : null;
  const groups = groupValues ? new GroupTopCollector(sort ? sort.kinds : null, sort ? sort.reverse : null, sort ? sort.missingFirst : null) : null;
  const simple = scoreTop !== null && !aggs && !post && req.minScore === null && !req.searchAfter && req.terminateAfter === 0 && !groups;
  // Sorted by fields alone, hits and max_score carry no score (ES leaves them null without track_scores), so
  // matches are not scored: a BM25 score reads the doc's norm at random, most of a sorted query's collection.
  // Anything that may read a score keeps them (aggregations: top_hits and scripts can).
  const needsScores = !sort || req.trackScores || sort.needsScores || aggs !== null || req.minScore !== null || req.explain || groups !== null;
  const stop = opts.stop ?? ReadStop.NEVER;
  let sinceCheck = 0;
  // Aggregations see the matches a block at a time (AggCollector.collectBlock).
  const aggDocs = aggs ? new Uint32Array(AGG_BLOCK) : null, aggScores = aggs ? new Float64Array(AGG_BLOCK) : null;
  let aggN = 0;
  if (simple && weight.matchAllScore !== undefined) {
    total = collectMatchAll(reader, weight.matchAllScore, scoreTop!, topN);
  } else segments: for (let ord = 0; ord < reader.segments.length; ord++) {
    stop.check(SEARCH_PHASE);
    const seg = reader.segments[ord];
    const scorer = weight.scorer(ord, seg);
    if (!scorer) continue;
    const pf = post ? post.scorer(ord, seg) : null;
    if (post && !pf && !aggs) continue;
    aggs?.setSegment(ord, seg);
    groupValues?.setSegment(seg);
    const live = reader.live[ord], parentOf = seg.hasNested ? seg.parentOf() : null, base = reader.docBases[ord];
    if (simple && scorer instanceof TermScorer) { total += scorer.collectAll(base, parentOf, live, scoreTop!); continue; }
    if (simple && scorer instanceof WindowSumScorer) { total += scorer.collectAll(base, parentOf, live, scoreTop!, seg.maxDoc); continue; }
    for (let d = scorer.next(); d !== NO_MORE_DOCS; d = scorer.next()) {
      if (++sinceCheck === 4096) { sinceCheck = 0; stop.check(SEARCH_PHASE); }
      if ((parentOf !== null && parentOf[d] !== -1) || (live !== null && live[d] === 0)) continue;
      const score = needsScores ? scorer.score() : 0;
      if (req.minScore !== null && score < req.minScore) continue;
      if (aggs) {
        aggDocs![aggN] = d; aggScores![aggN] = score;
        if (++aggN === AGG_BLOCK) { aggs.collectBlock(aggDocs!, aggScores!, aggN); aggN = 0; }
      }
      if (post && (!pf || (pf.doc() < d ? pf.seek(d) : pf.doc()) !== d)) continue;
      // hits.total counts every match; search_after only decides which of them can be on the page.
      total++;
      if (groups) {
        groups.collect(groupValues!.value(d), base + d, score, sort ? sort.keys(seg, d, base + d, score) : null);
        if (req.terminateAfter > 0 && total >= req.terminateAfter) { terminated = true; break segments; }
        continue;
      }
      if (scoreTop) {
        if (req.searchAfter && !(score < Number(req.searchAfter[0]))) continue;
        scoreTop.collect(base + d, score);
      } else {
        // Reject on the primary key alone when the collector is full and the doc is strictly worse.
        const worst = after ? null : fieldTop!.worst();
        if (worst !== null && compareOne(sort!.kinds[0], sort!.reverse[0], sort!.missingFirst[0], sort!.keyAt(0, seg, d, base + d, score), worst.keys[0]) > 0) {
          if (score > fieldTop!.maxScore) fieldTop!.maxScore = score;
          if (req.terminateAfter > 0 && total >= req.terminateAfter) { terminated = true; break segments; }
          continue;
        }
        const keys = sort!.keys(seg, d, base + d, score);
        if (after && compareKeys(sort!.kinds, sort!.reverse, keys, after, sort!.missingFirst) <= 0) continue;
        fieldTop!.collect(base + d, score, keys);
      }
      if (req.terminateAfter > 0 && total >= req.terminateAfter) { terminated = true; break segments; }
    }
    if (aggN > 0) { aggs!.collectBlock(aggDocs!, aggScores!, aggN); aggN = 0; }
  }
  // A search cut short (terminate_after) left its last block here.
  if (aggN > 0) aggs!.collectBlock(aggDocs!, aggScores!, aggN);
  const grouped = groups ? groups.top(topN) : null;
  const top = grouped ?? (scoreTop ? scoreTop.sorted().map((h) => ({ doc: h.doc, score: h.score, keys: null as SortValue[] | null })) : fieldTop!.hits);
  const maxScore = groups ? groups.maxScore : scoreTop ? scoreTop.maxScore : fieldTop!.maxScore;
  const seated = opts.board && !opts.noFetch && !grouped ? seatedFetch(opts.board.board, opts.board.seat, req, sort, top) : null;
  const hits = opts.noFetch ? top.map((h) => bareHit(h.doc, h.score, h.keys)) : fetchHits(reader, req, top, opts, ctx, seated);
  if (grouped) for (let i = 0; i < hits.length; i++) hits[i].group = grouped[i].group;
  const aggParts = aggs ? aggs.partials() : null;
  let aggBuckets = 0;
  if (aggParts) {
    // As ES's shard-side buildAggregation: the buckets this shard built count against search.max_buckets.
    const budget = new BucketBudget(opts.maxBuckets ?? -1);
    consumePartialBuckets(req.aggs!, aggParts, budget);
    aggBuckets = budget.count;
  }
  const out: ShardResult = { total, maxScore, hits, aggs: aggParts, aggBuckets, terminatedEarly: req.terminateAfter > 0 ? terminated : null };
  if (req.suggest) out.suggest = suggestShard(ctx, req.suggest, req.source.enabled);
  return out;
}

/**
 * `match_all` ranked by score: every live root doc matches with the same score, and ties go to the lower doc,
 * so the hits are the first live roots in doc order and the rest only need counting — as Lucene's
 * `Weight#count` shortcut, where iterating a scorer over every doc took 12 ms per 500,000 docs.
 */
function collectMatchAll(reader: IndexReader, score: number, top: TopScoreCollector, topN: number): number {
  // One collect even for size 0: it sets max_score.
  const want = Math.max(topN, 1);
  let total = 0;
  for (let ord = 0; ord < reader.segments.length; ord++) {
    const seg = reader.segments[ord], live = reader.live[ord], base = reader.docBases[ord];
    const parentOf = seg.hasNested ? seg.parentOf() : null;
    if (live === null && parentOf === null) {
      for (let d = 0; d < seg.maxDoc && total + d < want; d++) top.collect(base + d, score);
      total += seg.maxDoc;
      continue;
    }
    for (let d = 0; d < seg.maxDoc; d++) {
      if ((parentOf !== null && parentOf[d] !== -1) || (live !== null && live[d] === 0)) continue;
      if (total < want) top.collect(base + d, score);
      total++;
    }
  }
  return total;
}

/** A shard's place on its fetch board once it has published its hits: what `fetchHits` asks before each fetch. */
interface SeatedFetch { board: FetchBoard; seat: BoardSeat; order: number; singleKey: boolean; keys: Float64Array; limit: number }

/** Publishes the shard's sorted top hits on the board (their first keys, as the merge compares them). */
function seatedFetch(board: FetchBoard, seat: BoardSeat, req: SearchRequest, sort: BoundSort | null, top: { score: number; keys: SortValue[] | null }[]): SeatedFetch | null {
  const n = top.length;
  if (n > FETCH_BOARD_MAX_HITS) return null;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = sort ? top[i].keys![0] : top[i].score;
    keys[i] = typeof k === 'number' ? k : NaN;
  }
  board.publish(seat, keys, n);
  const order = !sort ? BOARD_BY_SCORE : sort.reverse[0] ? BOARD_BY_KEY_DESC : BOARD_BY_KEY_ASC;
  return { board, seat, order, singleKey: !sort || sort.kinds.length === 1, keys, limit: req.from + req.size };
}

function bareHit(doc: number, score: number, keys: SortValue[] | null): ShardHit {
  return { id: '', doc, score, sort: keys, source: null, highlight: null };
}

const decoder = new TextDecoder();

/**
 * The fetch phase on its own (two-phase searches): `_source`, highlight, explain, inner_hits and docvalue
 * fields for the given shard-wide docs, against the reader the query phase used.
 */
export function fetchPhase(reader: IndexReader, req: SearchRequest, top: { doc: number; score: number; sort: SortValue[] | null }[], opts: ShardSearchOptions): ShardHit[] {
  const ctx = compileContext(reader, opts.index, opts.nowMs, opts.stats, opts.type);
  return fetchHits(reader, req, top.map((h) => ({ doc: h.doc, score: h.score, keys: h.sort })), opts, ctx);
}

function fetchHits(reader: IndexReader, req: SearchRequest, top: { doc: number; score: number; keys: SortValue[] | null }[], opts: ShardSearchOptions, ctx: CompileContext, seated: SeatedFetch | null = null): ShardHit[] {
  const out: ShardHit[] = [];
  const nested = nestedWithInnerHits(req.query);
  const inner = nested.length ? new InnerHitsFetcher(ctx, reader, nested) : null;
  // Collapsed hits carry their group value as a docvalue field (ES adds the collapse field to docvalue_fields).
  const dvFields = req.collapse && !req.docvalueFields.includes(req.collapse.field) ? [...req.docvalueFields, req.collapse.field] : req.docvalueFields;
  const source = sourceToReturn(req);
  for (let i = 0; i < top.length; i++) {
    const h = top[i];
    const hit = bareHit(h.doc, h.score, h.keys);
    // Asked hit by hit, best first: the other shards may publish while this one fetches.
    if (seated !== null && !seated.board.mayBeOnPage(seated.seat, seated.order, seated.singleKey, i, seated.keys[i], seated.limit)) {
      hit.unfetched = true;
      out.push(hit);
      continue;
    }
    const stored = reader.stored(h.doc);
    hit.id = stored.id;
    const raw = decoder.decode(stored.source);
    if (inner) hit.innerHits = inner.fetch(h.doc, raw);
    hit.source = source === null ? null : filterSource(raw, source);
    hit.version = stored.version; hit.seqNo = stored.seqNo; hit.primaryTerm = stored.primaryTerm;
    if (stored.routing !== null) hit.routing = stored.routing;
    if (req.highlight) hit.highlight = highlightHit(ctx, req, raw);
    if (dvFields.length) {
      hit.fields = docValueFields(reader, h.doc, dvFields);
      if (req.docvalueFields.includes('_seq_no')) hit.fields._seq_no = [stored.seqNo];
    }
    if (req.explain) {
      const [ord, local] = reader.locate(h.doc);
      hit.explanation = explainQuery(req.query ?? { type: 'match_all', boost: 1 }, ctx, ord, reader.segments[ord], local);
    }
    out.push(hit);
  }
  return out;
}

/**
 * Which part of each hit's source to return (null: none). With `stored_fields` ES 6.8 returns the source when
 * `_source` is one of them (whatever `_source` says, its includes and excludes kept) or when the request asked
 * for it itself (`"stored_fields": ["*"], "_source": true`, as elasticdump sends); otherwise not (only the source
 * is stored by default).
 */
function sourceToReturn(req: SearchRequest): SourceFilter | null {
  if (req.storedFields === null) return req.source;
  if (req.storedFields.includes('_source')) return { ...req.source, enabled: true };
  return req.sourceRequested ? req.source : null;
}

function docValueFields(reader: IndexReader, doc: number, fields: string[]): Record<string, unknown[]> {
  const [ord, d] = reader.locate(doc);
  const seg = reader.segments[ord];
  const out: Record<string, unknown[]> = {};
  for (const f of fields) {
    const n = seg.numeric(f), o = seg.ordinals(f);
    const vals: unknown[] = [];
    if (n) for (let i = n.start[d]; i < n.start[d + 1]; i++) vals.push(n.values[i]);
    if (o) for (let i = o.start[d]; i < o.start[d + 1]; i++) vals.push(o.lookupOrd(o.ords[i]));
    if (vals.length) out[f] = vals;
  }
  return out;
}
