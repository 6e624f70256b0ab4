/** Single-document endpoints: index/create (with and without id), get, exists, `_source`, delete, `_update`. */
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import { ingest } from './routes-ingest.ts';
import type { StoredDoc, UpdateOp, VersionType, WriteConditions, WriteResult } from '../../engine/documents/doc-shard-types.ts';
import { newDocId, validateTypeName } from '../../engine/documents/names.ts';
import { shardFor } from '../../engine/documents/routing.ts';
import { numberOfReplicas, numberOfShards } from '../../engine/documents/settings.ts';
import { filterSource, parseLossless, sourceFilterOf, stringifyLossless } from '../../engine/documents/source.ts';
import { fromWire } from '../../engine/errors.ts';
import { outcomeAt, type ItemOutcome, type WriteItem } from '../../workers/protocol.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { esFallbacks } from './fallbacks.ts';
import { bodyBytes, bodyText, route } from './handler.ts';
import { json, RawJson } from './json.ts';
import { intParam, listParam } from './params.ts';

const WRITE_PARAMS = ['routing', 'refresh', 'version', 'version_type', 'if_seq_no', 'if_primary_term', 'op_type', 'timeout',
  'wait_for_active_shards', 'pipeline', 'parent'];
const GET_PARAMS = ['_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude', 'stored_fields',
  'routing', 'realtime', 'refresh', 'version', 'version_type', 'preference', 'parent'];
const DELETE_PARAMS = ['routing', 'refresh', 'version', 'version_type', 'if_seq_no', 'if_primary_term', 'timeout', 'wait_for_active_shards', 'parent'];
const UPDATE_PARAMS = ['routing', 'refresh', 'retry_on_conflict', 'if_seq_no', 'if_primary_term', 'version', 'version_type', 'lang',
  '_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude', 'fields', 'timeout', 'wait_for_active_shards', 'parent'];

export function refreshParam(req: HttpRequest): 'true' | 'wait_for' | undefined {
  const v = req.query.get('refresh');
  if (v === null || v === 'false') return undefined;
  if (v === '' || v === 'true') return 'true';
  if (v === 'wait_for') return 'wait_for';
  throw illegalArgument(`Unknown value for refresh: [${v}].`);
}

export function conditions(get: (k: string) => string | null | undefined): WriteConditions {
  const c: WriteConditions = {};
  const num = (k: string): number | undefined => {
    const v = get(k);
    if (v === null || v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) throw illegalArgument(`Failed to parse long parameter [${k}] with value [${v}]`);
    return n;
  };
  c.version = num('version');
  const vt = get('version_type');
  if (vt !== null && vt !== undefined) {
    if (!['internal', 'external', 'external_gte', 'force'].includes(vt)) throw illegalArgument(`No version type match [${vt}]`);
    c.versionType = vt as VersionType;
  }
  c.ifSeqNo = num('if_seq_no');
  c.ifPrimaryTerm = num('if_primary_term');
  if (c.ifSeqNo !== undefined && c.ifPrimaryTerm === undefined) throw validationFailed([`ifSeqNo is set, but primary term is [0]`]);
  if (c.ifPrimaryTerm !== undefined && c.ifSeqNo === undefined) throw validationFailed(['ifSeqNo is unassigned, but primary term is [' + c.ifPrimaryTerm + ']']);
  if (c.versionType && c.versionType !== 'internal' && c.version === undefined) throw validationFailed([`version type [${c.versionType}] requires a version`]);
  return c;
}

export function checkId(id: string): void {
  if (id === '') throw illegalArgument('if _id is specified it must not be empty');
  const n = Buffer.byteLength(id, 'utf8');
  if (n > 512) throw validationFailed([`id is too long, must be no longer than 512 bytes but was: ${n}`]);
}

export function routingRequired(meta: IndexMeta, routing: string | undefined, id: string): void {
  const r = meta.mapping._routing as { required?: boolean } | undefined;
  if (r?.required === true && routing === undefined) throw docError('DOC_ROUTING_MISSING', [meta.name, meta.type, id], { index: meta.name });
}

