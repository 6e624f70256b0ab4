/**
 * `POST /_reindex`: copies documents from source indices (this node's, or a remote Elasticsearch/OpenSearch/
 * Tessera node's over HTTP with `source.remote`) into a destination index, as Elasticsearch's reindex module
 * does: a scroll over the source (`source.size` per batch), each batch written as one write per destination
 * shard, with `op_type`, `version_type`, `routing` (keep, discard, `=value`), an optional script (`ctx._source`,
 * `ctx._id`, `ctx._routing`, `ctx.op` = noop or delete), `conflicts`, `size`/`max_docs`, `refresh` and `slices`
 * (a count or `auto`: sliced scrolls over a local source, side by side, each slice's counts under `slices`).
 * Remote hosts must match `reindex.remote.whitelist` (host:port patterns), as in Elasticsearch.
 */
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { simpleMatch } from '../../engine/documents/cluster-state.ts';
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import { ingest, type Ingested } from './routes-ingest.ts';
import type { VersionType } from '../../engine/documents/doc-shard-types.ts';
import { runScript, type ScriptSpec } from '../../engine/documents/painless.ts';
import { shardFor } from '../../engine/documents/routing.ts';
import { numberOfShards } from '../../engine/documents/settings.ts';
import { parseScriptSpec } from '../../engine/documents/update.ts';
import { parseSearchBodyText } from '../../engine/search/index.ts';
import { outcomeAt, type WriteItem } from '../../workers/protocol.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { itemError } from './errors.ts';
import { byScrollReply, countOutcome, newCounts, slicesParam, type ByScrollCounts } from './bulk-by-scroll.ts';
import { detachRequested, startDetached } from './detached-task.ts';
import { checkByScrollParams, checkMaxDocs, searchPartProblems } from './by-scroll-request.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import type { SearchService } from './search-routes.ts';

const PARAMS = ['refresh', 'timeout', 'wait_for_active_shards', 'wait_for_completion', 'requests_per_second', 'scroll', 'slices', 'max_docs'];

/** One source document, wherever it was read. */
interface SourceDoc { index: string; type: string; id: string; routing?: string; version?: number; source: string }

interface Dest { index: string; type?: string; opType: 'index' | 'create'; versionType?: VersionType; routing: string; pipeline?: string }

export function registerReindexRoutes(router: Router, cluster: EsCluster, search: SearchService): void {
  router.add('POST', '/_reindex', route(PARAMS, (req) => reindex(cluster, search, req)));
}

