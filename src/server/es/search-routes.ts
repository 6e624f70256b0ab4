/**
 * Search endpoints of the ES 6.8 API: `_search` (GET/POST, index lists, wildcards, aliases with their
 * filters, `q=` URI search), `_count`, `_msearch`, scroll (`scroll=`, `_search/scroll`, DELETE), and
 * `_analyze`. Bodies are parsed here (parse errors carry line/col); shards run in the workers.
 */
import type { ServerContext } from '../context.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, RouteHandler, Router } from '../router.ts';
import type { EsCluster, ResolvedIndex } from './cluster.ts';
import { boolParam, intParam } from './params.ts';
import { bodyText, route } from './handler.ts';
import { json, RawJson } from './json.ts';
import { parseSearchBodyText, parseSort, parseSourceFilter, parseTimeMs, type AnalyzeArgs, type SearchRequest } from '../../engine/search/index.ts';
import { parseJsonWithPos, parseSuggest } from '../../engine/search/index.ts';
import { InvalidArgumentError, EngineError, ParseError } from '../../engine/errors.ts';
import { murmur3Utf16 } from '../../engine/documents/routing.ts';
import { executeSearch, phaseFailure, shardTargets, type SearchOutcome, type ShardTarget } from './search-exec.ts';
import { countBody, renderSearch, searchErrorReply } from './search-render.ts';
import { ScrollRegistry } from './search-scroll.ts';
import { checkCollapse, expandCollapsedHits } from './search-collapse.ts';
import { NUMERIC_TYPES, FieldInfos, BucketBudget, bucketWarning } from '../../engine/search/index.ts';
import { warningHeader } from './warning-header.ts';

const SEARCH_PARAMS = ['analyzer', 'analyze_wildcard', 'default_operator', 'df', 'explain', 'stored_fields', 'docvalue_fields', 'from',
  'ignore_unavailable', 'ignore_throttled', 'allow_no_indices', 'expand_wildcards', 'lenient', 'preference', 'q', 'routing', 'scroll',
  'search_type', 'size', 'sort', '_source', '_source_excludes', '_source_includes', '_source_exclude', '_source_include', 'terminate_after',
  'stats', 'suggest_field', 'suggest_mode', 'suggest_size', 'suggest_text', 'timeout', 'track_scores', 'track_total_hits',
  'allow_partial_search_results', 'typed_keys', 'version', 'seq_no_primary_term', 'request_cache', 'batched_reduce_size',
  'max_concurrent_shard_requests', 'pre_filter_shard_size', 'rest_total_hits_as_int'];
const COUNT_PARAMS = ['ignore_unavailable', 'ignore_throttled', 'allow_no_indices', 'expand_wildcards', 'min_score', 'preference', 'routing', 'q',
  'analyzer', 'analyze_wildcard', 'default_operator', 'df', 'lenient', 'terminate_after'];

type Handler = (req: HttpRequest, p: Params) => Promise<HttpResponse>;

function wrap(allowed: string[], fn: Handler): RouteHandler {
  return route(allowed, fn, (req, err) => searchErrorReply(req, jsonParseToWire(err)));
}

function jsonParseToWire(err: unknown): unknown {
  if (err instanceof ParseError && err.details.jsonParse) return new EngineError('SEARCH_JSON_PARSE', err.message, {});
  return err;
}

