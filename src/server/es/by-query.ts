/**
 * `_delete_by_query` and `_update_by_query`, as Elasticsearch's reindex module runs them on the coordinating
 * node: a scroll over a point-in-time view of the matches (`scroll_size` per batch, `_doc` order), each batch
 * written back as one shard write per shard with `if_seq_no`/`if_primary_term` from the hit, so a document
 * changed since the view was taken is a version conflict (counted with `conflicts=proceed`, or failing the
 * request with the batch done so far). Runs to completion within the request; `slices` (a count or `auto`) runs
 * that many sliced scrolls side by side and reports each slice's counts under `slices`.
 */
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import { ingest } from './routes-ingest.ts';
import { parseSearchBodyText, parseTimeMs, type SearchRequest } from '../../engine/search/index.ts';
import { outcomeAt, type WriteItem } from '../../workers/protocol.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { byScrollReply, countOutcome, newCounts, slicesParam, type ByScrollCounts } from './bulk-by-scroll.ts';
import { detachRequested, startDetached } from './detached-task.ts';
import { checkByScrollParams, checkMaxDocs, searchPartProblems } from './by-scroll-request.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam, intParam } from './params.ts';
import type { MergedHit, ShardTarget } from './search-exec.ts';
import { applyUrlParams, type SearchService } from './search-routes.ts';

const COMMON_PARAMS = ['analyzer', 'analyze_wildcard', 'default_operator', 'df', 'from', 'ignore_unavailable', 'allow_no_indices',
  'conflicts', 'expand_wildcards', 'lenient', 'preference', 'q', 'routing', 'scroll', 'search_type', 'search_timeout', 'size', 'sort',
  '_source', '_source_excludes', '_source_includes', 'terminate_after', 'stats', 'version', 'request_cache', 'refresh', 'timeout',
  'wait_for_active_shards', 'scroll_size', 'requests_per_second', 'slices', 'wait_for_completion'];
const UPDATE_PARAMS = [...COMMON_PARAMS, 'pipeline', 'version_type'];
/** Search parameters of the URL that mean something else here (`size` is the maximum number of documents). */
const OWN_PARAMS = new Set(['size', 'scroll_size', 'conflicts', 'refresh', 'slices', 'requests_per_second', 'scroll', 'wait_for_active_shards', 'timeout',
  'wait_for_completion']);

type Kind = 'delete' | 'update';
/** A document changed or deleted since the scroll's view was taken. */
const CONFLICT_CODES = ['DOC_VERSION_CONFLICT', 'DOC_MISSING'];

export function registerByQueryRoutes(router: Router, cluster: EsCluster, search: SearchService): void {
  const del = route(COMMON_PARAMS, (req, p) => byQuery(cluster, search, req, p, 'delete'));
  const upd = route(UPDATE_PARAMS, (req, p) => byQuery(cluster, search, req, p, 'update'));
  for (const path of ['/:index/_delete_by_query', '/:index/:type/_delete_by_query']) router.add('POST', path, del);
  for (const path of ['/:index/_update_by_query', '/:index/:type/_update_by_query']) router.add('POST', path, upd);
}

async function byQuery(cluster: EsCluster, search: SearchService, req: HttpRequest, p: Params, kind: Kind): Promise<HttpResponse> {
  const started = Date.now();
  const body = bodyMap(req) ?? {};
  const conflicts = String(body.conflicts ?? req.query.get('conflicts') ?? 'abort');
  if (conflicts !== 'abort' && conflicts !== 'proceed') throw docError('DOC_ILLEGAL_ARGUMENT', [`conflicts may only be "proceed" or "abort" but was [${conflicts}]`]);
  const pipeline = req.query.get('pipeline') ?? undefined;
  if (pipeline !== undefined && pipeline !== '_none' && !cluster.pipeline(pipeline)) throw illegalArgument(`pipeline with id [${pipeline}] does not exist`);
  const script = body.script;
  if (kind === 'delete' && script !== undefined) throw docError('DOC_PARSE', ['[delete_by_query] unknown field [script], parser not found']);
  checkMaxDocs(body.max_docs ?? body.size ?? req.query.get('size') ?? undefined);
  checkByScrollParams(req);
  const maxDocs = numberOr(body.max_docs ?? body.size, intParam(req, 'size') ?? -1);
  const batchSize = intParam(req, 'scroll_size') ?? 1000;
  if (batchSize <= 0) throw docError('DOC_VALIDATION', ['1: scroll size must be greater than 0;']);
  const keepAliveMs = parseTimeMs(req.query.get('scroll') ?? '5m') ?? 300_000;

  const searchBody: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!['conflicts', 'max_docs', 'size', 'script'].includes(k)) searchBody[k] = v;
  const r: SearchRequest = parseSearchBodyText(JSON.stringify(searchBody));
  const urlOnly = new URLSearchParams([...req.query].filter(([k]) => !OWN_PARAMS.has(k)));
  applyUrlParams({ ...req, query: urlOnly }, r);
  const problems = searchPartProblems(searchBody, false);
  if (kind === 'delete' && r.query === null) problems.push('query is missing');
  if (problems.length) throw validationFailed(problems);
  r.size = maxDocs >= 0 ? Math.min(batchSize, maxDocs) : batchSize;
  r.from = 0;
  r.version = true;
  r.seqNoPrimaryTerm = true;
  if (kind === 'delete') r.source = { enabled: false, includes: [], excludes: [] };
  if (!r.sort) r.sort = [{ field: '_doc', order: 'asc' }];

  const indices = search.resolve(p.index, req);
  const slices = slicesParam(req.query.get('slices'), indices.map((i) => i.numberOfShards));
  const targets = search.targets(indices, req, p.type);
  const work = async (): Promise<{ status: number; body: Record<string, unknown> }> => {
    // Sliced: one independent sliced scroll per slice, run side by side (ES's worker slices), `size` split between them.
    const runs = Array.from({ length: slices }, (_, i) => {
      const sliceMax = maxDocs < 0 ? -1 : slices > 1 ? Math.floor(maxDocs / slices) : maxDocs;
      const sr: SearchRequest = { ...r, slice: slices > 1 ? { field: '_id', id: i, max: slices } : null, size: sliceMax >= 0 ? Math.min(batchSize, sliceMax) : batchSize };
      return runSlice(cluster, search, sr, targets, keepAliveMs, sliceMax, kind, script, conflicts === 'proceed', pipeline);
    });
    const counts = await Promise.all(runs);
    if (boolParam(req, 'refresh')) await cluster.allShards(indices.map((i) => cluster.state.indices[i.name]).filter(Boolean), 'docs.refresh');
    return byScrollReply(counts[0], started, { updated: kind === 'update' }, slices > 1 ? counts : null);
  };
  if (detachRequested(req)) return startDetached(cluster, req, work);
  const reply = await work();
  return json(req, reply.status, reply.body);
}

