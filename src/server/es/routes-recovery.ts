/**
 * Shard recoveries: `GET [/{index}]/_recovery` and `_cat/recovery[/{index}]`. Each primary recovered from its own
 * store when its shard was opened (a new index: empty_store; files already on disk: existing_store); the figures
 * are that open's (engine/documents/shard-store.ts): its start and stop, the index files it found — reused, so
 * nothing to copy — and the translog operations it replayed. Replicas are never assigned on one node.
 */
import type { ShardRecovery, ShardStats } from '../../engine/documents/doc-shard-types.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { nodeIdentity } from './banner.ts';
import { CAT_PARAMS, renderCat, type CatColumn, type CatRow } from './cat-table.ts';
import type { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { humanIfAsked, timeValue } from './human.ts';
import { json } from './json.ts';
import { boolParam } from './params.ts';
import { metasOf } from './routes-cat.ts';

const col = (name: string, desc: string, o: Partial<CatColumn> = {}): CatColumn => ({ name, desc, ...o });
const R = { right: true };

const RECOVERY: CatColumn[] = [col('index', 'index name', { aliases: ['i', 'idx'] }), col('shard', 'shard name', { aliases: ['s', 'sh'], ...R }),
  col('start_time', 'recovery start time', { aliases: ['start'], hidden: true }), col('start_time_millis', 'recovery start time in epoch milliseconds', { aliases: ['start_millis'], hidden: true, ...R }),
  col('stop_time', 'recovery stop time', { aliases: ['stop'], hidden: true }), col('stop_time_millis', 'recovery stop time in epoch milliseconds', { aliases: ['stop_millis'], hidden: true, ...R }),
  col('time', 'recovery time', { aliases: ['t', 'ti'], ...R }), col('type', 'recovery type', { aliases: ['ty'] }), col('stage', 'recovery stage', { aliases: ['st'] }),
  col('source_host', 'source host', { aliases: ['shost'] }), col('source_node', 'source node name', { aliases: ['snode'] }),
  col('target_host', 'target host', { aliases: ['thost'] }), col('target_node', 'target node name', { aliases: ['tnode'] }),
  col('repository', 'repository', { aliases: ['rep'] }), col('snapshot', 'snapshot', { aliases: ['snap'] }),
  col('files', 'number of files to recover', { aliases: ['f'], ...R }), col('files_recovered', 'files recovered', { aliases: ['fr'], ...R }),
  col('files_percent', 'percent of files recovered', { aliases: ['fp'], ...R }), col('files_total', 'total number of files', { aliases: ['tf'], ...R }),
  col('bytes', 'number of bytes to recover', { aliases: ['b'], ...R }), col('bytes_recovered', 'bytes recovered', { aliases: ['br'], ...R }),
  col('bytes_percent', 'percent of bytes recovered', { aliases: ['bp'], ...R }), col('bytes_total', 'total number of bytes', { aliases: ['tb'], ...R }),
  col('translog_ops', 'number of translog ops to recover', { aliases: ['to'], ...R }), col('translog_ops_recovered', 'translog ops recovered', { aliases: ['tor'], ...R }),
  col('translog_ops_percent', 'percent of translog ops recovered', { aliases: ['top'], ...R })];

export function registerRecoveryRoutes(router: Router, cluster: EsCluster): void {
  const cat = route([...CAT_PARAMS, 'active_only', 'detailed', 'index'], (req, p) => catRecovery(cluster, req, p.index));
  router.add('GET', '/_cat/recovery', cat);
  router.add('GET', '/_cat/recovery/:index', cat);
  const api = route(['active_only', 'detailed', 'ignore_unavailable', 'allow_no_indices', 'expand_wildcards'], (req, p) => recoveryApi(cluster, req, p.index));
  router.add('GET', '/_recovery', api);
  router.add('GET', '/:index/_recovery', api);
}

/** The open indices of `expr` with each shard's figures, in name order. */
async function shardsOf(cluster: EsCluster, expr: string | undefined): Promise<[string, ShardStats[]][]> {
  const metas = metasOf(cluster, expr).filter((m) => !m.closed).sort((a, b) => (a.name < b.name ? -1 : 1));
  const stats = await cluster.stats(metas);
  return metas.map((m) => [m.name, stats.get(m.name)!]);
}

/** RecoveryState.toXContent for a finished store recovery. */
function recoveryJson(cluster: EsCluster, shard: number, r: ShardRecovery): Record<string, unknown> {
  const node = nodeIdentity(cluster.ctx.dataDir);
  const ms = r.stopMs - r.startMs;
  return {
    id: shard, type: r.type.toUpperCase(), stage: 'DONE', primary: true, start_time_in_millis: r.startMs, stop_time_in_millis: r.stopMs, total_time_in_millis: ms,
    source: r.type === 'existing_store' ? { bootstrap_new_history_uuid: false } : {},
    target: { id: node.uuid, host: '127.0.0.1', transport_address: '127.0.0.1:9300', ip: '127.0.0.1', name: node.name },
    index: {
      size: { total_in_bytes: r.bytes, reused_in_bytes: r.bytes, recovered_in_bytes: 0, percent: r.files > 0 ? '100.0%' : '0.0%' },
      files: { total: r.files, reused: r.files, recovered: 0, percent: r.files > 0 ? '100.0%' : '0.0%' },
      total_time_in_millis: 0, source_throttle_time_in_millis: 0, target_throttle_time_in_millis: 0,
    },
    translog: { recovered: r.translogOps, total: r.translogOps, percent: '100.0%', total_on_start: r.translogOps, total_time_in_millis: ms },
    verify_index: { check_index_time_in_millis: 0, total_time_in_millis: 0 },
  };
}

async function recoveryApi(cluster: EsCluster, req: HttpRequest, expr: string | undefined): Promise<HttpResponse> {
  const body: Record<string, unknown> = {};
  const activeOnly = boolParam(req, 'active_only');
  for (const [name, shards] of await shardsOf(cluster, expr)) {
    const list = activeOnly ? [] : shards.flatMap((st, i) => (st.recovery ? [recoveryJson(cluster, i, st.recovery)] : []));
    if (list.length) body[name] = { shards: list };
  }
  return json(req, 200, humanIfAsked(req, body));
}

/** One row per recovered shard copy (the primaries). */
async function catRecovery(cluster: EsCluster, req: HttpRequest, expr: string | undefined): Promise<HttpResponse> {
  const node = nodeIdentity(cluster.ctx.dataDir);
  const rows: CatRow[] = [];
  // Every recovery here has finished by the time its shard answers; active_only lists none.
  if (boolParam(req, 'active_only')) return renderCat(req, RECOVERY, rows);
  const pct = (done: boolean, any: boolean): string => (done && any ? '100.0%' : '0.0%');
  for (const [name, shards] of await shardsOf(cluster, expr)) {
    shards.forEach((st, shard) => {
      const r = st.recovery;
      if (!r) return;
      rows.push({ index: name, shard, start_time: new Date(r.startMs).toISOString(), start_time_millis: r.startMs, stop_time: new Date(r.stopMs).toISOString(),
        stop_time_millis: r.stopMs, time: timeValue((r.stopMs - r.startMs) * 1e6, 0), type: r.type, stage: 'done', source_host: 'n/a', source_node: 'n/a',
        target_host: '127.0.0.1', target_node: node.name, repository: 'n/a', snapshot: 'n/a',
        files: 0, files_recovered: 0, files_percent: pct(true, r.files > 0), files_total: r.files,
        bytes: 0, bytes_recovered: 0, bytes_percent: pct(true, r.files > 0), bytes_total: r.bytes,
        translog_ops: r.translogOps, translog_ops_recovered: r.translogOps, translog_ops_percent: '100.0%' });
    });
  }
  return renderCat(req, RECOVERY, rows);
}