/** The write response body in ES's key order. */
export function writeBody(meta: IndexMeta, type: string, id: string, r: WriteResult): Record<string, unknown> {
  const b: Record<string, unknown> = { _index: meta.name, _type: type, _id: id, _version: r.version, result: r.result };
  if (r.result === 'noop') {
    b._shards = { total: 0, successful: 0, failed: 0 };
    return b;
  }
  if (r.forcedRefresh) b.forced_refresh = true;
  b._shards = { total: 1 + numberOfReplicas(meta.settings), successful: 1, failed: 0 };
  b._seq_no = r.seqNo;
  b._primary_term = r.primaryTerm;
  return b;
}

export const writeStatus = (r: WriteResult): number => (r.result === 'created' ? 201 : r.result === 'not_found' ? 404 : 200);

function outcome(o: ItemOutcome): WriteResult {
  if ('ok' in o) return o.ok;
  if ('err' in o) throw fromWire(o.err);
  throw new Error('write did not complete');
}

/**
 * Elasticsearch endpoint names that can stand where a document id would (`/{index}/{type}/_name`). A request
 * for one that has no route here must not become a document called `_termvectors`: it gets the answer for a
 * path nothing handles.
 */
const ENDPOINT_NAMES = new Set(['_mget', '_search', '_count', '_msearch', '_bulk', '_delete_by_query', '_update_by_query',
  '_mapping', '_mappings', '_validate', '_termvectors', '_mtermvectors']);

/** Routes a document handler unless the id is an endpoint name. */
function docRoute(allowed: readonly string[], fn: (req: HttpRequest, p: Params) => Promise<HttpResponse>) {
  return route(allowed, (req, p) => (ENDPOINT_NAMES.has(p.id) ? esFallbacks.notFound(req) : fn(req, p)));
}

export function registerDocRoutes(router: Router, cluster: EsCluster): void {
  router.add(['PUT', 'POST'], '/:index/:type/:id', docRoute(WRITE_PARAMS, (req, p) => indexDoc(cluster, req, p, false)));
  router.add(['PUT', 'POST'], '/:index/:type/:id/_create', route(WRITE_PARAMS, (req, p) => indexDoc(cluster, req, p, true)));
  router.add('POST', '/:index/:type', route(WRITE_PARAMS, (req, p) => indexDoc(cluster, req, p, false)));
  router.add(['GET', 'HEAD'], '/:index/:type/:id', docRoute(GET_PARAMS, (req, p) => getDoc(cluster, req, p)));
  router.add(['GET', 'HEAD'], '/:index/:type/:id/_source', route(GET_PARAMS, (req, p) => getSource(cluster, req, p)));
  router.add('DELETE', '/:index/:type/:id', docRoute(DELETE_PARAMS, (req, p) => deleteDoc(cluster, req, p)));
  router.add('POST', '/:index/:type/:id/_update', route(UPDATE_PARAMS, (req, p) => updateDoc(cluster, req, p)));
}

