/**
 * `_explain`: how one document scores against a query. The query runs on the shard holding the document
 * (by its routing), restricted to its id, with explanation on; a document the query does not match is
 * `matched: false` (the engine explains matches only, so the non-match carries a one-line explanation), and a
 * missing one 404.
 */
import { parseSearchBodyText, type Query } from '../../engine/search/index.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { bodyText, route } from './handler.ts';
import { json } from './json.ts';
import { executeSearch } from './search-exec.ts';
import { floatTree } from './search-render.ts';
import { applyUrlParams, type SearchService } from './search-routes.ts';
import { lookup, sourceOut } from './routes-docs.ts';

const PARAMS = ['routing', 'preference', 'q', 'df', 'analyzer', 'analyze_wildcard', 'default_operator', 'lenient', 'stored_fields',
  '_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude', 'parent'];

export function registerExplainRoutes(router: Router, cluster: EsCluster, search: SearchService): void {
  router.add(['GET', 'POST'], '/:index/:type/:id/_explain', route(PARAMS, (req, p) => explain(cluster, search, req, p)));
}

async function explain(cluster: EsCluster, search: SearchService, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const r = applyUrlParams(req, parseSearchBodyText(bodyText(req)));
  const query: Query = r.query ?? { type: 'match_all', boost: 1 };
  const indices = search.resolve(p.index, { ...req, query: new URLSearchParams() });
  const routed = new URLSearchParams({ routing: req.query.get('routing') ?? p.id });
  // The id restriction goes in as the shard's filter (like an alias filter), so the explanation is the query's own.
  const ids: Query = { type: 'ids', values: [p.id], boost: 1 };
  const targets = search.targets(indices, { ...req, query: routed }, p.type === '_all' ? undefined : p.type).map((t) => ({
    ...t, filter: t.filter ? { type: 'bool' as const, must: [], should: [], mustNot: [], filter: [t.filter, ids], filterContext: true, boost: 1 } : ids,
  }));
  r.query = query;
  r.explain = true;
  r.size = 1; r.from = 0; r.aggs = null; r.sort = null;
  const out = await executeSearch(cluster, targets, r, { dfs: false, nowMs: cluster.ctx.now() });
  const hit = out.hits[0];
  const index = indices[0]?.name ?? p.index;
  if (!hit) {
    // As ES: 404 when the document does not exist, 200 with matched false when the query does not match it.
    const found = await lookup(cluster, p.index, p.type, p.id, req.query.get('routing'));
    if (!found.doc) return json(req, 404, { _index: index, _type: p.type, _id: p.id, matched: false });
    return json(req, 200, { _index: index, _type: p.type, _id: p.id, matched: false,
      explanation: { value: 0.0, description: 'the document does not match the query', details: [] } });
  }
  const body: Record<string, unknown> = { _index: hit.indexName, _type: hit.type, _id: p.id, matched: true, explanation: floatTree(hit.explanation!) };
  if (req.query.has('_source') || req.query.has('_source_includes') || req.query.has('_source_include')) {
    const src = sourceOut(req, Buffer.from(hit.source ?? '{}'));
    if (src !== undefined) body.get = { _source: src, found: true };
  }
  return json(req, 200, body);
}
