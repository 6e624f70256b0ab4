/** `_cat` endpoints: health, nodes, master, allocation, indices, aliases, templates, count, shards, plugins, nodeattrs, pending_tasks, thread_pool, fielddata (recovery: routes-recovery.ts; tasks: routes-tasks.ts). */
import os from 'node:os';
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { simpleMatch } from '../../engine/documents/cluster-state.ts';
import { numberOfReplicas, numberOfShards } from '../../engine/documents/settings.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { nodeIdentity } from './banner.ts';
import { bytesCell, CAT_PARAMS, renderCat, type CatColumn, type CatRow } from './cat-table.ts';
import type { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { fielddataByField, healthOf, indexHealth } from './routes-cluster.ts';
import { diskUsage } from './node-figures.ts';
import { selectsThisNode } from './node-selector.ts';
import { TEXT_HEADERS } from './errors.ts';

const col = (name: string, desc: string, o: Partial<CatColumn> = {}): CatColumn => ({ name, desc, ...o });
const R = { right: true };

const HEALTH: CatColumn[] = [col('epoch', 'seconds since 1970-01-01 00:00:00', { aliases: ['t', 'time'] }), col('timestamp', 'time in HH:MM:SS', { aliases: ['ts', 'hms', 'hhmmss'] }),
  col('cluster', 'cluster name', { aliases: ['cl'] }), col('status', 'health status', { aliases: ['st'] }),
  col('node.total', 'total number of nodes', { aliases: ['nt', 'nodeTotal'], ...R }), col('node.data', 'number of nodes that can store data', { aliases: ['nd', 'nodeData'], ...R }),
  col('shards', 'total number of shards', { aliases: ['t', 'sh', 'shards.total', 'shardsTotal'], ...R }), col('pri', 'number of primary shards', { aliases: ['p', 'shards.primary', 'shardsPrimary'], ...R }),
  col('relo', 'number of relocating nodes', { aliases: ['r', 'shards.relocating', 'shardsRelocating'], ...R }), col('init', 'number of initializing nodes', { aliases: ['i', 'shards.initializing', 'shardsInitializing'], ...R }),
  col('unassign', 'number of unassigned shards', { aliases: ['u', 'shards.unassigned', 'shardsUnassigned'], ...R }), col('pending_tasks', 'number of pending tasks', { aliases: ['pt', 'pendingTasks'], ...R }),
  col('max_task_wait_time', 'wait time of longest task pending', { aliases: ['mtwt', 'maxTaskWaitTime'], ...R }), col('active_shards_percent', 'active number of shards in percent', { aliases: ['asp', 'activeShardsPercent'], ...R })];

const NODES: CatColumn[] = [col('id', 'unique node id', { aliases: ['nodeId'], hidden: true }), col('pid', 'process id', { aliases: ['p'], hidden: true, ...R }),
  col('ip', 'ip address', { aliases: ['i'] }), col('port', 'bound transport port', { aliases: ['po'], hidden: true, ...R }),
  col('http_address', 'bound http address', { aliases: ['http'], hidden: true }), col('version', 'es version', { aliases: ['v'], hidden: true }),
  col('heap.current', 'used heap', { aliases: ['hc', 'heapCurrent'], hidden: true, ...R }), col('heap.percent', 'used heap ratio', { aliases: ['hp', 'heapPercent'], ...R }),
  col('heap.max', 'max configured heap', { aliases: ['hm', 'heapMax'], hidden: true, ...R }), col('ram.current', 'used machine memory', { aliases: ['rc', 'ramCurrent'], hidden: true, ...R }),
  col('ram.percent', 'used machine memory ratio', { aliases: ['rp', 'ramPercent'], ...R }), col('ram.max', 'total machine memory', { aliases: ['rm', 'ramMax'], hidden: true, ...R }),
  col('cpu', 'recent cpu usage', { ...R }), col('load_1m', '1m load avg', { aliases: ['l'], ...R }), col('load_5m', '5m load avg', { aliases: ['l'], ...R }),
  col('load_15m', '15m load avg', { aliases: ['l'], ...R }), col('uptime', 'node uptime', { aliases: ['u'], hidden: true, ...R }),
  col('node.role', 'm:master eligible node, d:data node, i:ingest node, -:coordinating node only', { aliases: ['r', 'role', 'nodeRole'] }),
  col('master', '*:current master', { aliases: ['m'] }), col('name', 'node name', { aliases: ['n'] })];

const INDICES: CatColumn[] = [col('health', 'current health status', { aliases: ['h'] }), col('status', 'open/close status', { aliases: ['s'] }),
  col('index', 'index name', { aliases: ['i', 'idx'] }), col('uuid', 'index uuid', { aliases: ['id'] }),
  col('pri', 'number of primary shards', { aliases: ['p', 'shards.primary', 'shardsPrimary'], ...R }), col('rep', 'number of replica shards', { aliases: ['r', 'shards.replica', 'shardsReplica'], ...R }),
  col('docs.count', 'available docs', { aliases: ['dc', 'docsCount'], ...R }), col('docs.deleted', 'deleted docs', { aliases: ['dd', 'docsDeleted'], ...R }),
  col('creation.date', 'index creation date (millisecond value)', { aliases: ['cd'], hidden: true, ...R }), col('creation.date.string', 'index creation date (as string)', { aliases: ['cds'], hidden: true }),
  col('store.size', 'store size of primaries & replicas', { aliases: ['ss', 'storeSize'], ...R }), col('pri.store.size', 'store size of primaries', { ...R })];

const ALIASES: CatColumn[] = [col('alias', 'alias name', { aliases: ['a'] }), col('index', 'index alias points to', { aliases: ['i', 'idx'] }),
  col('filter', 'filter', { aliases: ['f', 'fi'] }), col('routing.index', 'index routing', { aliases: ['ri', 'routingIndex'] }),
  col('routing.search', 'search routing', { aliases: ['rs', 'routingSearch'] })];

const TEMPLATES: CatColumn[] = [col('name', 'template name', { aliases: ['n'] }), col('index_patterns', 'template index patterns', { aliases: ['t'] }),
  col('order', 'template application order number', { aliases: ['o'] }), col('version', 'version', { aliases: ['v'] })];

const COUNT: CatColumn[] = [col('epoch', 'seconds since 1970-01-01 00:00:00', { aliases: ['t', 'time'] }), col('timestamp', 'time in HH:MM:SS', { aliases: ['ts', 'hms', 'hhmmss'] }),
  col('count', 'the document count', { aliases: ['dc', 'docs.count', 'docsCount'], ...R })];

const SHARDS: CatColumn[] = [col('index', 'index name', { aliases: ['i', 'idx'] }), col('shard', 'shard name', { aliases: ['s', 'sh'], ...R }),
  col('prirep', 'primary or replica', { aliases: ['p', 'pr', 'primaryOrReplica'] }), col('state', 'shard state', { aliases: ['st'] }),
  col('docs', 'number of docs in shard', { aliases: ['d', 'dc'], ...R }), col('store', 'store size of shard (how much disk it uses)', { aliases: ['sto'], ...R }),
  col('ip', 'ip of node where it lives'), col('id', 'unique id of node where it lives', { hidden: true }), col('node', 'name of node where it lives', { aliases: ['n'] })];

const hms = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

const MASTER: CatColumn[] = [col('id', 'node id'), col('host', 'host name', { aliases: ['h'] }), col('ip', 'ip address'), col('node', 'node name', { aliases: ['n'] })];
const PLUGINS: CatColumn[] = [col('id', 'unique node id', { hidden: true }), col('name', 'node name', { aliases: ['n'] }),
  col('component', 'component', { aliases: ['c'] }), col('version', 'component version', { aliases: ['v'] }), col('description', 'plugin details', { aliases: ['d'], hidden: true })];
const ALLOCATION: CatColumn[] = [col('shards', 'number of shards on node', { aliases: ['s'], ...R }), col('disk.indices', 'disk used by ES indices', { aliases: ['di', 'diskIndices'], ...R }),
  col('disk.used', 'disk used (total, not just ES)', { aliases: ['du', 'diskUsed'], ...R }), col('disk.avail', 'disk available', { aliases: ['da', 'diskAvail'], ...R }),
  col('disk.total', 'total capacity of all volumes', { aliases: ['dt', 'diskTotal'], ...R }), col('disk.percent', 'percent disk used', { aliases: ['dp', 'diskPercent'], ...R }),
  col('host', 'host of node', { aliases: ['h'] }), col('ip', 'ip of node'), col('node', 'name of node', { aliases: ['n'] })];
const NODEATTRS: CatColumn[] = [col('node', 'node name'), col('host', 'host name', { aliases: ['h'] }), col('ip', 'ip address', { aliases: ['i'] }),
  col('attr', 'attribute description', { aliases: ['attr.name'] }), col('value', 'attribute value', { aliases: ['attr.value'] })];
const PENDING: CatColumn[] = [col('insertOrder', 'task insertion order', { aliases: ['o'], ...R }), col('timeInQueue', 'how long task has been in queue', { aliases: ['t'], ...R }),
  col('priority', 'task priority', { aliases: ['p'] }), col('source', 'task source', { aliases: ['s'] })];

const THREAD_POOL: CatColumn[] = [col('node_name', 'node name', { aliases: ['nn'] }), col('node_id', 'persistent node id', { aliases: ['id'], hidden: true }),
  col('ephemeral_node_id', 'ephemeral node id', { aliases: ['eid'], hidden: true }), col('pid', 'process id', { aliases: ['p'], hidden: true }),
  col('host', 'host name', { aliases: ['h'], hidden: true }), col('ip', 'ip address', { aliases: ['i'], hidden: true }), col('port', 'bound transport port', { aliases: ['po'], hidden: true }),
  col('name', 'thread pool name', { aliases: ['n'] }), col('type', 'thread pool type', { aliases: ['t'], hidden: true }),
  col('active', 'number of active threads', { aliases: ['a'], ...R }), col('pool_size', 'number of threads', { aliases: ['psz'], hidden: true, ...R }),
  col('queue', 'number of tasks currently in queue', { aliases: ['q'], ...R }), col('queue_size', 'maximum number of tasks permitted in queue', { aliases: ['qs'], hidden: true, ...R }),
  col('rejected', 'number of rejected tasks', { aliases: ['r'], ...R }), col('largest', 'highest number of seen active threads', { aliases: ['l'], hidden: true, ...R }),
  col('completed', 'number of completed tasks', { aliases: ['c'], hidden: true, ...R }), col('core', 'core number of threads in a scaling thread pool', { aliases: ['cr'], hidden: true, ...R }),
  // ES 6.x's columns: `size` is the number of threads of every pool, `min`/`max` its bounds (a fixed pool's are
  // its size). 7.0 renamed them `pool_size` and `core` and gave `size` to fixed pools only; both sets are served.
  col('min', 'minimum number of threads in a scaling thread pool', { aliases: ['mi'], hidden: true, ...R }),
  col('max', 'maximum number of threads in a scaling thread pool', { aliases: ['mx'], hidden: true, ...R }), col('size', 'number of threads', { aliases: ['sz'], hidden: true, ...R }),
  col('keep_alive', 'thread keep alive time', { aliases: ['ka'], hidden: true, ...R })];

const FIELDDATA: CatColumn[] = [col('id', 'node id', { aliases: ['nodeId'] }), col('host', 'host name', { aliases: ['h'] }), col('ip', 'ip address'),
  col('node', 'node name', { aliases: ['n'] }), col('field', 'field name', { aliases: ['f'] }), col('size', 'field data usage', { aliases: ['s'], ...R })];

const ENDPOINTS = ['/_cat/allocation', '/_cat/health', '/_cat/master', '/_cat/nodes', '/_cat/nodeattrs', '/_cat/indices', '/_cat/indices/{index}',
  '/_cat/aliases', '/_cat/aliases/{alias}', '/_cat/templates', '/_cat/count', '/_cat/count/{index}', '/_cat/shards', '/_cat/shards/{index}',
  '/_cat/segments', '/_cat/segments/{index}', '/_cat/pending_tasks', '/_cat/plugins', '/_cat/thread_pool', '/_cat/thread_pool/{thread_pools}', '/_cat/tasks', '/_cat/recovery', '/_cat/recovery/{index}', '/_cat/fielddata', '/_cat/fielddata/{fields}', '/_cat/repositories', '/_cat/snapshots/{repository}'];

export function registerCatRoutes(router: Router, cluster: EsCluster): void {
  router.add('GET', '/_cat', route([], () => ({ status: 200, headers: TEXT_HEADERS, body: `=^.^=\n${ENDPOINTS.join('\n')}\n` })));
  router.add('GET', '/_cat/health', route(CAT_PARAMS, (req) => catHealth(cluster, req)));
  router.add('GET', '/_cat/nodes', route([...CAT_PARAMS, 'full_id'], (req) => catNodes(cluster, req)));
  const indices = route([...CAT_PARAMS, 'health', 'pri', 'include_unloaded_segments'], (req, p) => catIndices(cluster, req, p.index));
  router.add('GET', '/_cat/indices', indices);
  router.add('GET', '/_cat/indices/:index', indices);
  const aliases = route(CAT_PARAMS, (req, p) => catAliases(cluster, req, p.alias));
  router.add('GET', '/_cat/aliases', aliases);
  router.add('GET', '/_cat/aliases/:alias', aliases);
  const templates = route(CAT_PARAMS, (req, p) => catTemplates(cluster, req, p.name));
  router.add('GET', '/_cat/templates', templates);
  router.add('GET', '/_cat/templates/:name', templates);
  const count = route(CAT_PARAMS, (req, p) => catCount(cluster, req, p.index));
  router.add('GET', '/_cat/count', count);
  router.add('GET', '/_cat/count/:index', count);
  router.add('GET', '/_cat/master', route(CAT_PARAMS, (req) => {
    const id = nodeIdentity(cluster.ctx.dataDir);
    return renderCat(req, MASTER, [{ id: id.uuid, host: '127.0.0.1', ip: '127.0.0.1', node: id.name }]);
  }));
  // No plugins are installed in this node; the table has ES's columns and no rows.
  router.add('GET', '/_cat/plugins', route(CAT_PARAMS, (req) => renderCat(req, PLUGINS, [])));
  router.add('GET', '/_cat/nodeattrs', route(CAT_PARAMS, (req) => renderCat(req, NODEATTRS, [])));
  // Metadata changes run one at a time on the main thread and are not queued as tasks: nothing is ever pending.
  router.add('GET', '/_cat/pending_tasks', route(CAT_PARAMS, (req) => renderCat(req, PENDING, [])));
  const allocation = route(CAT_PARAMS, async (req, p) => {
    if (!selectsThisNode(cluster.ctx.dataDir, p.node)) return renderCat(req, ALLOCATION, []);
    const id = nodeIdentity(cluster.ctx.dataDir);
    const metas = Object.values(cluster.state.indices);
    const stats = await cluster.stats(metas);
    let shards = 0, store = 0;
    for (const list of stats.values()) for (const st of list) { shards++; store += st.storeBytes; }
    const d = diskUsage(cluster.ctx.dataDir);
    return renderCat(req, ALLOCATION, [{ shards, 'disk.indices': bytesCell(req, store), 'disk.used': bytesCell(req, d.usedBytes), 'disk.avail': bytesCell(req, d.availableBytes),
      'disk.total': bytesCell(req, d.totalBytes), 'disk.percent': Math.round((d.usedBytes / d.totalBytes) * 100), host: '127.0.0.1', ip: '127.0.0.1', node: id.name }]);
  });
  router.add('GET', '/_cat/allocation', allocation);
  router.add('GET', '/_cat/allocation/:node', allocation);
  const fielddata = route([...CAT_PARAMS, 'fields'], (req, p) => catFielddata(cluster, req, p.fields ?? req.query.get('fields') ?? undefined));
  router.add('GET', '/_cat/fielddata', fielddata);
  router.add('GET', '/_cat/fielddata/:fields', fielddata);
  // `size` is in 6.8's spec (a SizeValue multiplier); every thread pool cell is a plain count, so it changes nothing.
  const pools = route([...CAT_PARAMS, 'size'], (req, p) => catThreadPool(cluster, req, p.patterns));
  router.add('GET', '/_cat/thread_pool', pools);
  router.add('GET', '/_cat/thread_pool/:patterns', pools);
  const shards = route(CAT_PARAMS, (req, p) => catShards(cluster, req, p.index));
  router.add('GET', '/_cat/shards', shards);
  router.add('GET', '/_cat/shards/:index', shards);
}

function catHealth(cluster: EsCluster, req: HttpRequest): HttpResponse {
  const h = healthOf(cluster, Object.values(cluster.state.indices));
  const now = cluster.ctx.now();
  const row: CatRow = { epoch: Math.floor(now / 1000), timestamp: hms(now), cluster: 'elasticsearch', status: h.status, 'node.total': 1, 'node.data': 1,
    shards: h.active_shards, pri: h.active_primary_shards, relo: 0, init: 0, unassign: h.unassigned_shards, pending_tasks: 0,
    max_task_wait_time: '-', active_shards_percent: `${h.active_shards_percent_as_number.toFixed(1)}%` };
  return renderCat(req, req.query.get('ts') === 'false' ? HEALTH.slice(2) : HEALTH, [row]);
}

function catNodes(cluster: EsCluster, req: HttpRequest): HttpResponse {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const mem = process.memoryUsage();
  const [l1, l5, l15] = os.loadavg();
  const total = os.totalmem();
  const used = total - os.freemem();
  const row: CatRow = { id: req.query.get('full_id') === 'true' ? id.uuid : id.uuid.slice(0, 4), pid: process.pid, ip: '127.0.0.1', port: 9300,
    http_address: '127.0.0.1:9200', version: '6.8.23', 'heap.current': bytesCell(req, mem.heapUsed),
    'heap.percent': Math.round((mem.heapUsed / mem.heapTotal) * 100), 'heap.max': bytesCell(req, mem.heapTotal),
    'ram.current': bytesCell(req, used), 'ram.percent': Math.round((used / total) * 100), 'ram.max': bytesCell(req, total),
    cpu: Math.min(100, Math.round((l1 / os.cpus().length) * 100)), load_1m: l1.toFixed(2), load_5m: l5.toFixed(2), load_15m: l15.toFixed(2),
    uptime: `${Math.floor(process.uptime())}s`, 'node.role': 'mdi', master: '*', name: id.name };
  return renderCat(req, NODES, [row]);
}

export const metasOf = (cluster: EsCluster, expr: string | undefined): IndexMeta[] => cluster.resolveForRead(expr, {}).map((r) => cluster.state.indices[r.name]);

async function catIndices(cluster: EsCluster, req: HttpRequest, expr: string | undefined): Promise<HttpResponse> {
  const metas = metasOf(cluster, expr);
  const stats = await cluster.stats(metas);
  const want = req.query.get('health');
  const rows: CatRow[] = [];
  for (const m of metas) {
    if (m.closed) {
      // As 6.8: a closed index is listed with its status and no health or figures.
      if (!want) rows.push({ health: null, status: 'close', index: m.name, uuid: m.uuid, pri: null, rep: null, 'docs.count': null, 'docs.deleted': null,
        'creation.date': m.creationDate, 'creation.date.string': new Date(m.creationDate).toISOString(), 'store.size': null, 'pri.store.size': null });
      continue;
    }
    const st = stats.get(m.name)!;
    const health = indexHealth(cluster, m).status;
    if (want && want !== health) continue;
    const store = st.reduce((a, s) => a + s.storeBytes, 0);
    rows.push({ health, status: 'open', index: m.name, uuid: m.uuid, pri: numberOfShards(m.settings), rep: numberOfReplicas(m.settings),
      'docs.count': st.reduce((a, s) => a + s.docsCount, 0), 'docs.deleted': st.reduce((a, s) => a + s.docsDeleted, 0),
      'creation.date': m.creationDate, 'creation.date.string': new Date(m.creationDate).toISOString(),
      'store.size': bytesCell(req, store), 'pri.store.size': bytesCell(req, store) });
  }
  return renderCat(req, INDICES, rows);
}

function catAliases(cluster: EsCluster, req: HttpRequest, expr: string | undefined): HttpResponse {
  const rows: CatRow[] = [];
  const pats = expr?.split(',');
  for (const m of Object.values(cluster.state.indices).sort(byName)) {
    for (const a of Object.keys(m.aliases).sort()) {
      if (pats && !pats.some((x) => simpleMatch(x, a))) continue;
      const d = m.aliases[a];
      rows.push({ alias: a, index: m.name, filter: d.filter !== undefined ? '*' : '-', 'routing.index': d.index_routing ?? '-', 'routing.search': d.search_routing ?? '-' });
    }
  }
  return renderCat(req, ALIASES, rows);
}

function catTemplates(cluster: EsCluster, req: HttpRequest, expr: string | undefined): HttpResponse {
  const rows: CatRow[] = Object.values(cluster.state.templates)
    .filter((t) => !expr || expr.split(',').some((x) => simpleMatch(x, t.name)))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((t) => ({ name: t.name, index_patterns: `[${t.index_patterns.join(', ')}]`, order: t.order, version: t.version ?? null }));
  return renderCat(req, TEMPLATES, rows);
}

async function catCount(cluster: EsCluster, req: HttpRequest, expr: string | undefined): Promise<HttpResponse> {
  const stats = await cluster.stats(metasOf(cluster, expr));
  let n = 0;
  // Top-level documents, as `_count` counts them (nested children are Lucene docs, not documents).
  for (const st of stats.values()) for (const s of st) n += s.rootDocs;
  const now = cluster.ctx.now();
  return renderCat(req, COUNT, [{ epoch: Math.floor(now / 1000), timestamp: hms(now), count: n }]);
}

async function catShards(cluster: EsCluster, req: HttpRequest, expr: string | undefined): Promise<HttpResponse> {
  const metas = metasOf(cluster, expr).filter((m) => !m.closed);
  const stats = await cluster.stats(metas);
  const node = nodeIdentity(cluster.ctx.dataDir);
  const rows: CatRow[] = [];
  for (const m of metas) {
    const st = stats.get(m.name)!;
    for (let s = 0; s < st.length; s++) {
      // A failed primary is unassigned in Elasticsearch's terms (its files are damaged; nothing serves it).
      if (st[s].failure !== undefined) rows.push({ index: m.name, shard: s, prirep: 'p', state: 'UNASSIGNED', docs: null, store: null, ip: null, id: null, node: null });
      else rows.push({ index: m.name, shard: s, prirep: 'p', state: 'STARTED', docs: st[s].docsCount, store: bytesCell(req, st[s].storeBytes), ip: '127.0.0.1', id: node.uuid, node: node.name });
      for (let r = 0; r < numberOfReplicas(m.settings); r++) {
        rows.push({ index: m.name, shard: s, prirep: 'r', state: 'UNASSIGNED', docs: null, store: null, ip: null, id: null, node: null });
      }
    }
  }
  return renderCat(req, SHARDS, rows);
}

/** Text-field fielddata loaded on this node, per field (nothing else here is fielddata: keywords read doc values). */
async function catFielddata(cluster: EsCluster, req: HttpRequest, fields: string | undefined): Promise<HttpResponse> {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const metas = Object.values(cluster.state.indices).filter((m) => !m.closed);
  const shards = [...(await cluster.stats(metas)).values()].flat();
  const pats = fields?.split(',');
  const rows: CatRow[] = fielddataByField(shards).filter(([f]) => !pats || pats.some((x) => simpleMatch(x, f)))
    .map(([field, bytes]) => ({ id: id.uuid, host: '127.0.0.1', ip: '127.0.0.1', node: id.name, field, size: bytesCell(req, bytes) }));
  return renderCat(req, FIELDDATA, rows);
}

function catThreadPool(cluster: EsCluster, req: HttpRequest, patterns: string | undefined): HttpResponse {
  const id = nodeIdentity(cluster.ctx.dataDir);
  const pats = patterns?.split(',');
  const rows: CatRow[] = [];
  for (const f of cluster.threadPools.figures()) {
    if (pats && !pats.some((x) => simpleMatch(x, f.name))) continue;
    const scaling = f.type === 'scaling';
    rows.push({ node_name: id.name, node_id: id.uuid.slice(0, 4), ephemeral_node_id: id.uuid.slice(-4), pid: process.pid, host: '127.0.0.1', ip: '127.0.0.1', port: 9300,
      name: f.name, type: f.type, active: f.active, pool_size: f.threads, queue: f.queue, queue_size: f.queueSize, rejected: f.rejected, largest: f.largest,
      completed: f.completed, core: scaling ? 0 : null, min: scaling ? 0 : f.threads, max: f.threads, size: f.threads, keep_alive: f.keepAlive });
  }
  return renderCat(req, THREAD_POOL, rows);
}

const byName = (a: IndexMeta, b: IndexMeta): number => (a.name < b.name ? -1 : 1);