async function indexDoc(cluster: EsCluster, req: HttpRequest, p: Params, create: boolean): Promise<HttpResponse> {
  if (p.id !== undefined) checkId(p.id);
  validateTypeName(p.type);
  const body = bodyBytes(req);
  if (body.length === 0) throw docError('DOC_PARSE', ['request body is required']);
  const opType = req.query.get('op_type');
  if (opType !== null && opType !== 'create' && opType !== 'index') throw illegalArgument(`opType must be 'create' or 'index', found: [${opType}]`);
  // The pipeline runs before anything is written or created; it may change the index, id, routing and source.
  const ing = ingest(cluster, req.query.get('pipeline') ?? undefined, p.index, p.type, p.id, req.query.get('routing') ?? undefined, body);
  if (ing.kind === 'dropped') {
    return json(req, 200, { _index: p.index, _type: p.type, _id: p.id ?? '', _version: -3, result: 'noop', _shards: { total: 0, successful: 0, failed: 0 } });
  }
  const id = ing.id ?? newDocId();
  if (ing.id !== p.id) checkId(id);
  const src = ing.source;
  const isCreate = create || ing.id === undefined || opType === 'create';
  const { meta, routing: aliasRouting } = await cluster.writeTarget(ing.index, p.type);
  const routing = ing.routing ?? aliasRouting;
  routingRequired(meta!, routing, id);
  // A generated id is new by construction: the shard need not look for an earlier copy (ES's append-only path).
  const item: WriteItem = { action: isCreate ? 'create' : 'index', op: { id, source: src, routing, ...conditions((k) => req.query.get(k)), ...(ing.id === undefined ? { autoId: true } : {}) } };
  const shard = shardFor(routing ?? id, numberOfShards(meta!.settings));
  const r = outcome(outcomeAt(await cluster.writeShard(meta!, shard, [item], refreshParam(req)), 0));
  const headers = r.result === 'created' ? { location: `/${meta!.name}/${p.type}/${encodeURIComponent(id)}${routing ? `?routing=${encodeURIComponent(routing)}` : ''}` } : undefined;
  return json(req, writeStatus(r), writeBody(meta!, p.type, id, r), headers);
}

async function getDoc(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const found = await lookup(cluster, p.index, p.type, p.id, req.query.get('routing'));
  if (req.method === 'HEAD') return { status: found.doc ? 200 : 404, body: '' };
  if (!found.doc) return json(req, 404, { _index: found.index, _type: p.type, _id: p.id, found: false });
  const d = found.doc;
  const b: Record<string, unknown> = { _index: found.index, _type: p.type, _id: p.id, _version: d.version, _seq_no: d.seqNo, _primary_term: d.primaryTerm };
  if (d.routing !== undefined) b._routing = d.routing;
  b.found = true;
  const src = sourceOut(req, d.source);
  if (src !== undefined) b._source = src;
  return json(req, 200, b);
}

async function getSource(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const found = await lookup(cluster, p.index, p.type, p.id, req.query.get('routing'));
  if (!found.doc) return { status: 404, body: '' };
  if (req.method === 'HEAD') return { status: 200, body: '' };
  return json(req, 200, sourceOut(req, found.doc.source) ?? new RawJson('{}'));
}

async function deleteDoc(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const { meta, routing: aliasRouting } = await cluster.writeTarget(p.index, p.type, false);
  if (!meta) throw notFoundExpr(p.index);
  const routing = req.query.get('routing') ?? aliasRouting;
  routingRequired(meta, routing, p.id);
  const shard = shardFor(routing ?? p.id, numberOfShards(meta.settings));
  const r = outcome(outcomeAt(await cluster.writeShard(meta, shard, [{ action: 'delete', op: { id: p.id, routing, ...conditions((k) => req.query.get(k)) } }], refreshParam(req)), 0));
  return json(req, writeStatus(r), writeBody(meta, p.type, p.id, r));
}

async function updateDoc(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const text = bodyText(req);
  if (text.trim() === '') throw docError('DOC_PARSE', ['request body is required']);
  const { meta, routing: aliasRouting } = await cluster.writeTarget(p.index, p.type);
  const routing = req.query.get('routing') ?? aliasRouting;
  const c = conditions((k) => req.query.get(k));
  const op: UpdateOp = { id: p.id, routing, body: text, ifSeqNo: c.ifSeqNo, ifPrimaryTerm: c.ifPrimaryTerm, version: c.version,
    retryOnConflict: intParam(req, 'retry_on_conflict'), fetchSource: updateFetch(req, text) };
  const shard = shardFor(routing ?? p.id, numberOfShards(meta!.settings));
  const r = outcome(outcomeAt(await cluster.writeShard(meta!, shard, [{ action: 'update', op }], refreshParam(req)), 0));
  const b = writeBody(meta!, p.type, p.id, r);
  if (r.getSource !== undefined) {
    const g: Record<string, unknown> = {};
    if (r.result !== 'noop') { g._seq_no = r.seqNo; g._primary_term = r.primaryTerm; }
    g.found = true;
    g._source = new RawJson(r.getSource);
    b.get = g;
  }
  return json(req, r.result === 'created' ? 201 : 200, b);
}

