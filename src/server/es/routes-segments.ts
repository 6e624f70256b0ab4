/**
 * Segment-level endpoints: `GET [/{index}]/_segments`, `GET /_cat/segments[/{index}]` and
 * `POST [/{index}]/_forcemerge`, reporting and acting on the shards' real segments (on disk or still in
 * memory after a refresh).
 */
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import type { SegmentReport } from '../../engine/indexing/index.ts';
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import { nodeIdentity } from './banner.ts';
import { bytesCell, CAT_PARAMS, renderCat, type CatColumn, type CatRow } from './cat-table.ts';
import type { EsCluster } from './cluster.ts';
import { route } from './handler.ts';
import { json } from './json.ts';
import { dataIndices, shardsHeader } from './routes-indices.ts';

/** The Lucene version Elasticsearch 6.8 reports for its segments. */
const LUCENE_VERSION = '7.7.3';

const col = (name: string, desc: string, o: Partial<CatColumn> = {}): CatColumn => ({ name, desc, ...o });
const R = { right: true };
const SEGMENTS: CatColumn[] = [col('index', 'index name', { aliases: ['i', 'idx'] }), col('shard', 'shard name', { aliases: ['s', 'sh'], ...R }),
  col('prirep', 'primary or replica', { aliases: ['p', 'pr', 'primaryOrReplica'] }), col('ip', 'ip of node where it lives'),
  col('id', 'unique id of node where it lives', { hidden: true }), col('segment', 'segment name', { aliases: ['seg'] }),
  col('generation', 'segment generation', { aliases: ['g', 'gen'], ...R }), col('docs.count', 'number of docs in segment', { aliases: ['dc', 'docsCount'], ...R }),
  col('docs.deleted', 'number of deleted docs in segment', { aliases: ['dd', 'docsDeleted'], ...R }), col('size', 'segment size in bytes', { aliases: ['si'], ...R }),
  col('size.memory', 'segment memory in bytes', { aliases: ['sm', 'sizeMemory'], ...R }), col('committed', 'is segment committed', { aliases: ['ic', 'isCommitted'] }),
  col('searchable', 'is segment searched', { aliases: ['is', 'isSearchable'] }), col('version', 'version', { aliases: ['v'] }),
  col('compound', 'is segment compound', { aliases: ['ico', 'isCompound'] })];

async function segmentsOf(cluster: EsCluster, metas: IndexMeta[]): Promise<Map<string, SegmentReport[][]>> {
  return cluster.allShards(metas, 'docs.segments');
}

export function registerSegmentRoutes(router: Router, cluster: EsCluster): void {
  const EXPAND = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];
  const segments = route(['verbose', ...EXPAND], async (req, p) => {
    const metas = dataIndices(cluster, req, p.index);
    const node = nodeIdentity(cluster.ctx.dataDir);
    const all = await segmentsOf(cluster, metas);
    const indices: Record<string, unknown> = {};
    for (const m of metas) {
      const shards: Record<string, unknown> = {};
      all.get(m.name)!.forEach((list, s) => {
        const segs: Record<string, unknown> = {};
        for (const x of list) {
          segs[x.name] = {
            generation: x.generation, num_docs: x.docs, deleted_docs: x.deleted, size_in_bytes: x.sizeBytes, memory_in_bytes: x.memoryBytes,
            committed: x.committed, search: x.search, version: LUCENE_VERSION, compound: false, attributes: {},
          };
        }
        shards[String(s)] = [{
          routing: { state: 'STARTED', primary: true, node: node.uuid },
          num_committed_segments: list.filter((x) => x.committed).length, num_search_segments: list.filter((x) => x.search).length,
          segments: segs,
        }];
      });
      indices[m.name] = { shards };
    }
    return json(req, 200, { _shards: shardsHeader(metas), indices });
  });
  router.add('GET', '/_segments', segments);
  router.add('GET', '/:index/_segments', segments);

  const cat = route(CAT_PARAMS, (req, p) => catSegments(cluster, req, p.index));
  router.add('GET', '/_cat/segments', cat);
  router.add('GET', '/_cat/segments/:index', cat);

  const forceMerge = route(['max_num_segments', 'only_expunge_deletes', 'flush', ...EXPAND], async (req, p) => {
    const metas = dataIndices(cluster, req, p.index);
    const q = req.query;
    const max = q.get('max_num_segments');
    const maxNumSegments = max === null ? 1 : Number(max);
    if (!Number.isInteger(maxNumSegments) || (max !== null && maxNumSegments < 1 && maxNumSegments !== -1)) {
      throw illegalArgument(`Failed to parse value [${max}] for parameter [max_num_segments]`);
    }
    const onlyExpungeDeletes = q.get('only_expunge_deletes') === 'true';
    if (onlyExpungeDeletes && max !== null) {
      throw illegalArgument('Validation Failed: 1: cannot set only_expunge_deletes and max_num_segments at the same time;');
    }
    const flush = q.get('flush') !== 'false';
    await cluster.allShards(metas, 'docs.forceMerge', { maxNumSegments: maxNumSegments === -1 ? 1 : maxNumSegments, onlyExpungeDeletes, flush });
    return json(req, 200, { _shards: shardsHeader(metas) });
  });
  router.add('POST', '/_forcemerge', forceMerge);
  router.add('POST', '/:index/_forcemerge', forceMerge);
}

async function catSegments(cluster: EsCluster, req: HttpRequest, expr: string | undefined): Promise<HttpResponse> {
  const metas = cluster.resolveForRead(expr, { data: true }).map((r) => cluster.state.indices[r.name]);
  const node = nodeIdentity(cluster.ctx.dataDir);
  const all = await segmentsOf(cluster, metas);
  const rows: CatRow[] = [];
  for (const m of metas) {
    all.get(m.name)!.forEach((list, s) => {
      for (const x of list) {
        // `size` is a ByteSizeValue but ES adds `size.memory` as a plain long (RestSegmentsAction), so no unit.
        rows.push({ index: m.name, shard: s, prirep: 'p', ip: '127.0.0.1', id: node.uuid, segment: x.name, generation: x.generation,
          'docs.count': x.docs, 'docs.deleted': x.deleted, size: bytesCell(req, x.sizeBytes), 'size.memory': x.memoryBytes,
          committed: String(x.committed), searchable: String(x.search), version: LUCENE_VERSION, compound: 'false' });
      }
    });
  }
  return renderCat(req, SEGMENTS, rows);
}
