/** Index endpoints: create, delete, exists, get, settings, mappings (get/put), refresh, flush. */
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { docError, illegalArgument, indexNotFound } from '../../engine/documents/doc-errors.ts';
import { countFields, mergeMapping, validateRootMapping } from '../../engine/documents/mapping.ts';
import { expandDottedFields } from '../../engine/documents/mapping-dots.ts';
import { customAnalyzers, simpleMatch } from '../../engine/documents/cluster-state.ts';
import { validateTypeName } from '../../engine/documents/names.ts';
import { flattenSettings, numberOfReplicas, numberOfShards, validateSettingNames, validateSettings } from '../../engine/documents/settings.ts';
import type { HttpRequest } from '../http.ts';
import type { Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { bodyMap, exists, route } from './handler.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import { renderAliases, renderMappings, renderSettings } from './render.ts';

const EXPAND = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];
const CREATE_PARAMS = ['include_type_name', 'wait_for_active_shards', 'timeout', 'master_timeout', 'update_all_types'];
const GET_PARAMS = ['include_type_name', 'local', 'flat_settings', 'include_defaults', 'master_timeout', ...EXPAND];
const MAPPING_PARAMS = ['include_type_name', 'local', 'master_timeout', ...EXPAND];
const PUT_MAPPING_PARAMS = ['include_type_name', 'timeout', 'master_timeout', 'update_all_types', ...EXPAND];

export function readOpts(req: HttpRequest): { ignoreUnavailable: boolean; allowNoIndices: boolean } {
  return { ignoreUnavailable: boolParam(req, 'ignore_unavailable'), allowNoIndices: boolParam(req, 'allow_no_indices', true) };
}

/** The open indices (with their data) that `expr` names, under the request's `ignore_unavailable`/`allow_no_indices`. */
export function dataIndices(cluster: EsCluster, req: HttpRequest, expr: string | undefined): IndexMeta[] {
  return cluster.resolveForRead(expr, { ...readOpts(req), data: true }).map((r) => cluster.state.indices[r.name]);
}

export const typelessParam = (req: HttpRequest): boolean => req.query.get('include_type_name') === 'false';

function metasOf(cluster: EsCluster, expr: string | undefined, req: HttpRequest): IndexMeta[] {
  return cluster.resolveForRead(expr, readOpts(req)).map((r) => cluster.state.indices[r.name]);
}

export function shardsHeader(metas: IndexMeta[]): { total: number; successful: number; failed: number } {
  let total = 0, successful = 0;
  for (const m of metas) { const n = numberOfShards(m.settings); total += n * (1 + numberOfReplicas(m.settings)); successful += n; }
  return { total, successful, failed: 0 };
}