/** One scroll (the whole request, or one slice of it) written back batch by batch; its counts. */
async function runSlice(cluster: EsCluster, search: SearchService, r: SearchRequest, targets: ShardTarget[], keepAliveMs: number, maxDocs: number,
  kind: Kind, script: unknown, proceed: boolean, pipeline: string | undefined): Promise<ByScrollCounts> {
  const c = newCounts();
  let seen = 0;
  const total = await search.scrolls.scan(r, targets, keepAliveMs, async (hits) => {
    const take = maxDocs >= 0 ? hits.slice(0, Math.max(0, maxDocs - seen)) : hits;
    if (take.length === 0) return false;
    seen += take.length;
    c.batches++;
    await writeBatch(cluster, targets, take, kind, script, proceed, c, pipeline);
    return c.failures.length === 0 && (maxDocs < 0 || seen < maxDocs);
  });
  c.total = maxDocs >= 0 ? Math.min(total, maxDocs) : total;
  // A rewrite of a document that vanished meanwhile comes back created: ES counts it as updated.
  c.updated += c.created;
  c.created = 0;
  return c;
}

/** Writes one batch back, one shard write per shard, and counts the outcomes. */
async function writeBatch(cluster: EsCluster, targets: ShardTarget[], hits: MergedHit[], kind: Kind, script: unknown, proceed: boolean, c: ByScrollCounts,
  pipeline: string | undefined): Promise<void> {
  const byShard = new Map<number, MergedHit[]>();
  for (const h of hits) {
    let list = byShard.get(h.shardOrder);
    if (!list) byShard.set(h.shardOrder, list = []);
    list.push(h);
  }
  await Promise.all([...byShard].map(async ([order, list]) => {
    const t = targets[order];
    const items = list.map((h) => {
      const item = writeItem(h, kind, script);
      // `_update_by_query?pipeline=` runs the pipeline on each rewritten source (its index and id stay).
      if (pipeline !== undefined && item.action === 'index') {
        const ing = ingest(cluster, pipeline, t.index.name, t.index.type ?? '_doc', h.id, h.routing, item.op.source);
        if (ing.kind === 'write') item.op.source = ing.source;
      }
      return item;
    });
    const outcomes = await cluster.writeShard(t.meta, t.shard, items);
    for (let k = 0; k < items.length; k++) countOutcome(outcomeAt(outcomes, k), { index: list[k].indexName, type: list[k].type, id: list[k].id }, proceed, c, CONFLICT_CODES);
  }));
}

function writeItem(h: MergedHit, kind: Kind, script: unknown): WriteItem {
  const cond = { ifSeqNo: h.seqNo, ifPrimaryTerm: h.primaryTerm };
  const routing = h.routing;
  if (kind === 'delete') return { action: 'delete', op: { id: h.id, routing, ...cond } };
  if (script !== undefined) return { action: 'update', op: { id: h.id, routing, body: JSON.stringify({ script }), ...cond } };
  return { action: 'index', op: { id: h.id, routing, source: Buffer.from(h.source ?? '{}'), ...cond } };
}


function numberOr(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw docError('DOC_PARSE', [`[size] must be an integer but was [${String(v)}]`]);
  return n;
}
