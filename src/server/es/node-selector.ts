/**
 * Node selectors (`{node_id}` in `_nodes/{node_id}`, `_cat/allocation/{node_id}`): a comma-separated list of
 * `_all`, `_local`, `_master`, node ids, names, addresses, role filters (`master:true`) and `*` wildcards over
 * ids and names, as ES's DiscoveryNodes.resolveNodes reads them. This node is the only node, so the question is
 * only whether the list selects it.
 */
import { simpleMatch } from '../../engine/documents/cluster-state.ts';
import { nodeIdentity } from './banner.ts';

const SELF = ['_all', '_local', '_master', '127.0.0.1', 'localhost'];
// This node holds every role ES 6.8's defaults give a node.
const ROLES = ['master:true', 'data:true', 'ingest:true'];

/** Whether `sel` (undefined: no selector) names this node. */
export function selectsThisNode(dataDir: string, sel: string | undefined): boolean {
  if (sel === undefined) return true;
  const id = nodeIdentity(dataDir);
  return sel.split(',').some((s) => SELF.includes(s) || ROLES.includes(s) || simpleMatch(s, id.uuid) || simpleMatch(s, id.name));
}