/** Applies URL parameters on top of the body, as RestSearchAction does. */
export function applyUrlParams(req: HttpRequest, r: SearchRequest): SearchRequest {
  const q = req.query;
  const from = intParam(req, 'from'), size = intParam(req, 'size');
  if (from !== undefined) r.from = from;
  if (size !== undefined) r.size = size;
  if (q.get('q') !== null) {
    r.query = { type: 'query_string', query: q.get('q')!, fields: q.get('df') ? [q.get('df')!] : [], defaultOperator: (q.get('default_operator') ?? 'or').toLowerCase() as 'or',
      analyzer: q.get('analyzer') ?? undefined, simple: false, boost: 1, lenient: boolParam(req, 'lenient') };
  }
  const sort = q.get('sort');
  if (sort) r.sort = parseSort(sort.split(',').map((s) => { const [f, o] = s.split(':'); return o ? { [f]: o } : f; }));
  const src = q.get('_source');
  if (src !== null) r.source = parseSourceFilter(src === 'true' || src === 'false' ? src : src.split(','));
  const inc = q.get('_source_includes') ?? q.get('_source_include'), exc = q.get('_source_excludes') ?? q.get('_source_exclude');
  if (inc !== null) r.source = { enabled: true, includes: inc.split(','), excludes: r.source.excludes };
  if (exc !== null) r.source = { enabled: true, includes: r.source.includes, excludes: exc.split(',') };
  if (src !== null || inc !== null || exc !== null) r.sourceRequested = true;
  if (q.get('track_scores') !== null) r.trackScores = boolParam(req, 'track_scores');
  if (q.get('track_total_hits') !== null) r.trackTotalHits = boolParam(req, 'track_total_hits', true);
  const ta = intParam(req, 'terminate_after');
  if (ta !== undefined) r.terminateAfter = ta;
  if (q.get('version') !== null) r.version = boolParam(req, 'version');
  if (q.get('explain') !== null) r.explain = boolParam(req, 'explain');
  if (q.get('min_score') !== null) r.minScore = Math.fround(Number(q.get('min_score')));
  if (q.get('seq_no_primary_term') !== null) r.seqNoPrimaryTerm = boolParam(req, 'seq_no_primary_term');
  if (q.get('stored_fields') !== null) r.storedFields = q.get('stored_fields')!.split(',');
  if (q.get('docvalue_fields') !== null) r.docvalueFields = q.get('docvalue_fields')!.split(',');
  if (q.get('timeout') !== null) r.timeoutMs = parseTimeMs(q.get('timeout'));
  const suggestField = q.get('suggest_field');
  if (suggestField) {
    // RestSearchAction: one term suggestion named after the field, text from suggest_text or q.
    const term: Record<string, unknown> = { field: suggestField, size: intParam(req, 'suggest_size') ?? 5 };
    if (q.get('suggest_mode') !== null) term.suggest_mode = q.get('suggest_mode');
    const text = q.get('suggest_text') ?? q.get('q');
    r.suggest = parseSuggest({ [suggestField]: text === null ? { term } : { text, term } });
  }
  if (r.size < 0) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `[size] parameter cannot be negative, found [${r.size}]`);
  if (r.from < 0) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `[from] parameter cannot be negative, found [${r.from}]`);
  return r;
}

export function fieldTypeLookup(indices: ResolvedIndex[]): (f: string) => string | undefined {
  const infos = indices.map((i) => new FieldInfos(i.mapping));
  return (f) => { for (const fi of infos) { const t = fi.get(f)?.type; if (t) return t; } return undefined; };
}

export class SearchService {
  readonly scrolls: ScrollRegistry;
  constructor(readonly ctx: ServerContext, readonly cluster: EsCluster) { this.scrolls = new ScrollRegistry(ctx, cluster); }

  resolve(expr: string | undefined, req: HttpRequest): ResolvedIndex[] {
    return this.cluster.resolveForRead(expr === undefined || expr === '' ? '_all' : expr, { data: true,
      ignoreUnavailable: boolParam(req, 'ignore_unavailable'), allowNoIndices: req.query.get('allow_no_indices') === null ? true : boolParam(req, 'allow_no_indices'),
    });
  }

  targets(indices: ResolvedIndex[], req: HttpRequest, types?: string): ShardTarget[] {
    const typeList = types ? types.split(',') : null;
    const chosen = typeList ? indices.filter((i) => typeList.includes('_all') || (i.type !== null && typeList.includes(i.type))) : indices;
    const routing = req.query.get('routing');
    return shardTargets(this.cluster, chosen, routing ? routing.split(',') : null,
      (meta, v) => { const n = Number(meta.settings['index.number_of_shards'] ?? 5); const h = murmur3Utf16(v); return ((h % n) + n) % n; });
  }