async function reindex(cluster: EsCluster, search: SearchService, req: HttpRequest): Promise<HttpResponse> {
  const started = Date.now();
  const body = bodyMap(req, true)!;
  for (const k of Object.keys(body)) {
    if (!['source', 'dest', 'script', 'conflicts', 'size', 'max_docs'].includes(k)) throw docError('DOC_PARSE', [`[reindex] unknown field [${k}]`]);
  }
  // Parsed in ES's order (RestReindexAction's parser, then the URL parameters, then ReindexRequest.validate()),
  // all before any index is looked at.
  const src = body.source === undefined ? {} : obj(body.source, 'source');
  const destBody = body.dest === undefined ? {} : obj(body.dest, 'dest');
  const searchPart = Object.fromEntries(Object.entries(src).filter(([k]) => !['index', 'type', 'remote'].includes(k)));
  if (src.remote !== undefined) checkRemote(obj(src.remote, 'remote'));
  parseSearchBodyText(JSON.stringify(searchPart));
  for (const k of Object.keys(destBody)) {
    if (!DEST_FIELDS.includes(k)) throw docError('DOC_PARSE', [`[dest] unknown field [${k}], parser not found`]);
  }
  const conflicts = String(body.conflicts ?? 'abort');
  if (conflicts !== 'abort' && conflicts !== 'proceed') throw illegalArgument(`conflicts may only be "proceed" or "abort" but was [${conflicts}]`);
  checkMaxDocs(body.max_docs ?? body.size);
  checkByScrollParams(req);
  const problems = searchPartProblems(searchPart, true);
  if (src.index === undefined) problems.splice(problems.length - (searchPart._source === false ? 1 : 0), 0, 'use _all if you really want to copy from all existing indexes');
  if (typeof destBody.index !== 'string' || destBody.index === '') problems.push('index must be specified');
  const slicesRaw = req.query.get('slices');
  if (src.remote !== undefined && slicesRaw !== null && slicesRaw !== '1') {
    problems.push(`reindex from remote sources doesn't support slices > 1 but was [${slicesRaw === 'auto' ? 0 : slicesRaw}]`);
  }
  if (problems.length) throw validationFailed(problems);
  const dest: Dest = {
    pipeline: destBody.pipeline === undefined ? undefined : String(destBody.pipeline),
    index: destBody.index as string,
    type: destBody.type === undefined ? undefined : String(destBody.type),
    opType: destBody.op_type === 'create' ? 'create' : 'index',
    versionType: destBody.version_type === undefined ? undefined : String(destBody.version_type) as VersionType,
    routing: destBody.routing === undefined ? 'keep' : String(destBody.routing),
  };
  if (destBody.op_type !== undefined && destBody.op_type !== 'create' && destBody.op_type !== 'index') throw illegalArgument(`opType must be 'create' or 'index', found: [${String(destBody.op_type)}]`);
  const script = body.script === undefined ? null : parseScriptSpec(body.script);
  const maxDocsRaw = body.max_docs ?? body.size ?? req.query.get('max_docs') ?? undefined;
  const maxDocs = maxDocsRaw === undefined ? -1 : Number(maxDocsRaw);
  const batchSize = src.size === undefined ? 1000 : Number(src.size);
  const indices = ([] as unknown[]).concat(src.index).map(String);
  /** One scroll's batch handler (the whole copy, or one slice of it with its share of `max_docs`). */
  const batcher = (c: ByScrollCounts, max: number) => {
    let seen = 0;
    return async (docs: SourceDoc[], total: number): Promise<boolean> => {
      c.total = max >= 0 ? Math.min(total, max) : total;
      const take = max >= 0 ? docs.slice(0, Math.max(0, max - seen)) : docs;
      if (take.length === 0) return false;
      seen += take.length;
      c.batches++;
      await writeBatch(cluster, take, dest, script, conflicts === 'proceed', c);
      return c.failures.length === 0 && (max < 0 || seen < max);
    };
  };
  const searchBody: Record<string, unknown> = { size: maxDocs >= 0 ? Math.min(batchSize, maxDocs) : batchSize, version: true, sort: src.sort ?? ['_doc'] };
  if (src.query !== undefined) searchBody.query = src.query;
  if (src._source !== undefined) searchBody._source = src._source;
  // A local source is resolved and checked before the work starts (and before a detached task is created).
  const local = src.remote === undefined ? localSource(search, req, indices, dest, src.type) : null;
  const work = async (): Promise<{ status: number; body: Record<string, unknown> }> => {
    let counts: ByScrollCounts[];
    let slices = 1;
    if (local === null) {
      counts = [newCounts()];
      await readRemote(cluster, obj(src.remote, 'source.remote'), indices, src.type, searchBody, batcher(counts[0], maxDocs));
    } else {
      const r = parseSearchBodyText(JSON.stringify(searchBody));
      const { resolved, targets } = local;
      slices = slicesParam(slicesRaw, resolved.map((i) => i.numberOfShards));
      counts = await Promise.all(Array.from({ length: slices }, async (_, i) => {
        const c = newCounts();
        const max = maxDocs < 0 ? -1 : Math.floor(maxDocs / slices);
        const sr = { ...r, slice: slices > 1 ? { field: '_id', id: i, max: slices } : null, size: max >= 0 ? Math.min(batchSize, max) : batchSize };
        const onBatch = batcher(c, max);
        await search.scrolls.scan(sr, targets, 300_000, (hits, total) => onBatch(hits.map((h) => ({
          index: h.indexName, type: h.type, id: h.id, routing: h.routing, version: h.version, source: h.source ?? '{}',
        })), total));
        return c;
      }));
    }
    if (boolParam(req, 'refresh')) {
      const meta = cluster.state.indices[dest.index];
      if (meta) await cluster.allShards([meta], 'docs.refresh');
    }
    return byScrollReply(counts[0], started, { updated: true, created: true }, slices > 1 ? counts : null);
  };
  if (detachRequested(req)) return startDetached(cluster, req, work);
  const reply = await work();
  return json(req, reply.status, reply.body);
}