export function registerIndexRoutes(router: Router, cluster: EsCluster): void {
  router.add('PUT', '/:index', route(CREATE_PARAMS, async (req, p) => {
    const meta = await cluster.createIndex(p.index, bodyMap(req), typelessParam(req));
    return json(req, 200, { acknowledged: true, shards_acknowledged: true, index: meta.name });
  }));

  router.add('DELETE', '/:index', route(['timeout', 'master_timeout', ...EXPAND], async (req, p) => {
    const parts = p.index.split(',');
    if (cluster.setting('action.destructive_requires_name') === 'true' && parts.some((x) => x === '_all' || x.includes('*'))) {
      throw illegalArgument('Wildcard expressions or all indices are not allowed');
    }
    for (const part of parts) {
      if (!part.includes('*') && part !== '_all' && !cluster.state.indices[part] && !cluster.resolveForRead(part, { ignoreUnavailable: true }).length) {
        if (!boolParam(req, 'ignore_unavailable')) throw indexNotFound(part);
      }
    }
    const names = cluster.resolveForRead(p.index, { ignoreUnavailable: true }).map((r) => r.name);
    await cluster.deleteIndices(names);
    return json(req, 200, { acknowledged: true });
  }));

  router.add(['GET', 'HEAD'], '/:index', route(GET_PARAMS, (req, p) => {
    if (req.method === 'HEAD') {
      try { return exists(metasOf(cluster, p.index, req).length > 0); } catch { return exists(false); }
    }
    const out: Record<string, unknown> = {};
    for (const m of metasOf(cluster, p.index, req)) {
      out[m.name] = { aliases: renderAliases(m.aliases), mappings: renderMappings(m, typelessParam(req)), settings: renderSettings(m.settings, boolParam(req, 'flat_settings')) };
    }
    return json(req, 200, out);
  }));

  const getSettings = route([...GET_PARAMS], (req, p) => {
    const out: Record<string, unknown> = {};
    for (const m of metasOf(cluster, p.index, req)) {
      let s = m.settings;
      if (p.name) {
        const pats = p.name.split(',');
        s = Object.fromEntries(Object.entries(s).filter(([k]) => pats.some((x) => simpleMatch(x, k))));
      }
      out[m.name] = { settings: renderSettings(s, boolParam(req, 'flat_settings')) };
    }
    return json(req, 200, out);
  });
  router.add('GET', '/:index/_settings', getSettings);
  router.add('GET', '/_settings', getSettings);
  router.add('GET', '/:index/_settings/:name', getSettings);

  const putSettings = route(['preserve_existing', 'flat_settings', 'timeout', 'master_timeout', ...EXPAND], (req, p) => updateSettings(cluster, req, p.index));
  router.add('PUT', '/:index/_settings', putSettings);
  router.add('PUT', '/_settings', putSettings);

  for (const word of ['_mapping', '_mappings']) {
    const get = route(MAPPING_PARAMS, (req, p) => getMapping(cluster, req, p.index, p.type));
    router.add('GET', `/${word}`, get);
    router.add('GET', `/:index/${word}`, get);
    router.add('GET', `/:index/${word}/:type`, get);
    router.add('GET', `/${word}/:type`, get);
    router.add('GET', `/:index/:type/${word}`, get);
    const put = route(PUT_MAPPING_PARAMS, (req, p) => putMapping(cluster, req, p.index, p.type));
    router.add(['PUT', 'POST'], `/:index/${word}/:type`, put);
    router.add(['PUT', 'POST'], `/:index/:type/${word}`, put);
    router.add(['PUT', 'POST'], `/${word}/:type`, put);
    router.add(['PUT', 'POST'], `/:index/${word}`, put);
  }

  const closeOrOpen = (closed: boolean) => route(['timeout', 'master_timeout', 'wait_for_active_shards', ...EXPAND], async (req, p) => {
    if (closed && cluster.setting('action.destructive_requires_name') === 'true' && p.index.split(',').some((x) => x === '_all' || x.includes('*'))) {
      throw illegalArgument('Wildcard expressions or all indices are not allowed');
    }
    await cluster.setClosed(metasOf(cluster, p.index, req), closed);
    return json(req, 200, closed ? { acknowledged: true } : { acknowledged: true, shards_acknowledged: true });
  });
  router.add('POST', '/:index/_close', closeOrOpen(true));
  router.add('POST', '/:index/_open', closeOrOpen(false));

  // The segment block cache is one per shard worker, shared by every index there: clearing it for some indices
  // clears it for all (a cache only costs time to refill, never correctness). Query, request and fielddata
  // caches do not exist here.
  const clearCache = route(['fielddata', 'fields', 'query', 'request', 'request_cache', 'field_data', ...EXPAND], async (req, p) => {
    const metas = dataIndices(cluster, req, p.index);
    await cluster.ctx.pool.broadcast('docs.clearCache', {});
    return json(req, 200, { _shards: shardsHeader(metas) });
  });
  // ES 6.8 takes GET as well (deprecated in 7, gone in 8); the 6.8 clients send GET when there is no body.
  for (const method of ['POST', 'GET'] as const) {
    router.add(method, '/_cache/clear', clearCache);
    router.add(method, '/:index/_cache/clear', clearCache);
  }

  const refresh = (op: 'docs.refresh' | 'docs.flush') => route(['force', 'wait_if_ongoing', ...EXPAND], async (req, p) => {
    const metas = dataIndices(cluster, req, p.index);
    await cluster.allShards(metas, op);
    return json(req, 200, { _shards: shardsHeader(metas) });
  });
  router.add(['GET', 'POST'], '/_refresh', refresh('docs.refresh'));
  router.add(['GET', 'POST'], '/:index/_refresh', refresh('docs.refresh'));
  router.add(['GET', 'POST'], '/_flush', refresh('docs.flush'));
  router.add(['GET', 'POST'], '/:index/_flush', refresh('docs.flush'));

  // A synced flush (curator sends one before closing an index) is a flush whose sync id lets replicas skip a
  // file copy at recovery. There are no replicas here: it flushes, and answers ES's per-index shard counts
  // (every copy counted, the unassigned replicas neither successful nor failed).
  const syncedFlush = route(EXPAND, async (req, p) => {
    const metas = dataIndices(cluster, req, p.index);
    await cluster.allShards(metas, 'docs.flush');
    const out: Record<string, unknown> = { _shards: shardsHeader(metas) };
    for (const m of metas) out[m.name] = shardsHeader([m]);
    return json(req, 200, out);
  });
  router.add(['GET', 'POST'], '/_flush/synced', syncedFlush);
  router.add(['GET', 'POST'], '/:index/_flush/synced', syncedFlush);
}