  /** `body`: the request body's text, or a search already parsed from it (`_msearch`). */
  async search(httpReq: HttpRequest, p: Params, body: string | SearchRequest, count = false): Promise<HttpResponse> {
    const started = Date.now();
    const r = applyUrlParams(httpReq, typeof body === 'string' ? parseSearchBodyText(body) : body);
    const scrollParam = httpReq.query.get('scroll');
    // SearchRequest.validate(), which runs before the indices are resolved.
    if (scrollParam !== null && !count && r.size === 0) throw new InvalidArgumentError('SEARCH_VALIDATION', 'Validation Failed: 1: [size] cannot be [0] in a scroll context;');
    const indices = this.resolve(p.index, httpReq);
    const targets = this.targets(indices, httpReq, p.type);
    if (count) { r.size = 0; r.aggs = null; r.sort = null; r.collapse = null; }
    if (!count) this.checkWindow(r, targets, scrollParam !== null);
    checkCollapse(r, targets, scrollParam !== null);
    const searchType = httpReq.query.get('search_type') ?? 'query_then_fetch';
    if (!['query_then_fetch', 'dfs_query_then_fetch'].includes(searchType)) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `No search type for [${searchType}]`);
    const maxBuckets = this.maxBuckets();
    const buckets = new BucketBudget(maxBuckets);
    if (scrollParam && !count) {
      const { reply, outcome } = await this.scrolls.start(r, targets, scrollParam, searchType === 'dfs_query_then_fetch', started, fieldTypeLookup(indices), boolParam(httpReq, 'typed_keys'), buckets);
      return this.searchReply(httpReq, reply, outcome, buckets);
    }
    const nowMs = this.ctx.now();
    const out = await executeSearch(this.cluster, targets, r, { dfs: searchType === 'dfs_query_then_fetch', nowMs, maxBuckets, signal: httpReq.signal });
    if (count) return json(httpReq, 200, countBody(out));
    await expandCollapsedHits(this.cluster, targets, r, out, nowMs);
    const reply = renderSearch(r, out, { typedKeys: boolParam(httpReq, 'typed_keys'), tookMs: Date.now() - started, fieldTypes: fieldTypeLookup(indices), buckets });
    return this.searchReply(httpReq, reply, out, buckets);
  }

  /**
   * A search's 200, with 6.8's deprecation warning when its aggregations built more than 10,000 buckets and
   * `search.max_buckets` is unset. One warning for the whole search: the shards' and the reduce's have the same
   * text, which ES sends once.
   */
  private searchReply(httpReq: HttpRequest, reply: unknown, out: SearchOutcome, buckets: BucketBudget): HttpResponse {
    const warning = bucketWarning(buckets.maxBuckets, Math.max(out.shardAggBuckets, buckets.count));
    return json(httpReq, 200, reply, warning ? { warning: warningHeader(warning, new Date(this.ctx.now())) } : undefined);
  }

  /** The `search.max_buckets` cluster setting (-1: unset). */
  maxBuckets(): number {
    return Number(this.cluster.setting('search.max_buckets'));
  }

  /** Per-index request limits (result window, scroll batch, docvalue_fields), failing the shards as ES does. */
  private checkWindow(r: SearchRequest, targets: ShardTarget[], scroll: boolean): void {
    const bad: { t: ShardTarget; err: Error }[] = [];
    for (const t of targets) {
      const max = Number(t.index.settings['index.max_result_window'] ?? 10000);
      const maxDv = Number(t.index.settings['index.max_docvalue_fields_search'] ?? 100);
      let msg: string | null = null;
      if (scroll && r.size > max) {
        msg = `Batch size is too large, size must be less than or equal to: [${max}] but was [${r.size}]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.`;
      } else if (!scroll && r.from + r.size > max) {
        msg = `Result window is too large, from + size must be less than or equal to: [${max}] but was [${r.from + r.size}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.`;
      } else if (r.docvalueFields.length > maxDv) {
        msg = `Trying to retrieve too many docvalue_fields. Must be less than or equal to: [${maxDv}] but was [${r.docvalueFields.length}]. This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.`;
      }
      if (msg) bad.push({ t, err: new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', msg) });
    }
    if (bad.length && bad.length === targets.length) throw phaseFailure(bad);
  }

  async msearch(httpReq: HttpRequest, p: Params): Promise<HttpResponse> {
    const started = Date.now();
    // As RestMultiSearchAction: every header and body is parsed before any search runs, and a bad one fails
    // the whole request; what a search finds wrong when it runs (a missing index) is that item's answer.
    const lines = bodyText(httpReq).split('\n');
    const items: { header: MsearchHeader; request: SearchRequest }[] = [];
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() === '') continue;
      const header = msearchHeader(lines[i]);
      items.push({ header, request: parseSearchBodyText(lines[i + 1] ?? '{}') });
      i++;
    }
    const responses: unknown[] = [];
    for (const { header, request } of items) {
      const sub: HttpRequest = { ...httpReq, query: header.params, rawQuery: header.params.toString(), body: Buffer.alloc(0) };
      const at = { ...p, index: header.index ?? p.index, type: header.type ?? p.type };
      const reply = await this.search(sub, at, request).catch((e) => searchErrorReply(sub, e));
      const text = String(reply.body);
      responses.push(new RawJson(reply.status === 200 ? `${text.slice(0, -1)},"status":200}` : text));
    }
    return json(httpReq, 200, { took: Date.now() - started, responses });
  }

  async analyze(httpReq: HttpRequest, p: Params): Promise<HttpResponse> {
    const text = bodyText(httpReq);
    const body = (text.trim() ? parseJsonWithPos(text) : {}) as Record<string, unknown>;
    const q = httpReq.query;
    const args: Record<string, unknown> = { ...body };
    for (const k of ['analyzer', 'tokenizer', 'field', 'text']) if (q.get(k) !== null && args[k] === undefined) args[k] = q.get(k);
    if (q.get('filter') !== null && args.filter === undefined) args.filter = q.get('filter')!.split(',');
    if (args.text === undefined) throw new InvalidArgumentError('SEARCH_VALIDATION', 'Validation Failed: 1: text is missing;');
    let worker = 0;
    if (p.index) {
      const r = this.cluster.resolveForRead(p.index)[0];
      args.settings = r.settings; args.mapping = r.mapping; args.index = r.name;
      worker = this.cluster.shardWorker(r.uuid, 0);
    }
    // The engine checks the remaining fields' types (ES's errors for a wrong analyzer, filter or tokenizer).
    const out = await this.ctx.pool.call(worker, 'search.analyze', args as unknown as AnalyzeArgs);
    return json(httpReq, 200, out);
  }
}

