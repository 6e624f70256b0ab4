/** `_cluster/health` (with wait_for_status and timeout), `_nodes`, `_stats`. */
import { simpleMatch, type IndexMeta } from '../../engine/documents/cluster-state.ts';
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import { clusterDefaults, parseSettingsUpdate } from '../../engine/documents/cluster-settings.ts';
import { nestSettings, numberOfReplicas, numberOfShards, parseTimeValue, sortedFlat } from '../../engine/documents/settings.ts';
import type { HttpRequest } from '../http.ts';
import type { Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { bodyMap, route } from './handler.ts';
import { boolParam } from './params.ts';
import { json } from './json.ts';
import { JavaDouble } from '../../engine/documents/source.ts';
import { humanIfAsked } from './human.ts';
import { dataIndices, readOpts, shardsHeader } from './routes-indices.ts';
import type { ShardStats } from '../../engine/documents/doc-shard-types.ts';

const RANK: Record<string, number> = { green: 0, yellow: 1, red: 2 };

/** An index's health: red when a primary shard failed (damaged files), yellow with replicas (never assigned here). */
export function indexHealth(cluster: EsCluster, m: IndexMeta) {
  const pri = numberOfShards(m.settings);
  const rep = numberOfReplicas(m.settings);
  const failed = cluster.failedShards(m).length;
  const status = failed > 0 ? 'red' : rep > 0 ? 'yellow' : 'green';
  return { status, number_of_shards: pri, number_of_replicas: rep, active_primary_shards: pri - failed,
    active_shards: pri - failed, relocating_shards: 0, initializing_shards: 0, unassigned_shards: pri * rep + failed };
}

/** `level=shards`: ES's ClusterShardHealth of each shard (the primary, here; replicas are never assigned). */
function shardHealth(cluster: EsCluster, m: IndexMeta): Record<string, unknown> {
  const failed = new Set(cluster.failedShards(m));
  const replicas = numberOfReplicas(m.settings);
  const out: Record<string, unknown> = {};
  for (let s = 0; s < numberOfShards(m.settings); s++) {
    const up = !failed.has(s);
    out[String(s)] = { status: !up ? 'red' : replicas > 0 ? 'yellow' : 'green', primary_active: up, active_shards: up ? 1 : 0,
      relocating_shards: 0, initializing_shards: 0, unassigned_shards: replicas + (up ? 0 : 1) };
  }
  return out;
}

export function healthOf(cluster: EsCluster, all: IndexMeta[]) {
  const metas = all.filter((m) => !m.closed);
  let status = 'green', pri = 0, active = 0, unassigned = 0;
  for (const m of metas) {
    const h = indexHealth(cluster, m);
    if (RANK[h.status] > RANK[status]) status = h.status;
    pri += h.active_primary_shards; active += h.active_shards; unassigned += h.unassigned_shards;
  }
  const total = active + unassigned;
  return {
    cluster_name: 'elasticsearch', status, timed_out: false, number_of_nodes: 1, number_of_data_nodes: 1,
    active_primary_shards: pri, active_shards: active, relocating_shards: 0, initializing_shards: 0, unassigned_shards: unassigned,
    delayed_unassigned_shards: 0, number_of_pending_tasks: 0, number_of_in_flight_fetch: 0, task_max_waiting_in_queue_millis: 0,
    active_shards_percent_as_number: total === 0 ? 100 : (active / total) * 100,
  };
}


const HEALTH_PARAMS = ['level', 'local', 'master_timeout', 'timeout', 'wait_for_active_shards', 'wait_for_nodes', 'wait_for_events',
  'wait_for_no_relocating_shards', 'wait_for_no_initializing_shards', 'wait_for_status', 'expand_wildcards'];

export function registerClusterRoutes(router: Router, cluster: EsCluster): void {
  const health = route(HEALTH_PARAMS, async (req, p) => {
    const timeoutMs = parseTimeValue(req.query.get('timeout') ?? '30s', 'timeout') ?? 30000;
    const want = req.query.get('wait_for_status');
    if (want !== null && !(want in RANK)) throw illegalArgument(`unknown cluster health status [${want}]`);
    const level = req.query.get('level') ?? 'cluster';
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Closed indices have no active shards and are left out of health, as in 6.8.
      const metas = cluster.resolveForRead(p.index, readOpts(req)).map((r) => cluster.state.indices[r.name]).filter((m) => !m.closed);
      const h = healthOf(cluster, metas);
      const satisfied = (want === null || RANK[h.status] <= RANK[want]) && waitsMet(req.query, metas);
      if (satisfied || Date.now() >= deadline) {
        const body: Record<string, unknown> = { ...h, timed_out: !satisfied, active_shards_percent_as_number: new JavaDouble(h.active_shards_percent_as_number) };
        if (level === 'indices' || level === 'shards') {
          const indices: Record<string, unknown> = {};
          for (const m of metas) indices[m.name] = level === 'shards' ? { ...indexHealth(cluster, m), shards: shardHealth(cluster, m) } : indexHealth(cluster, m);
          body.indices = indices;
        }
        return json(req, satisfied ? 200 : 408, humanIfAsked(req, body));
      }
      await new Promise((r) => setTimeout(r, Math.min(100, Math.max(1, deadline - Date.now()))));
    }
  });
  router.add('GET', '/_cluster/health', health);
  router.add('GET', '/_cluster/health/:index', health);


  const stats = route(['level', 'fields', 'groups', 'types', 'completion_fields', 'fielddata_fields', 'include_segment_file_sizes', 'expand_wildcards',
    'ignore_unavailable', 'allow_no_indices', 'forbid_closed_indices', 'include_unloaded_segments'], async (req, p) => {
    const sections = statsMetrics(req, p.metric);
    const fdParam = req.query.get('fielddata_fields') ?? req.query.get('fields');
    const fdFields = fdParam ? fdParam.split(',') : null;
    const metas = dataIndices(cluster, req, p.index);
    const st = await cluster.stats(metas);
    const indices: Record<string, unknown> = {};
    const every: ShardStats[] = [];
    for (const m of metas) {
      const s = st.get(m.name)!;
      every.push(...s);
      const part = pick(statsSections(s, fdFields), sections);
      indices[m.name] = { uuid: m.uuid, primaries: part, total: part };
    }
    const all = pick(statsSections(every, fdFields), sections);
    return json(req, 200, humanIfAsked(req, { _shards: shardsHeader(metas), _all: { primaries: all, total: all }, indices }));
  });
  for (const path of ['/_stats', '/_stats/:metric', '/:index/_stats', '/:index/_stats/:metric']) router.add('GET', path, stats);

  router.add('GET', '/_cluster/settings', route(['flat_settings', 'include_defaults', 'master_timeout', 'timeout', 'local'], (req) => {
    const flat = boolParam(req, 'flat_settings');
    const shape = (x: Readonly<Record<string, string>>): Record<string, unknown> => (flat ? sortedFlat(x) : nestSettings(x));
    const body: Record<string, unknown> = { persistent: shape(cluster.state.persistentSettings), transient: shape(cluster.state.transientSettings) };
    if (boolParam(req, 'include_defaults')) body.defaults = shape(clusterDefaults());
    return json(req, 200, body);
  }));
  router.add('PUT', '/_cluster/settings', route(['flat_settings', 'master_timeout', 'timeout'], async (req) => {
    const body = bodyMap(req, true)!;
    for (const k of Object.keys(body)) if (k !== 'persistent' && k !== 'transient') throw docError('DOC_PARSE', [`request body contains unknown key [${k}]`]);
    const persistent = parseSettingsUpdate(body.persistent, 'persistent');
    const transient = parseSettingsUpdate(body.transient, 'transient');
    if (Object.keys(persistent).length === 0 && Object.keys(transient).length === 0) {
      throw validationFailed(['no settings to update']);
    }
    await cluster.updateSettings(persistent, transient);
    // As ES: the acknowledged response echoes the settings this request set (removals are not listed).
    const set = (u: Record<string, string | null>): Record<string, string> => Object.fromEntries(Object.entries(u).filter(([, v]) => v !== null)) as Record<string, string>;
    const flat = boolParam(req, 'flat_settings');
    const shape = (x: Record<string, string>): Record<string, unknown> => (flat ? sortedFlat(x) : nestSettings(x));
    return json(req, 200, { acknowledged: true, persistent: shape(set(persistent)), transient: shape(set(transient)) });
  }));
}

