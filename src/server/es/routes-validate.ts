/**
 * `_validate/query`: whether a query parses and compiles against the mappings of the target indices. The
 * query is parsed here and compiled on every target shard by running it as a count, so the answer is the one
 * a search would get. `explain=true` adds, per index, the error of an invalid query (the Lucene rendering of
 * a valid one is not produced: the engine has no Lucene query strings).
 */
import { errorBody } from './errors.ts';
import { parseSearchBodyText } from '../../engine/search/index.ts';
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

async function validateQuery(cluster: EsCluster, search: SearchService, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const indices = search.resolve(p.index, req);
  const targets = search.targets(indices, req, p.type);
  const explain = boolParam(req, 'explain');
  const shards = { total: targets.length, successful: targets.length, failed: 0 };
  let error: string | null = null;
  try {
    const text = bodyText(req);
    const r = applyUrlParams(req, parseSearchBodyText(text));
    for (const k of Object.keys(text.trim() ? JSON.parse(text) as object : {})) {
      if (k !== 'query') throw new Error(`request does not support [${k}]`);
    }
    r.size = 0; r.aggs = null; r.sort = null;
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