/** An `_msearch` header: its indices and types (absent: the path's), and the rest as the search's URL parameters. */
interface MsearchHeader { index?: string; type?: string; params: URLSearchParams }

/** The keys ES 6.8's MultiSearchRequest takes, by the name the search's URL parameter has. */
const MSEARCH_KEYS: Record<string, string> = {
  index: 'index', indices: 'index', type: 'type', types: 'type', preference: 'preference', routing: 'routing',
  allow_partial_search_results: 'allow_partial_search_results',
};
for (const k of ['search_type', 'request_cache', 'expand_wildcards', 'ignore_unavailable', 'allow_no_indices', 'ignore_throttled']) {
  MSEARCH_KEYS[k] = k;
  MSEARCH_KEYS[k.replace(/_(.)/g, (_, c: string) => c.toUpperCase())] = k; // also in camelCase
}

/**
 * One `_msearch` header line. ES reads it as a map: anything but an object (`null`, `[]`, a number) reads as
 * no header at all, and a key it does not know fails the request.
 */
function msearchHeader(line: string): MsearchHeader {
  const v = parseJsonWithPos(line);
  const out: MsearchHeader = { params: new URLSearchParams() };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return out;
  for (const [k, value] of Object.entries(v)) {
    const name = MSEARCH_KEYS[k];
    if (name === undefined) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `key [${k}] is not supported in the metadata section`);
    if (name === 'index' || name === 'type') out[name] = [value].flat().join(',');
    else out.params.set(name, String(value));
  }
  return out;
}

export function registerSearchRoutes(router: Router, ctx: ServerContext, cluster: EsCluster): SearchService {
  const svc = new SearchService(ctx, cluster);
  const search = wrap(SEARCH_PARAMS, (req, p) => svc.search(req, p, bodyText(req)));
  const count = wrap(COUNT_PARAMS, (req, p) => svc.search(req, p, bodyText(req), true));
  for (const path of ['/_search', '/:index/_search', '/:index/:type/_search']) router.add(['GET', 'POST'], path, search);
  for (const path of ['/_count', '/:index/_count', '/:index/:type/_count']) router.add(['GET', 'POST'], path, count);
  const ms = wrap(['search_type', 'max_concurrent_searches', 'typed_keys', 'pre_filter_shard_size', 'max_concurrent_shard_requests', 'rest_total_hits_as_int', 'ccs_minimize_roundtrips'], (req, p) => svc.msearch(req, p));
  for (const path of ['/_msearch', '/:index/_msearch', '/:index/:type/_msearch']) router.add(['GET', 'POST'], path, ms);
  const scroll = wrap(['scroll', 'scroll_id', 'rest_total_hits_as_int'], (req, p) => svc.scrolls.next(req, p));
  router.add(['GET', 'POST'], '/_search/scroll', scroll);
  router.add(['GET', 'POST'], '/_search/scroll/:scroll_id', scroll);
  const clear = wrap([], (req, p) => svc.scrolls.clear(req, p));
  router.add('DELETE', '/_search/scroll', clear);
  router.add('DELETE', '/_search/scroll/:scroll_id', clear);
  const an = wrap(['analyzer', 'tokenizer', 'filter', 'char_filter', 'field', 'text', 'explain', 'index'], (req, p) => svc.analyze(req, p));
  router.add(['GET', 'POST'], '/_analyze', an);
  router.add(['GET', 'POST'], '/:index/_analyze', an);
  return svc;
}

export { NUMERIC_TYPES };
