/**
 * The 6.8 search response body: `[_scroll_id], took, timed_out, [terminated_early], _shards, hits{total,
 * max_score, hits[]}, [aggregations]`; hit keys in SearchHit's order; scores as Java floats; `_source`
 * copied verbatim; sort values with ES's sentinels. Also the error envelope of all-shards failures.
 */
import type { SearchRequest } from '../../engine/search/index.ts';
import type { SortValue } from '../../engine/search/index.ts';
import type { SuggestResult } from '../../engine/search/index.ts';
import type { AggPartial, AggSpec } from '../../engine/search/index.ts';
import { BucketBudget } from '../../engine/search/index.ts';
import { EngineError } from '../../engine/errors.ts';
import { renderAggs } from './search-aggs-render.ts';
import { reducePhaseFailure, type MergedHit, type SearchOutcome } from './search-exec.ts';
import { jd, jf } from './java-format.ts';
import { RawJson, json } from './json.ts';
import { asErrorLike, errorBody, errorObject } from './errors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';

type Obj = Record<string, unknown>;

function sortValue(v: SortValue, kind: string): unknown {
  if (v !== null && typeof v === 'object') return new RawJson(v.l);
  if (kind === 'score' && typeof v === 'number') return jf(v);
  return v;
}

export interface RenderOptions {
  typedKeys: boolean; scrollId?: string; tookMs: number; fieldTypes?: (field: string) => string | undefined;
  /** Counts the final reduce's buckets; absent: `search.max_buckets` unset. */
  buckets?: BucketBudget;
}

function renderHit(h: MergedHit, req: SearchRequest, out: SearchOutcome, o: RenderOptions): Obj {
  const scored = !out.sortKinds || req.trackScores || out.sortKinds.includes('score');
  const hit: Obj = {};
  if (req.explain) { hit._shard = `[${h.indexName}][${h.shardNum ?? 0}]`; hit._node = 'tessera-node'; }
  hit._index = h.indexName; hit._type = h.type; hit._id = h.id;
  if (req.version && h.version !== undefined) hit._version = h.version;
  if (req.seqNoPrimaryTerm && h.seqNo !== undefined) { hit._seq_no = h.seqNo; hit._primary_term = h.primaryTerm; }
  hit._score = scored ? jf(h.score) : null;
  if (h.routing !== undefined) hit._routing = h.routing;
  if (h.source !== null && h.source !== undefined) hit._source = new RawJson(h.source);
  if (h.fields && Object.keys(h.fields).length) hit.fields = h.fields;
  if (h.highlight) hit.highlight = h.highlight;
  if (h.sort && out.sortKinds) {
    hit.sort = h.sort.map((v, i) => {
      const spec = req.sort![i];
      const t = o.fieldTypes?.(spec.field);
      if (typeof v === 'number' && t && ['double', 'float', 'half_float', 'scaled_float'].includes(t)) return jd(v);
      // A number script sort yields doubles (ES prints 1.0, not 1).
      if (typeof v === 'number' && (spec.scriptType === 'number' || spec.geo)) return jd(v);
      return sortValue(v, out.sortKinds![i]);
    });
  }
  if (req.explain && h.explanation) hit._explanation = floatTree(h.explanation);
  if (h.innerHits || h.collapseInner) {
    const ih: Obj = {};
    for (const c of h.collapseInner ?? []) ih[c.name] = { hits: renderHits(c.req, c.out, o) };
    for (const [name, r] of Object.entries(h.innerHits ?? {})) {
      ih[name] = { hits: { total: r.total, max_score: r.total ? jf(r.maxScore) : null, hits: r.hits.map((x) => ({
        _index: h.indexName, _type: h.type, _id: h.id, _nested: { field: r.path, offset: x.offset }, _score: jf(x.score),
        _source: x.source === null ? undefined : new RawJson(x.source) })) } };
    }
    hit.inner_hits = ih;
  }
  return hit;
}

interface ExplanationLike { value: number; description: string; details: ExplanationLike[] }
/** An explanation tree with its values printed as Java floats. */
export function floatTree(e: ExplanationLike): Obj {
  return { value: jf(e.value), description: e.description, details: e.details.map(floatTree) };
}