/** `_stats` metric names (URL spelling) and the section each one selects. */
const STATS_METRICS: Record<string, string> = {
  docs: 'docs', store: 'store', merge: 'merges', refresh: 'refresh', flush: 'flush', segments: 'segments', translog: 'translog',
  indexing: 'indexing', get: 'get', search: 'search', warmer: 'warmer', query_cache: 'query_cache', fielddata: 'fielddata',
  completion: 'completion', request_cache: 'request_cache', recovery: 'recovery', suggest: 'suggest',
};

/** The sections a `/_stats/{metric}` request selects (null: all); unknown metrics are ES's 400. */
function statsMetrics(req: HttpRequest, metric: string | undefined): Set<string> | null {
  if (metric === undefined || metric === '_all') return null;
  const names = metric.split(',');
  const bad = names.filter((n) => !(n in STATS_METRICS) && n !== '_all');
  if (bad.length) throw illegalArgument(`request [${req.path}] contains unrecognized metric${bad.length > 1 ? 's' : ''}: [${bad.join(', ')}]`);
  if (names.includes('_all')) return null;
  return new Set(names.map((n) => STATS_METRICS[n]));
}

function pick(sections: Record<string, unknown>, wanted: Set<string> | null): Record<string, unknown> {
  if (!wanted) return sections;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sections)) if (wanted.has(k)) out[k] = v;
  return out;
}

