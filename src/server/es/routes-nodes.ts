/**
 * `_nodes` info and `_nodes/stats` for the one node, with every path form the clients use (`_nodes/_all/http`
 * is what the JS client's sniffer asks): node selectors (`_all`, `_local`, `_master`, the node id or name)
 * and metric lists. Stats are this process's real figures: `jvm` is the V8 heap, `process` and `os` come from
 * Node and the kernel, `fs` from the data directory's file system, `indices` from the shards.
 */
import os from 'node:os';
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import type { ShardStats } from '../../engine/documents/doc-shard-types.ts';
import { unrecognized } from './params.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import { ES_VERSION, nodeIdentity } from './banner.ts';
import { selectsThisNode } from './node-selector.ts';
import type { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { json } from './json.ts';
import { humanIfAsked } from './human.ts';
import { diskUsage, heapLimit } from './node-figures.ts';
import { statsSections } from './routes-cluster.ts';

const INFO_METRICS = ['settings', 'os', 'process', 'jvm', 'thread_pool', 'transport', 'http', 'plugins', 'ingest'];
const STATS_METRICS = ['indices', 'os', 'process', 'jvm', 'thread_pool', 'fs', 'transport', 'http', 'breaker', 'script', 'discovery', 'ingest', 'adaptive_selection'];
const PARAMS = ['flat_settings', 'timeout', 'human', 'level', 'types', 'groups', 'fields', 'completion_fields', 'fielddata_fields', 'include_segment_file_sizes'];

export function registerNodeRoutes(router: Router, cluster: EsCluster): void {
  const info = route(PARAMS, (req, p) => nodesInfo(cluster, req, p));
  const stats = route(PARAMS, (req, p) => nodesStats(cluster, req, p));
  for (const path of ['/_nodes/stats', '/_nodes/stats/:metric', '/_nodes/:nodes/stats', '/_nodes/:nodes/stats/:metric']) router.add('GET', path, stats);
  for (const path of ['/_nodes', '/_nodes/:nodes', '/_nodes/:nodes/:metric']) router.add('GET', path, info);
}

/** `/_nodes/{x}` is a metric list when every part is one, else a node selector (as ES decides). */
function split(req: HttpRequest, p: Params, known: string[]): { nodes?: string; metrics: Set<string> | null } {
  let nodes: string | undefined = p.nodes, metric: string | undefined = p.metric;
  if (metric === undefined && nodes !== undefined && nodes.split(',').every((m) => known.includes(m) || m === '_all')) { metric = nodes; nodes = undefined; }
  if (metric === undefined || metric === '_all') return { nodes, metrics: null };
  const list = metric.split(',');
  const bad = list.filter((m) => !known.includes(m));
  if (bad.length) throw unrecognized(req, bad, known, 'metric');
  return { nodes, metrics: new Set(list) };
}

function envelope(cluster: EsCluster, selected: boolean, node: () => Record<string, unknown>): Record<string, unknown> {
  // ?human is applied by the callers (humanIfAsked) over the whole envelope.
  const id = nodeIdentity(cluster.ctx.dataDir);
  return { _nodes: { total: selected ? 1 : 0, successful: selected ? 1 : 0, failed: 0 }, cluster_name: 'elasticsearch', nodes: selected ? { [id.uuid]: node() } : {} };
}

function base(cluster: EsCluster): Record<string, unknown> {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const http = `127.0.0.1:${cluster.ctx.flags['http.port']}`;
  return { name: id.name, transport_address: '127.0.0.1:9300', host: '127.0.0.1', ip: '127.0.0.1', version: ES_VERSION.number,
    build_flavor: ES_VERSION.build_flavor, build_type: ES_VERSION.build_type, build_hash: ES_VERSION.build_hash,
    roles: ['master', 'data', 'ingest'], http: { bound_address: [http], publish_address: http, max_content_length_in_bytes: 104857600 } };
}

function nodesInfo(cluster: EsCluster, req: HttpRequest, p: Params): HttpResponse {
  const { nodes, metrics } = split(req, p, INFO_METRICS);
  const want = (m: string): boolean => metrics === null || metrics.has(m);
  return json(req, 200, humanIfAsked(req, envelope(cluster, selectsThisNode(cluster.ctx.dataDir, nodes), () => {
    const b = base(cluster);
    const out: Record<string, unknown> = { name: b.name, transport_address: b.transport_address, host: b.host, ip: b.ip, version: b.version,
      build_flavor: b.build_flavor, build_type: b.build_type, build_hash: b.build_hash, roles: b.roles };
    if (want('settings')) out.settings = { cluster: { name: 'elasticsearch' }, node: { name: b.name }, path: { data: [cluster.ctx.dataDir] } };
    if (want('os')) out.os = { refresh_interval_in_millis: 1000, name: os.type(), arch: os.arch(), version: os.release(), available_processors: os.cpus().length, allocated_processors: os.cpus().length };
    if (want('process')) out.process = { refresh_interval_in_millis: 1000, id: process.pid, mlockall: false };
    if (want('jvm')) {
      const heap = process.memoryUsage();
      out.jvm = { pid: process.pid, version: process.versions.node, vm_name: 'V8', vm_version: process.versions.v8, vm_vendor: 'Node.js',
        start_time_in_millis: Math.round(Date.now() - process.uptime() * 1000), mem: { heap_init_in_bytes: heap.heapTotal, heap_max_in_bytes: heapLimit() } };
    }
    if (want('http')) out.http = b.http;
    if (want('transport')) out.transport = { bound_address: ['127.0.0.1:9300'], publish_address: '127.0.0.1:9300', profiles: {} };
    if (want('plugins')) { out.plugins = []; out.modules = []; }
    if (want('ingest')) out.ingest = { processors: [] };
    if (want('thread_pool')) {
      const pools: Record<string, unknown> = {};
      for (const f of cluster.threadPools.figures()) {
        pools[f.name] = f.type === 'scaling' ? { type: f.type, core: 0, max: f.threads, keep_alive: f.keepAlive, queue_size: f.queueSize } : { type: f.type, size: f.threads, queue_size: f.queueSize };
      }
      out.thread_pool = pools;
    }
    return out;
  })));
}

async function nodesStats(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const { nodes, metrics } = split(req, p, STATS_METRICS);
  const want = (m: string): boolean => metrics === null || metrics.has(m);
  const selected = selectsThisNode(cluster.ctx.dataDir, nodes);
  const byIndex: Map<string, ShardStats[]> = selected && want('indices') ? await cluster.stats(Object.values(cluster.state.indices)) : new Map();
  const shardStats = [...byIndex.values()].flat();
  const level = req.query.get('level') ?? 'node';
  if (!['node', 'indices', 'shards'].includes(level)) throw illegalArgument(`level parameter must be one of [indices] or [node] or [shards] but was [${level}]`);
  return json(req, 200, humanIfAsked(req, envelope(cluster, selected, () => {
    const b = base(cluster);
    const out: Record<string, unknown> = { timestamp: Date.now(), name: b.name, transport_address: b.transport_address, host: b.host, ip: [b.ip], roles: b.roles };
    if (want('indices')) {
      const fd = req.query.get('fielddata_fields') ?? req.query.get('fields');
      const fields = fd ? fd.split(',') : null;
      const sections = statsSections(shardStats, fields);
      // level=indices / shards: the same sections per index (NodeIndicesStats), or per shard of each index.
      if (level === 'indices') sections.indices = Object.fromEntries([...byIndex].map(([name, list]) => [name, statsSections(list, fields)]));
      if (level === 'shards') {
        sections.shards = Object.fromEntries([...byIndex].map(([name, list]) => [name, list.map((st, i) => ({ [i]: statsSections([st], fields) }))]));
      }
      out.indices = sections;
    }
    if (want('os')) {
      const total = os.totalmem(), free = os.freemem();
      const [l1, l5, l15] = os.loadavg();
      out.os = { timestamp: Date.now(), cpu: { percent: Math.min(100, Math.round((l1 / os.cpus().length) * 100)), load_average: { '1m': l1, '5m': l5, '15m': l15 } },
        mem: { total_in_bytes: total, free_in_bytes: free, used_in_bytes: total - free, free_percent: Math.round((free / total) * 100), used_percent: Math.round(((total - free) / total) * 100) } };
    }
    if (want('process')) {
      const cpu = process.cpuUsage();
      out.process = { timestamp: Date.now(), open_file_descriptors: -1, max_file_descriptors: -1,
        cpu: { percent: -1, total_in_millis: Math.round((cpu.user + cpu.system) / 1000) }, mem: { total_virtual_in_bytes: -1 } };
    }
    if (want('jvm')) {
      const m = process.memoryUsage();
      const max = heapLimit();
      out.jvm = { timestamp: Date.now(), uptime_in_millis: Math.round(process.uptime() * 1000),
        mem: { heap_used_in_bytes: m.heapUsed, heap_used_percent: Math.round((m.heapUsed / max) * 100), heap_committed_in_bytes: m.heapTotal, heap_max_in_bytes: max,
          non_heap_used_in_bytes: m.external, non_heap_committed_in_bytes: m.rss - m.heapTotal, pools: {} } };
    }
    if (want('fs')) {
      const d = diskUsage(cluster.ctx.dataDir);
      const t = { total_in_bytes: d.totalBytes, free_in_bytes: d.freeBytes, available_in_bytes: d.availableBytes };
      out.fs = { timestamp: Date.now(), total: t, data: [{ path: cluster.ctx.dataDir, type: 'unknown', ...t }] };
    }
    if (want('http')) out.http = { current_open: -1, total_opened: -1 };
    if (want('breaker')) out.breakers = {};
    if (want('thread_pool')) {
      const pools: Record<string, unknown> = {};
      for (const f of cluster.threadPools.figures()) pools[f.name] = { threads: f.threads, queue: f.queue, active: f.active, rejected: f.rejected, largest: f.largest, completed: f.completed };
      out.thread_pool = pools;
    }
    return out;
  })));
}
