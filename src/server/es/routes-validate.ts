/**
 * `_validate/query`: whether a query parses and compiles against the mappings of the target indices. The
 * query is parsed here and compiled on every target shard by running it as a count, so the answer is the one
 * a search would get. `explain=true` adds, per index, the error of an invalid query (the Lucene rendering of
 * a valid one is not produced: the engine has no Lucene query strings).
 */
import { errorBody } from './errors.ts';
import { parseSearchBodyText, type SearchRequest } from '../../engine/search/index.ts';
import { InvalidArgumentError } from '../../engine/errors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { bodyText, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import { executeSearch } from './search-exec.ts';
import { applyUrlParams, type SearchService } from './search-routes.ts';

const PARAMS = ['explain', 'rewrite', 'all_shards', 'q', 'df', 'default_operator', 'analyzer', 'analyze_wildcard', 'lenient',
  'ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];

export function registerValidateRoutes(router: Router, cluster: EsCluster, search: SearchService): void {
  const validate = route(PARAMS, (req, p) => validateQuery(cluster, search, req, p));
  for (const path of ['/_validate/query', '/:index/_validate/query', '/:index/:type/_validate/query']) router.add(['GET', 'POST'], path, validate);
}

function parseBody(req: HttpRequest): SearchRequest {
  const text = bodyText(req);
  // RestActions.getQueryContent: the body may hold `query` and nothing else.
  let top: object = {};
  try { top = text.trim() ? JSON.parse(text) as object : {}; } catch { /* malformed: the parser below reports it */ }
  for (const k of Object.keys(top ?? {})) {
    if (k !== 'query') throw new InvalidArgumentError('SEARCH_PARSING', `request does not support [${k}]`);
  }
  const r = applyUrlParams(req, parseSearchBodyText(text));
  r.size = 0; r.aggs = null; r.sort = null;
  return r;
}

function parseErrorText(e: unknown): string {
  const err = errorBody(e).error as { type: string; reason: string };
  return err.type === 'parsing_exception' ? `org.elasticsearch.common.ParsingException: ${err.reason}` : err.reason;
}

async function validateQuery(cluster: EsCluster, search: SearchService, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const explain = boolParam(req, 'explain');
  let r: SearchRequest;
  try {
    r = parseBody(req);
  } catch (e) {
    // A body that does not parse never reaches the indices (RestValidateQueryAction parses it first): ES answers
    // `valid: false` alone, with the parse error (a ParsingException's detailed message, i.e. its Java toString)
    // when `explain` is set.
    const body: Record<string, unknown> = { valid: false };
    if (explain) body.error = parseErrorText(e);
    return json(req, 200, body);
  }
  const indices = search.resolve(p.index, req);
  const targets = search.targets(indices, req, p.type);
  const shards = { total: targets.length, successful: targets.length, failed: 0 };
  let error: string | null = null;
  try {
    await executeSearch(cluster, targets, r, { dfs: false, nowMs: cluster.ctx.now() });
  } catch (e) {
    // As the root cause ES prints: `type[reason]`, e.g. query_shard_exception[failed to create query: …].
    const root = (errorBody(e).error.root_cause as { type: string; reason: string }[])[0];
    error = `${root.type}[${root.reason}]`;
  }
  const body: Record<string, unknown> = { _shards: shards, valid: error === null };
  if (explain) body.explanations = indices.map((i) => (error === null ? { index: i.name, valid: true } : { index: i.name, valid: false, error }));
  return json(req, 200, body);
}