/** `{total, max_score, hits}` of a search (the response's, or a collapse group's inner hits). */
function renderHits(req: SearchRequest, out: SearchOutcome, o: RenderOptions): Obj {
  const scored = !out.sortKinds || req.trackScores || out.sortKinds.includes('score');
  let maxScore: unknown = null;
  if (scored && req.size === 0 && !o.scrollId) maxScore = jf(0);
  else if (scored && out.total > 0 && Number.isFinite(out.maxScore)) maxScore = jf(out.maxScore);
  return { total: req.trackTotalHits ? out.total : -1, max_score: maxScore, hits: out.hits.map((h) => renderHit(h, req, out, o)) };
}

export function renderSearch(req: SearchRequest, out: SearchOutcome, o: RenderOptions): Obj {
  const body: Obj = {};
  if (o.scrollId) body._scroll_id = o.scrollId;
  body.took = o.tookMs;
  body.timed_out = false;
  if (out.terminatedEarly !== null) body.terminated_early = out.terminatedEarly;
  body._shards = out.shards;
  body.hits = renderHits(req, out, o);
  if (req.aggs && out.aggs) body.aggregations = reduceAndRender(req.aggs, out.aggs, o.typedKeys, o.buckets ?? new BucketBudget(-1));
  else if (req.aggs) body.aggregations = {};
  if (out.suggest) body.suggest = renderSuggest(out.suggest, o.typedKeys);
  return body;
}

function reduceAndRender(specs: AggSpec[], parts: AggPartial[], typedKeys: boolean, bb: BucketBudget): Obj {
  try {
    return renderAggs(specs, parts, typedKeys, bb);
  } catch (e) {
    if (e instanceof EngineError && e.code === 'SEARCH_TOO_MANY_BUCKETS') throw reducePhaseFailure(e);
    throw e;
  }
}

/** Error reply; all-shards failures list each shard cause as a root cause, as ES does. */
export function searchErrorReply(req: HttpRequest, err: unknown): HttpResponse {
  const e = asErrorLike(err);
  const failed = (e.details.failed_shards ?? []) as { reason: Obj }[];
  // A reduce failure has no shard failures: its root cause is its cause's.
  if (!e.code.startsWith('SEARCH_PHASE_FAILED') || failed.length === 0) return json(req, errorBody(err).status, errorBody(err));
  const body = errorBody(err);
  const roots = failed.map((f) => { const { caused_by: _c, ...rest } = f.reason; return rest; });
  const { root_cause: _r, ...rest } = body.error;
  return json(req, body.status, { error: { root_cause: roots, ...rest }, status: body.status });
}

/**
 * `suggest.{name}: [{text, offset, length, options}]` (`term#name`/`completion#name` with typed_keys); term options
 * are `{text, score, freq}`, completion options `{text, _index, _type, _id, _score, _source}`.
 */
function renderSuggest(res: SuggestResult, typedKeys: boolean): Obj {
  const out: Obj = {};
  for (const s of res) {
    const key = typedKeys ? `${s.kind}#${s.name}` : s.name;
    if (s.kind === 'completion') {
      out[key] = s.entries.map((e) => ({ text: e.text, offset: e.offset, length: e.length, options: e.options.map((x) => {
        const o: Obj = { text: x.text, _index: x.index, _type: x.type, _id: x.id, _score: jf(x.score) };
        if (x.source !== null) o._source = new RawJson(x.source);
        return o;
      }) }));
      continue;
    }
    if (s.kind === 'phrase') {
      out[key] = s.entries.map((e) => ({ text: e.text, offset: e.offset, length: e.length, options: e.options.map((x) => {
        const o: Obj = { text: x.text };
        if (x.highlighted !== null) o.highlighted = x.highlighted;
        o.score = jf(x.score);
        return o;
      }) }));
      continue;
    }
    out[key] = s.entries.map((e) => ({ text: e.text, offset: e.offset, length: e.length,
      options: e.options.map((x) => ({ text: x.text, score: jf(x.score), freq: x.freq })) }));
  }
  return out;
}

export function countBody(out: SearchOutcome): Obj {
  return { count: out.total, _shards: out.shards };
}

export { errorObject };
