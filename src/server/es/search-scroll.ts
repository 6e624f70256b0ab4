/**
 * Scroll contexts on the coordinator: each shard holds its ordered hit list on a pinned reader (see the
 * worker's ScrollStore); the coordinator keeps per-shard offsets, merges the next page, advances the
 * offsets of the shards whose hits it used, and frees everything on DELETE or keep-alive expiry.
 */
import { randomBytes } from 'node:crypto';
import type { ServerContext } from '../context.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import type { SearchRequest } from '../../engine/search/index.ts';
import { jsonTokenName, parseJsonWithPos, parseTimeMs, type BucketBudget } from '../../engine/search/index.ts';
import { EngineError, InvalidArgumentError, ParseError } from '../../engine/errors.ts';
import { executeSearch, hitComparator, sortKindsOf, type MergedHit, type SearchOutcome, type ShardTarget } from './search-exec.ts';
import { renderSearch } from './search-render.ts';
import { bodyText } from './handler.ts';
import { json } from './json.ts';

interface ScrollState {
  id: string;
  targets: ShardTarget[];
  offsets: number[];
  req: SearchRequest;
  outcome: SearchOutcome;
  keepAliveMs: number;
  timer: NodeJS.Timeout;
  fieldTypes: (f: string) => string | undefined;
  typedKeys: boolean;
}

export class ScrollRegistry {
  private readonly states = new Map<string, ScrollState>();
  constructor(private readonly ctx: ServerContext, private readonly cluster: EsCluster) {}