export function notFoundExpr(name: string): Error {
  return docError('DOC_INDEX_NOT_FOUND', [], { 'resource.type': 'index_expression', 'resource.id': name, index_uuid: '_na_', index: name });
}

/** `_source` of an update's `get` section: from `?_source*`/`fields` or the body's `_source`. */
export function updateFetch(req: HttpRequest, body: string): UpdateOp['fetchSource'] {
  const inc = listParam(req, '_source_includes') ?? listParam(req, '_source_include');
  const exc = listParam(req, '_source_excludes') ?? listParam(req, '_source_exclude');
  const src = req.query.get('_source');
  let spec: unknown = src === null ? undefined : src === 'true' || src === '' ? true : src === 'false' ? false : src.split(',');
  if (spec === undefined && !inc && !exc) {
    try { spec = (parseLossless(body) as Record<string, unknown>)?._source; } catch { spec = undefined; }
  }
  if (spec === undefined && !inc && !exc) return undefined;
  if (spec === false) return undefined;
  let includes = inc ?? [];
  let excludes = exc ?? [];
  if (Array.isArray(spec)) includes = spec.map(String);
  else if (typeof spec === 'string') includes = [spec];
  else if (spec && typeof spec === 'object') {
    const o = spec as Record<string, unknown>;
    const l = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
    includes = l(o.includes ?? o.include);
    excludes = l(o.excludes ?? o.exclude);
  }
  return includes.length || excludes.length ? { includes, excludes } : true;
}

/** One document by index expression (a single index or an alias to one), type (`_all` for any) and id. */
export async function lookup(cluster: EsCluster, index: string, type: string, id: string, routingParam: string | null): Promise<{ index: string; type: string; doc: StoredDoc | null }> {
  const resolved = cluster.resolveForRead(index, { resourceType: 'index_expression', data: true });
  if (resolved.length !== 1) {
    throw illegalArgument(`Alias [${index}] has more than one indices associated with it [[${resolved.map((r) => r.name).join(', ')}]], can't execute a single index op`);
  }
  const r = resolved[0];
  const meta = cluster.state.indices[r.name];
  const shownType = type === '_all' ? meta.type ?? '_doc' : type;
  if (type !== '_all' && meta.type !== null && meta.type !== type) return { index: r.name, type: shownType, doc: null };
  if (meta.type === null) return { index: r.name, type: shownType, doc: null };
  const routing = routingParam ?? meta.aliases[index]?.index_routing ?? r.searchRouting;
  const shard = shardFor(routing ?? id, numberOfShards(meta.settings));
  return { index: r.name, type: shownType, doc: await cluster.getDoc(meta, shard, id) };
}

/** The `_source` to print for a GET (undefined = omit), honouring `_source`, includes/excludes and stored_fields. */
export function sourceOut(req: HttpRequest, source: Uint8Array): RawJson | undefined {
  const s = req.query.get('_source');
  if (s === 'false') return undefined;
  const inc = s !== null && s !== 'true' && s !== '' ? s.split(',') : listParam(req, '_source_includes') ?? listParam(req, '_source_include');
  const exc = listParam(req, '_source_excludes') ?? listParam(req, '_source_exclude');
  if (req.query.has('stored_fields') && s === null && !inc && !exc) return undefined;
  const text = Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8');
  const f = sourceFilterOf(inc, exc);
  if (!f) return new RawJson(text);
  return new RawJson(stringifyLossless(filterSource(parseLossless(text), f)));
}