function localSource(search: SearchService, req: HttpRequest, indices: string[], dest: Dest, type: unknown) {
  const resolved = search.resolve(indices.join(','), req);
  if (resolved.some((i) => i.name === dest.index)) throw illegalArgument(`reindex cannot write into an index its reading from [${dest.index}]`);
  const targets = search.targets(resolved, req, type === undefined ? undefined : ([] as unknown[]).concat(type).join(','));
  return { resolved, targets };
}

/** Writes one batch into the destination, one shard write per destination shard, and counts the outcomes. */
async function writeBatch(cluster: EsCluster, docs: SourceDoc[], dest: Dest, script: ScriptSpec | null, proceed: boolean, c: ByScrollCounts): Promise<void> {
  const groups = new Map<string, { meta: IndexMeta; shard: number; items: WriteItem[]; ids: string[]; index: string; type: string }>();
  for (const d of docs) {
    let index = dest.index, id = d.id, routing = dest.routing === 'keep' ? d.routing : dest.routing === 'discard' ? undefined : dest.routing.slice(1);
    let source = d.source, op = 'index';
    if (script) {
      const ctx: Record<string, unknown> = { _index: d.index, _type: d.type, _id: d.id, _routing: routing ?? null, _version: d.version, _source: JSON.parse(d.source), op: 'index' };
      runScript(script, ctx);
      op = String(ctx.op);
      if (op === 'noop' || op === 'none') { c.noops++; continue; }
      if (op !== 'index' && op !== 'delete') throw illegalArgument(`Invalid op [${op}]`);
      index = ctx._index === d.index ? dest.index : String(ctx._index);
      id = String(ctx._id);
      routing = ctx._routing === null || ctx._routing === undefined ? undefined : String(ctx._routing);
      source = JSON.stringify(ctx._source);
    }
    const type = dest.type ?? d.type;
    if (op !== 'delete') {
      // The destination's pipeline (dest.pipeline, else its default pipeline) runs on each copied document.
      let ing: Ingested;
      try { ing = ingest(cluster, dest.pipeline, index, type, id, routing, Buffer.from(source)); } catch (e) {
        const { error, status } = itemError(e);
        c.failures.push({ index, type, id, cause: error, status });
        continue;
      }
      if (ing.kind === 'dropped') { c.noops++; continue; }
      index = ing.index; id = ing.id ?? id; routing = ing.routing; source = Buffer.from(ing.source).toString('utf8');
    }
    const { meta } = await cluster.writeTarget(index, type, op !== 'delete');
    if (!meta) continue;
    const shard = shardFor(routing ?? id, numberOfShards(meta.settings));
    const key = `${meta.uuid}/${shard}`;
    let g = groups.get(key);
    if (!g) groups.set(key, g = { meta, shard, items: [], ids: [], index: meta.name, type });
    const versioned = dest.versionType !== undefined && dest.versionType !== 'internal' && d.version !== undefined
      ? { version: d.version, versionType: dest.versionType } : {};
    g.items.push(op === 'delete' ? { action: 'delete', op: { id, routing } }
      : { action: dest.opType, op: { id, source: Buffer.from(source), routing, ...versioned } });
    g.ids.push(id);
  }
  await Promise.all([...groups.values()].map(async (g) => {
    const outcomes = await cluster.writeShard(g.meta, g.shard, g.items);
    for (let k = 0; k < g.items.length; k++) countOutcome(outcomeAt(outcomes, k), { index: g.index, type: g.type, id: g.ids[k] }, proceed, c);
  }));
}