function waitsMet(q: URLSearchParams, metas: IndexMeta[]): boolean {
  const nodes = q.get('wait_for_nodes');
  if (nodes !== null) {
    const m = /^(>=|<=|>|<|ge\(|le\(|gt\(|lt\()?(\d+)\)?$/.exec(nodes);
    const n = m ? Number(m[2]) : NaN;
    const op = m?.[1] ?? '';
    const ok = op.startsWith('>=') || op.startsWith('ge') ? 1 >= n : op.startsWith('<=') || op.startsWith('le') ? 1 <= n
      : op.startsWith('>') || op.startsWith('gt') ? 1 > n : op.startsWith('<') || op.startsWith('lt') ? 1 < n : 1 === n;
    if (!ok) return false;
  }
  const shards = q.get('wait_for_active_shards');
  if (shards !== null && shards !== 'all') {
    const active = metas.reduce((a, m) => a + numberOfShards(m.settings), 0);
    if (active < Number(shards)) return false;
  }
  if (shards === 'all' && metas.some((m) => numberOfReplicas(m.settings) > 0)) return false;
  return true;
}

/** The `_stats` sections the shard engine measures, summed over shards. */
/** Loaded fielddata bytes per field over some shards, in field order. */
export function fielddataByField(shards: readonly ShardStats[]): [string, number][] {
  const out = new Map<string, number>();
  for (const s of shards) for (const [f, b] of Object.entries(s.fielddata ?? {})) out.set(f, (out.get(f) ?? 0) + b);
  return [...out].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The stats sections over some shards' figures. `fielddataFields` (patterns) adds the per-field fielddata sizes, as
 * `fielddata_fields` / `fields` ask.
 */
export function statsSections(shards: readonly ShardStats[], fielddataFields: string[] | null = null): Record<string, unknown> {
  const sum = (f: (s: ShardStats) => number): number => shards.reduce((a, s) => a + f(s), 0);
  const fielddata: Record<string, unknown> = { memory_size_in_bytes: sum((s) => Object.values(s.fielddata ?? {}).reduce((a, b) => a + b, 0)), evictions: 0 };
  if (fielddataFields) {
    const fields: Record<string, unknown> = {};
    for (const [f, bytes] of fielddataByField(shards)) if (fielddataFields.some((p) => simpleMatch(p, f))) fields[f] = { memory_size_in_bytes: bytes };
    fielddata.fields = fields;
  }
  return {
    docs: { count: sum((s) => s.docsCount), deleted: sum((s) => s.docsDeleted) },
    store: { size_in_bytes: sum((s) => s.storeBytes) },
    merges: {
      current: sum((s) => s.merges.current), current_docs: sum((s) => s.merges.currentDocs), current_size_in_bytes: sum((s) => s.merges.currentBytes),
      total: sum((s) => s.merges.total), total_time_in_millis: sum((s) => s.merges.totalTimeMs), total_docs: sum((s) => s.merges.totalDocs),
      total_size_in_bytes: sum((s) => s.merges.totalBytes), total_stopped_time_in_millis: 0, total_throttled_time_in_millis: 0,
      total_auto_throttle_in_bytes: 0,
    },
    refresh: { total: sum((s) => s.refreshes), total_time_in_millis: sum((s) => s.refreshMs), listeners: 0 },
    flush: { total: sum((s) => s.flushes), periodic: 0, total_time_in_millis: sum((s) => s.flushMs) },
    fielddata,
    segments: {
      count: sum((s) => s.segments), memory_in_bytes: sum((s) => s.segmentsMemoryBytes), terms_memory_in_bytes: 0, stored_fields_memory_in_bytes: 0,
      term_vectors_memory_in_bytes: 0, norms_memory_in_bytes: 0, points_memory_in_bytes: 0, doc_values_memory_in_bytes: 0,
      index_writer_memory_in_bytes: 0, version_map_memory_in_bytes: 0, fixed_bit_set_memory_in_bytes: 0, max_unsafe_auto_id_timestamp: -1, file_sizes: {},
    },
    translog: {
      operations: sum((s) => s.translogOps), size_in_bytes: sum((s) => s.translogBytes),
      uncommitted_operations: sum((s) => s.translogOps), uncommitted_size_in_bytes: sum((s) => s.translogBytes), earliest_last_modified_age: 0,
    },
  };
}
