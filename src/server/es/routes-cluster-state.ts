/**
 * `_cluster/state[/{metrics}[/{indices}]]`, `_cluster/stats` and `_cluster/pending_tasks`, built from the
 * node's real metadata and shard statistics (one node, primaries only).
 */
import { deflateRawSync } from 'node:zlib';
import os from 'node:os';
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import { nestSettings, numberOfShards } from '../../engine/documents/settings.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import { ES_VERSION, nodeIdentity } from './banner.ts';
import type { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { json } from './json.ts';
import { byteSize, humanIfAsked } from './human.ts';
import { heapLimit } from './node-figures.ts';
import { boolParam } from './params.ts';
import { healthOf } from './routes-cluster.ts';

const STATE_METRICS = ['version', 'master_node', 'blocks', 'nodes', 'metadata', 'routing_table', 'routing_nodes', 'customs'];
const STATE_PARAMS = ['local', 'master_timeout', 'flat_settings', 'wait_for_metadata_version', 'wait_for_timeout', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];

export function registerClusterStateRoutes(router: Router, cluster: EsCluster): void {
  const state = route(STATE_PARAMS, (req, p) => clusterState(cluster, req, p));
  for (const path of ['/_cluster/state', '/_cluster/state/:metric', '/_cluster/state/:metric/:index']) router.add('GET', path, state);
  router.add('GET', '/_cluster/stats', route(['flat_settings', 'timeout'], (req) => clusterStats(cluster, req)));
  router.add('GET', '/_cluster/stats/nodes/:nodes', route(['flat_settings', 'timeout'], (req) => clusterStats(cluster, req)));
  // Metadata changes run one at a time on the main thread as they arrive: none is ever waiting as a task.
  router.add('GET', '/_cluster/pending_tasks', route(['local', 'master_timeout'], (req) => json(req, 200, { tasks: [] })));
}

function clusterState(cluster: EsCluster, req: HttpRequest, p: Params): HttpResponse {
  let metrics: Set<string> | null = null;
  if (p.metric !== undefined && p.metric !== '_all') {
    const list = p.metric.split(',');
    const bad = list.filter((m) => !STATE_METRICS.includes(m));
    if (bad.length) throw illegalArgument(`Unknown metric [${bad.join(',')}]`);
    metrics = new Set(list);
  }
  const want = (m: string): boolean => metrics === null || metrics.has(m);
  const metas: IndexMeta[] = p.index === undefined ? Object.values(cluster.state.indices)
    : cluster.resolveForRead(p.index, { ignoreUnavailable: boolParam(req, 'ignore_unavailable') }).map((r) => cluster.state.indices[r.name]);
  const id = nodeIdentity(cluster.ctx.dataDir);
  const flat = boolParam(req, 'flat_settings');
  const compressed = compressedStateBytes(cluster);
  // ES's humanReadableField: with ?human the readable value comes first, then the raw one.
  const size = boolParam(req, 'human') ? { compressed_size: byteSize(compressed), compressed_size_in_bytes: compressed } : { compressed_size_in_bytes: compressed };
  const body: Record<string, unknown> = { cluster_name: 'elasticsearch', ...size, cluster_uuid: id.uuid };
  if (want('version')) { body.version = cluster.state.version; body.state_uuid = `${id.uuid.slice(0, 12)}-${cluster.state.version}`; }
  if (want('master_node')) body.master_node = id.uuid;
  if (want('blocks')) {
    const global: Record<string, unknown> = {};
    if (cluster.setting('cluster.blocks.read_only') === 'true') global['6'] = { description: 'cluster read-only (api)', retryable: false, levels: ['write', 'metadata_write'] };
    if (cluster.setting('cluster.blocks.read_only_allow_delete') === 'true') global['13'] = { description: 'cluster read-only / allow delete (api)', retryable: false, levels: ['write', 'metadata_write'] };
    // A closed index carries ES 6.8's INDEX_CLOSED_BLOCK (id 4).
    const indices: Record<string, unknown> = {};
    for (const m of metas) if (m.closed) indices[m.name] = { 4: { description: 'index closed', retryable: false, levels: ['read', 'write'] } };
    body.blocks = { ...(Object.keys(global).length ? { global } : {}), ...(Object.keys(indices).length ? { indices } : {}) };
  }
  if (want('nodes')) {
    body.nodes = { [id.uuid]: { name: id.name, ephemeral_id: id.uuid, transport_address: '127.0.0.1:9300', attributes: {} } };
  }
  if (want('metadata')) {
    const indices: Record<string, unknown> = {};
    for (const m of metas) {
      indices[m.name] = {
        state: m.closed ? 'close' : 'open', settings: flat ? m.settings : nestSettings(m.settings), mappings: m.type ? { [m.type]: m.mapping } : {},
        aliases: Object.keys(m.aliases), primary_terms: Object.fromEntries(Array.from({ length: numberOfShards(m.settings) }, (_, i) => [String(i), 1])),
        in_sync_allocations: {},
      };
    }
    const templates: Record<string, unknown> = {};
    for (const t of Object.values(cluster.state.templates)) templates[t.name] = { index_patterns: t.index_patterns, order: t.order, settings: nestSettings(t.settings), mappings: t.mappings, aliases: t.aliases };
    body.metadata = { cluster_uuid: id.uuid, templates, indices, 'index-graveyard': { tombstones: [] } };
  }
  if (want('routing_table')) {
    const indices: Record<string, unknown> = {};
    for (const m of metas) {
      // 6.8 keeps no routing table for a closed index (7.2 began replicating closed indices).
      if (m.closed) continue;
      const shards: Record<string, unknown> = {};
      const failed = new Set(cluster.failedShards(m));
      for (let s = 0; s < numberOfShards(m.settings); s++) {
        shards[String(s)] = [{ state: failed.has(s) ? 'UNASSIGNED' : 'STARTED', primary: true, node: failed.has(s) ? null : id.uuid, relocating_node: null, shard: s, index: m.name }];
      }
      indices[m.name] = { shards };
    }
    body.routing_table = { indices };
  }
  return json(req, 200, body);
}

async function clusterStats(cluster: EsCluster, req: HttpRequest): Promise<HttpResponse> {
  const metas = Object.values(cluster.state.indices);
  const stats = [...(await cluster.stats(metas)).values()].flat();
  const sum = (f: (s: (typeof stats)[number]) => number): number => stats.reduce((a, s) => a + f(s), 0);
  const health = healthOf(cluster, metas);
  const id = nodeIdentity(cluster.ctx.dataDir);
  const shards = metas.reduce((a, m) => a + numberOfShards(m.settings), 0);
  const mem = process.memoryUsage();
  return json(req, 200, humanIfAsked(req, {
    _nodes: { total: 1, successful: 1, failed: 0 }, cluster_name: 'elasticsearch', cluster_uuid: id.uuid, timestamp: Date.now(), status: health.status,
    indices: {
      count: metas.length,
      shards: metas.length === 0 ? {} : { total: shards, primaries: shards, replication: 0, index: { shards: { min: Math.min(...metas.map((m) => numberOfShards(m.settings))), max: Math.max(...metas.map((m) => numberOfShards(m.settings))), avg: shards / metas.length } } },
      docs: { count: sum((s) => s.docsCount), deleted: sum((s) => s.docsDeleted) },
      store: { size_in_bytes: sum((s) => s.storeBytes) },
      segments: { count: sum((s) => s.segments), memory_in_bytes: sum((s) => s.segmentsMemoryBytes) },
    },
    nodes: {
      count: { total: 1, data: 1, coordinating_only: 0, master: 1, ingest: 1 },
      versions: [ES_VERSION.number],
      os: { available_processors: os.cpus().length, allocated_processors: os.cpus().length, mem: { total_in_bytes: os.totalmem(), free_in_bytes: os.freemem(), used_in_bytes: os.totalmem() - os.freemem() } },
      process: { open_file_descriptors: { min: -1, max: -1, avg: -1 } },
      jvm: { max_uptime_in_millis: Math.round(process.uptime() * 1000), versions: [{ version: process.versions.node, vm_name: 'V8', vm_version: process.versions.v8, vm_vendor: 'Node.js', count: 1 }],
        mem: { heap_used_in_bytes: mem.heapUsed, heap_max_in_bytes: heapLimit() }, threads: cluster.ctx.pool.size + 1 },
      plugins: [],
    },
  }));
}

/**
 * `compressed_size_in_bytes`: ES reports the DEFLATE-compressed size of the whole cluster state as it would send it
 * to other nodes, whatever metrics are asked for; here, of the node's metadata serialised as JSON.
 */
function compressedStateBytes(cluster: EsCluster): number {
  return deflateRawSync(Buffer.from(JSON.stringify(cluster.state))).length;
}