/** Reads the source through a remote node's scroll API, `onBatch` per page; the scroll is cleared at the end. */
async function readRemote(cluster: EsCluster, remote: Record<string, unknown>, indices: string[], type: unknown,
  searchBody: Record<string, unknown>, onBatch: (docs: SourceDoc[], total: number) => Promise<boolean>): Promise<void> {
  if (typeof remote.host !== 'string') throw validationFailed(['[host] must be specified to reindex from a remote cluster']);
  let url: URL;
  try { url = new URL(remote.host); } catch { throw illegalArgument(`[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [${remote.host}]`); }
  const hostPort = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  const whitelist = cluster.ctx.flags['reindex.remote.whitelist'];
  if (!whitelist.some((p) => simpleMatch(p, hostPort))) throw illegalArgument(`[${hostPort}] not whitelisted in reindex.remote.whitelist`);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(obj(remote.headers ?? {}, 'source.remote.headers'))) headers[k] = String(v);
  if (remote.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${String(remote.username)}:${String(remote.password ?? '')}`).toString('base64')}`;
  const base = remote.host.replace(/\/+$/, '');
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw docError('DOC_ILLEGAL_STATE', [`failed to reach the remote cluster [${base}]: ${(e as Error).message}`]);
    }
    const text = await res.text();
    let parsed: Record<string, unknown>;
    try { parsed = JSON.parse(text) as Record<string, unknown>; } catch { parsed = {}; }
    if (!res.ok) {
      const reason = (parsed.error as { reason?: string } | undefined)?.reason ?? text.slice(0, 200);
      throw docError(res.status === 404 ? 'DOC_INDEX_NOT_FOUND' : 'DOC_ILLEGAL_STATE', res.status === 404 ? [] : [`remote cluster answered ${res.status}: ${reason}`],
        res.status === 404 ? { 'resource.type': 'index_or_alias', 'resource.id': indices.join(','), index_uuid: '_na_', index: indices.join(',') } : {});
    }
    return parsed;
  };
  const typePath = type === undefined ? '' : `/${([] as unknown[]).concat(type).join(',')}`;
  let page = await call('POST', `/${indices.map(encodeURIComponent).join(',')}${typePath}/_search?scroll=5m`, searchBody);
  let scrollId = page._scroll_id as string | undefined;
  try {
    for (;;) {
      const hits = page.hits as { total: number | { value: number }; hits: Record<string, unknown>[] };
      const total = typeof hits.total === 'number' ? hits.total : hits.total.value;
      if (hits.hits.length === 0) return;
      const docs = hits.hits.map((h) => ({
        index: String(h._index), type: String(h._type ?? '_doc'), id: String(h._id), routing: h._routing === undefined ? undefined : String(h._routing),
        version: typeof h._version === 'number' ? h._version : undefined, source: JSON.stringify(h._source ?? {}),
      }));
      if (!await onBatch(docs, total) || !scrollId) return;
      page = await call('POST', '/_search/scroll', { scroll: '5m', scroll_id: scrollId });
      scrollId = (page._scroll_id as string | undefined) ?? scrollId;
    }
  } finally {
    if (scrollId) await call('DELETE', '/_search/scroll', { scroll_id: [scrollId] }).catch(() => undefined);
  }
}

const DEST_FIELDS = ['index', 'type', 'routing', 'op_type', 'pipeline', 'version_type'];
const REMOTE_FIELDS = ['host', 'username', 'password', 'headers', 'socket_timeout', 'connect_timeout'];

/** ReindexRequest's buildRemoteInfo checks: the host's form, the timeouts, no other keys. */
function checkRemote(remote: Record<string, unknown>): void {
  if (typeof remote.host !== 'string') throw validationFailed(['[host] must be specified to reindex from a remote cluster']);
  let ok = false;
  try { ok = new URL(remote.host).hostname !== ''; } catch { ok = false; }
  if (!ok) throw illegalArgument(`[host] must be of the form [scheme]://[host]:[port](/[pathPrefix])? but was [${remote.host}]`);
  for (const k of ['socket_timeout', 'connect_timeout']) if (remote[k] !== undefined) remoteTimeValue(String(remote[k]), k);
  const extra = Object.keys(remote).filter((k) => !REMOTE_FIELDS.includes(k));
  if (extra.length) throw illegalArgument(`Unsupported fields in [remote]: [${extra.join(',')}]`);
}

/**
 * TimeValue.parseTimeValue: a number with a unit; a value that ends with a unit's letters but has no number
 * before them fails on the number (a NumberFormatException inside the parse error), as `borked` (`d`) does.
 */
function remoteTimeValue(v: string, name: string): void {
  const m = /^(.*?)(nanos|micros|ms|s|m|h|d)$/.exec(v.trim().toLowerCase());
  if (!m) throw docError('DOC_PARSE', [`failed to parse setting [${name}] with value [${v}] as a time value: unit is missing or unrecognized`]);
  if (!/^\d+(\.\d+)?$/.test(m[1].trim())) {
    throw docError('DOC_PARSE', [`failed to parse [${v}]`], { cause: { code: 'DOC_NUMBER_FORMAT', message: `For input string: "${m[1]}"`, details: {} } });
  }
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw docError('DOC_PARSE', [`[reindex] failed to parse field [${what}]`]);
  return v as Record<string, unknown>;
}
