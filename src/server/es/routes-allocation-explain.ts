/**
 * `_cluster/allocation/explain` for this one-node cluster: why a shard is where it is, or unassigned. Replicas are
 * never assigned (ES's same_shard decider forbids a copy on the node that holds the primary), a primary is
 * started on the node unless its files failed to open (then no valid copy exists). An empty request explains
 * the first unassigned shard, as ES does; the answers follow ES 6.8's ClusterAllocationExplanation.
 */
import { createHash } from 'node:crypto';
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { numberOfReplicas, numberOfShards } from '../../engine/documents/settings.ts';
import type { HttpRequest } from '../http.ts';
import type { Router } from '../router.ts';
import { nodeIdentity } from './banner.ts';
import type { EsCluster } from './cluster.ts';
import { bodyMap, route } from './handler.ts';
import { boolParam } from './params.ts';
import { json } from './json.ts';
import { notFoundExpr } from './routes-docs.ts';

interface ShardCopy { meta: IndexMeta; shard: number; primary: boolean }

export function registerAllocationExplainRoutes(router: Router, cluster: EsCluster): void {
  const explain = route(['include_yes_decisions', 'include_disk_info'], async (req) => {
    await cluster.stats(Object.values(cluster.state.indices).filter((m) => !m.closed)); // refreshes which shards failed
    return json(req, 200, explanation(cluster, pick(cluster, req)));
  });
  router.add(['GET', 'POST'], '/_cluster/allocation/explain', explain);
}

/** The copy a request names, or (no body) the first unassigned one. */
function pick(cluster: EsCluster, req: HttpRequest): ShardCopy {
  const body = bodyMap(req) ?? {};
  const { index, shard, primary, current_node: currentNode } = body;
  const yes = boolParam(req, 'include_yes_decisions');
  if (index === undefined && shard === undefined && primary === undefined && currentNode === undefined) {
    for (const meta of Object.values(cluster.state.indices)) {
      if (meta.closed) continue;
      const failed = new Set(cluster.failedShards(meta));
      for (let s = 0; s < numberOfShards(meta.settings); s++) if (failed.has(s)) return { meta, shard: s, primary: true };
      if (numberOfReplicas(meta.settings) > 0) return { meta, shard: 0, primary: false };
    }
    throw illegalArgument(`unable to find any unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,includeYesDecisions?=${yes}]]`);
  }
  const missing = [index === undefined && 'index must be specified', shard === undefined && 'shard must be specified',
    primary === undefined && 'primary must be specified'].filter((m): m is string => m !== false);
  if (missing.length) throw validationFailed(missing);
  const meta = cluster.state.indices[String(index)];
  if (meta === undefined || meta.closed) throw notFoundExpr(String(index));
  const n = Number(shard);
  if (!Number.isInteger(n) || n < 0 || n >= numberOfShards(meta.settings)) throw docError('DOC_SHARD_NOT_FOUND', [], { shard: String(n), index: meta.name });
  const node = nodeIdentity(cluster.ctx.dataDir);
  if (currentNode !== undefined && currentNode !== node.uuid && currentNode !== node.name) throw illegalArgument(`failed to resolve [${String(currentNode)}], no matching nodes`);
  if (primary === true) return { meta, shard: n, primary: true };
  // Replicas are never assigned here: none is on `current_node`.
  if (currentNode !== undefined) throw illegalArgument(`unable to find a replica shard assigned to node [${String(currentNode)}]`);
  if (numberOfReplicas(meta.settings) === 0) {
    throw illegalArgument(`unable to find any shards to explain [ClusterAllocationExplainRequest[index=${meta.name},shard=${n},primary?=false,includeYesDecisions?=${yes}] in the routing table`);
  }
  return { meta, shard: n, primary: false };
}

/**
 * The explanation of `c`. Deciders are not modelled one by one: a replica lists the one that says NO, with or
 * without `include_yes_decisions`.
 */
function explanation(cluster: EsCluster, c: ShardCopy): Record<string, unknown> {
  const node = nodeIdentity(cluster.ctx.dataDir);
  const nodeFields = { node_id: node.uuid, node_name: node.name, transport_address: '127.0.0.1:9300' };
  const head = { index: c.meta.name, shard: c.shard, primary: c.primary };
  const failure = cluster.failedShards(c.meta).includes(c.shard);
  // A copy unassigned since the node started carries CLUSTER_RECOVERED, as after a full restart of ES.
  const startedAt = performance.timeOrigin;
  const unassignedInfo = (): Record<string, unknown> => c.meta.creationDate >= startedAt
    ? { reason: 'INDEX_CREATED', at: new Date(c.meta.creationDate).toISOString() }
    : { reason: 'CLUSTER_RECOVERED', at: new Date(startedAt).toISOString() };
  if (c.primary && !failure) {
    return {
      ...head, current_state: 'started',
      current_node: { id: node.uuid, name: node.name, transport_address: '127.0.0.1:9300', weight_ranking: 1 },
      can_remain_on_current_node: 'yes', can_rebalance_cluster: 'yes', can_rebalance_to_other_node: 'no',
      rebalance_explanation: 'cannot rebalance as no target node exists that can both allocate this shard and improve the cluster balance',
    };
  }
  if (c.primary) {
    return {
      ...head, current_state: 'unassigned', unassigned_info: { ...unassignedInfo(), last_allocation_status: 'no_valid_shard_copy' },
      can_allocate: 'no_valid_shard_copy', allocate_explanation: 'cannot allocate because all found copies of the shard are either stale or corrupt',
      node_allocation_decisions: [{ ...nodeFields, node_decision: 'no', store: { in_sync: true, allocation_id: allocationId(c.meta, c.shard),
        store_exception: { type: 'corrupt_index_exception', reason: cluster.shardFailure(c.meta, c.shard) ?? 'shard files failed to open' } } }],
    };
  }
  // A replica waits for its primary first; with the primary started, the copy it holds is what says no.
  const decider = failure
    ? { decider: 'replica_after_primary_active', decision: 'NO', explanation: 'primary shard for this replica is not yet active' }
    : { decider: 'same_shard', decision: 'NO',
      explanation: `the shard cannot be allocated to the same node on which a copy of the shard already exists [[${c.meta.name}][${c.shard}], node[${node.uuid}], [P], s[STARTED], a[id=${allocationId(c.meta, c.shard)}]]` };
  return {
    ...head, current_state: 'unassigned', unassigned_info: { ...unassignedInfo(), last_allocation_status: 'no_attempt' },
    can_allocate: 'no', allocate_explanation: 'cannot allocate because allocation is not permitted to any of the nodes',
    node_allocation_decisions: [{ ...nodeFields, node_decision: 'no', weight_ranking: 1, deciders: [decider] }],
  };
}

/** The primary copy's allocation id: stable for the index and shard (this node keeps one copy, never reallocated). */
function allocationId(meta: IndexMeta, shard: number): string {
  return createHash('sha1').update(`${meta.uuid}/${shard}`).digest('base64url').slice(0, 22);
}
