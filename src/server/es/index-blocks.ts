/**
 * Index-level write blocks (`index.blocks.read_only`, `read_only_allow_delete`, `write`), with Elasticsearch
 * 6.8's block ids and descriptions: a write to a blocked index fails with 403 `cluster_block_exception`.
 * `read_only_allow_delete` is what the flood-stage disk watermark sets (disk-watermarks.ts).
 */
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { docError } from '../../engine/documents/doc-errors.ts';

const WRITE_BLOCKS: [setting: string, description: string][] = [
  ['index.blocks.read_only', 'FORBIDDEN/5/index read-only (api)'],
  ['index.blocks.read_only_allow_delete', 'FORBIDDEN/12/index read-only / allow delete (api)'],
  ['index.blocks.write', 'FORBIDDEN/8/index write (api)'],
];

export const FLOOD_STAGE_BLOCK = 'index.blocks.read_only_allow_delete';

/** Throws ES's cluster_block_exception when a block setting of `meta` forbids document writes. */
export function checkIndexWriteBlock(meta: IndexMeta): void {
  const hit = WRITE_BLOCKS.filter(([k]) => meta.settings[k] === 'true').map(([, d]) => d);
  if (hit.length) throw docError('DOC_CLUSTER_BLOCK', [hit.join(', ')]);
}