function getMapping(cluster: EsCluster, req: HttpRequest, index: string | undefined, type: string | undefined) {
  const metas = cluster.resolveForRead(index, readOpts(req)).map((r) => cluster.state.indices[r.name]);
  const typeless = typelessParam(req);
  const out: Record<string, unknown> = {};
  if (!type || type === '_all' || type === '*') {
    for (const m of metas) out[m.name] = { mappings: renderMappings(m, typeless) };
    return json(req, 200, out);
  }
  const wanted = type.split(',');
  const match = (t: string | null): boolean => t !== null && wanted.some((w) => simpleMatch(w, t));
  const found = new Set<string>();
  for (const m of metas) {
    if (match(m.type)) { out[m.name] = { mappings: renderMappings(m, typeless) }; found.add(m.type!); }
  }
  const missing = wanted.filter((w) => !w.includes('*') && !found.has(w)).sort();
  if (Object.keys(out).length === 0) {
    throw docError('DOC_TYPE_MISSING', [wanted.join(',')], { 'resource.type': 'type', 'resource.id': wanted.join(','), index_uuid: '_na_', index: '_all' });
  }
  if (missing.length) {
    const msg = missing.length === 1 ? `type [${missing[0]}] missing` : `types [${missing.join(',')}] missing`;
    return json(req, 404, { error: msg, status: 404, ...out });
  }
  return json(req, 200, out);
}

async function putMapping(cluster: EsCluster, req: HttpRequest, index: string | undefined, typeParam: string | undefined) {
  let body = bodyMap(req, true)!;
  const typeless = typelessParam(req);
  const type = typeParam ?? (typeless ? '_doc' : undefined);
  if (!type) throw docError('DOC_VALIDATION', ['1: mapping type is missing;']);
  validateTypeName(type);
  const keys = Object.keys(body);
  if (keys.length === 1 && keys[0] === type && typeof body[type] === 'object') body = body[type] as Record<string, unknown>;
  body = expandDottedFields(body);
  const metas = cluster.resolveForRead(index, readOpts(req)).map((r) => r.name);
  await cluster.mutate((s) => {
    const indices = { ...s.indices };
    for (const name of metas) {
      const cur = indices[name];
      validateRootMapping(body, { customAnalyzers: customAnalyzers(cur.settings) });
      if (cur.type !== null && cur.type !== type) {
        throw illegalArgument(`Rejecting mapping update to [${name}] as the final mapping would have more than 1 type: [${cur.type}, ${type}]`);
      }
      const mapping = mergeMapping(cur.mapping, body);
      const limit = Number(cur.settings['index.mapping.total_fields.limit'] ?? 1000);
      if (countFields(mapping) > limit) throw illegalArgument(`Limit of total fields [${limit}] in index [${name}] has been exceeded`);
      indices[name] = { ...cur, type, mapping, mappingVersion: cur.mappingVersion + 1 };
    }
    return { state: { ...s, version: s.version + 1, indices } };
  });
  return json(req, 200, { acknowledged: true });
}

const STATIC_SETTINGS = new Set(['index.number_of_shards', 'index.number_of_routing_shards', 'index.codec', 'index.uuid', 'index.creation_date',
  'index.version.created', 'index.provided_name']);

/** `PUT /{index}/_settings`: dynamic settings only (replicas, refresh interval, …), as on an open ES index. */
async function updateSettings(cluster: EsCluster, req: HttpRequest, index: string | undefined) {
  const body = bodyMap(req, true)!;
  const reset: string[] = [];
  const flat = flattenSettings('settings' in body && Object.keys(body).length === 1 ? body.settings : body, reset);
  validateSettings(flat);
  validateSettingNames(reset);
  const names = cluster.resolveForRead(index, readOpts(req)).map((r) => r.name);
  const fixed = Object.keys(flat).filter((k) => STATIC_SETTINGS.has(k));
  if (fixed.length) {
    const metas = names.map((n) => cluster.state.indices[n]);
    throw illegalArgument(`Can't update non dynamic settings [[${fixed.join(', ')}]] for open indices [${metas.map((m) => `[${m.name}/${m.uuid}]`).join(', ')}]`);
  }
  const preserve = boolParam(req, 'preserve_existing');
  await cluster.mutate((s) => {
    const indices = { ...s.indices };
    for (const n of names) {
      const cur = indices[n];
      const settings = { ...cur.settings };
      for (const [k, v] of Object.entries(flat)) if (!preserve || !(k in settings)) settings[k] = v;
      // null resets a setting to its default (the flood-stage block is released this way).
      for (const k of reset) delete settings[k];
      // A new mapping version makes every worker pick up the new settings (e.g. refresh_interval).
      indices[n] = { ...cur, settings, mappingVersion: cur.mappingVersion + 1 };
    }
    return { state: { ...s, version: s.version + 1, indices } };
  });
  return json(req, 200, { acknowledged: true });
}