  private keepAlive(v: string): number {
    const ms = parseTimeMs(v);
    if (ms === null) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `failed to parse setting [scroll] with value [${v}] as a time value: unit is missing or unrecognized`);
    return ms;
  }

  private arm(s: ScrollState): void {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => void this.free(s.id), Math.min(s.keepAliveMs, 2 ** 31 - 1));
    s.timer.unref();
  }

  /**
   * Runs a scroll's first search: its aggregations are computed here and only here (continuation pages carry
   * none, as 6.8 drops them after the first query phase). Returns the reply and the outcome, whose bucket
   * counts together with `buckets` (the reduce's) decide 6.8's deprecation warning.
   */
  async start(req: SearchRequest, targets: ShardTarget[], scroll: string, dfs: boolean, started: number, fieldTypes: (f: string) => string | undefined, typedKeys: boolean, buckets: BucketBudget): Promise<{ reply: unknown; outcome: SearchOutcome }> {
    const keepAliveMs = this.keepAlive(scroll);
    const id = randomBytes(24).toString('base64url');
    const out = await executeSearch(this.cluster, targets, { ...req, from: 0 }, { dfs, nowMs: this.ctx.now(), scroll: { keyPrefix: id, keepAliveMs }, maxBuckets: buckets.maxBuckets });
    const state: ScrollState = { id, targets, offsets: targets.map(() => 0), req, outcome: out, keepAliveMs, timer: setTimeout(() => {}, 0), fieldTypes, typedKeys };
    this.consume(state, out.hits);
    this.states.set(id, state);
    this.arm(state);
    return { reply: renderSearch(req, out, { typedKeys, scrollId: id, tookMs: Date.now() - started, fieldTypes, buckets }), outcome: out };
  }

  private consume(s: ScrollState, hits: MergedHit[]): void {
    for (const h of hits) s.offsets[h.shardOrder]++;
  }

  async next(httpReq: HttpRequest, p: Params): Promise<HttpResponse> {
    const started = Date.now();
    const body = scrollBody(httpReq, false);
    // As RestSearchScrollAction: what the body says wins over the path and the URL parameters.
    const id = String(body.scroll_id ?? p.scroll_id ?? httpReq.query.get('scroll_id') ?? '');
    if (!id) throw new InvalidArgumentError('SEARCH_VALIDATION', 'Validation Failed: 1: scrollId is missing;');
    const s = this.states.get(id);
    if (!s) throw new EngineError('SEARCH_CONTEXT_MISSING', `No search context found for id [${id}]`);
    const ka = (body.scroll as string | undefined) ?? httpReq.query.get('scroll');
    if (ka) s.keepAliveMs = this.keepAlive(ka);
    this.arm(s);
    const hits = await this.page(s);
    const out: SearchOutcome = { ...s.outcome, hits, aggs: null };
    return json(httpReq, 200, renderSearch({ ...s.req, aggs: null }, out, { typedKeys: s.typedKeys, scrollId: id, tookMs: Date.now() - started, fieldTypes: s.fieldTypes }));
  }

  /** The next page of a scroll, its offsets advanced. */
  private async page(s: ScrollState): Promise<MergedHit[]> {
    const pages = await Promise.all(s.targets.map((t, i) => this.cluster.shardCall(t.meta, t.shard, 'search.scroll',
      { key: `${s.id}/${t.order}`, offset: s.offsets[i], size: s.req.size, keepAliveMs: s.keepAliveMs })));
    if (pages.some((pg) => 'missing' in pg)) { await this.free(s.id); throw new EngineError('SEARCH_CONTEXT_MISSING', `No search context found for id [${s.id}]`); }
    const all: MergedHit[] = [];
    pages.forEach((pg, i) => { if ('hits' in pg) for (const h of pg.hits) all.push({ ...h, indexName: s.targets[i].index.name, type: s.targets[i].index.type ?? '_doc', shardOrder: i }); });
    all.sort(hitComparator(s.req, sortKindsOf(s.req)));
    const hits = all.slice(0, s.req.size);
    this.consume(s, hits);
    return hits;
  }

  /**
   * Visits every hit of `req` over a point-in-time view (what `_delete_by_query`, `_update_by_query` and
   * `_reindex` read), `req.size` hits per batch; `onBatch` returning false stops early. Resolves with the total.
   */
  async scan(req: SearchRequest, targets: ShardTarget[], keepAliveMs: number, onBatch: (hits: MergedHit[], total: number) => Promise<boolean>): Promise<number> {
    const id = randomBytes(24).toString('base64url');
    const out = await executeSearch(this.cluster, targets, { ...req, from: 0 }, { dfs: false, nowMs: this.ctx.now(), scroll: { keyPrefix: id, keepAliveMs } });
    const state: ScrollState = { id, targets, offsets: targets.map(() => 0), req, outcome: out, keepAliveMs, timer: setTimeout(() => {}, 0), fieldTypes: () => undefined, typedKeys: false };
    this.states.set(id, state);
    this.arm(state);
    try {
      this.consume(state, out.hits);
      let hits = out.hits;
      while (hits.length > 0 && await onBatch(hits, out.total)) hits = await this.page(state);
      return out.total;
    } finally {
      await this.free(id);
    }
  }

  private async free(id: string): Promise<boolean> {
    const s = this.states.get(id);
    if (!s) return false;
    this.states.delete(id);
    clearTimeout(s.timer);
    await Promise.all(s.targets.map((t) => this.cluster.shardCall(t.meta, t.shard, 'search.clearScroll', { keys: [`${id}/${t.order}`] }).catch(() => undefined)));
    return true;
  }

  async clear(httpReq: HttpRequest, p: Params): Promise<HttpResponse> {
    const body = scrollBody(httpReq, true);
    let ids: string[] = p.scroll_id ? p.scroll_id.split(',') : [body.scroll_id ?? []].flat().map(String);
    if (ids.includes('_all')) ids = [...this.states.keys()];
    let freed = 0;
    for (const id of ids) if (await this.free(id)) freed++;
    return json(httpReq, freed > 0 || ids.length === 0 ? 200 : 404, { succeeded: true, num_freed: freed });
  }
}

/**
 * A scroll (`clear` false) or clear-scroll body as SearchScrollRequest and ClearScrollRequest read it: an object
 * of `scroll_id` (a string; to clear, also a list) and, to scroll, `scroll`; empty: none. Malformed JSON is ES's
 * "Failed to parse request body" (400, the parser's error as its cause).
 */
function scrollBody(httpReq: HttpRequest, clear: boolean): Record<string, unknown> {
  const text = bodyText(httpReq);
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = parseJsonWithPos(text);
  } catch (err) {
    if (!(err instanceof ParseError && err.details.jsonParse)) throw err;
    throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', 'Failed to parse request body', { cause: { code: 'SEARCH_JSON_PARSE', message: err.message, details: {} } });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', 'Malformed content, must start with an object');
  const isValue = (x: unknown): boolean => typeof x !== 'object' || x === null;
  for (const [k, value] of Object.entries(v)) {
    if (clear && k === 'scroll_id') {
      if (Array.isArray(value) ? !value.every(isValue) : !isValue(value)) {
        throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `scroll_id ${Array.isArray(value) ? 'array element' : 'element'} should only contain scroll_id`);
      }
    } else if (!(k === 'scroll_id' || (k === 'scroll' && !clear)) || typeof value !== 'string') {
      throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Unknown parameter [${k}] in request body or parameter is of the wrong type[${jsonTokenName(value)}] `);
    }
  }
  return v as Record<string, unknown>;
}
