/**
 * `_bulk`: parses the NDJSON (whole-request failures), auto-creates target indices, groups items by shard
 * (order kept within a shard), runs the shards in parallel across workers, and answers per-item results.
 */
import { parseBulk, type BulkItem } from '../../engine/docs/bulk-parse.ts';
import type { IndexMeta } from '../../engine/docs/cluster-state.ts';
import { newDocId } from '../../engine/docs/names.ts';
import { shardFor } from '../../engine/docs/routing.ts';
import { numberOfShards } from '../../engine/docs/settings.ts';
import { validateTypeName } from '../../engine/docs/names.ts';
import { validationFailed } from '../../engine/docs/doc-errors.ts';
import type { ItemOutcome, WriteItem } from '../../workers/docs-tasks.ts';
import type { Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { itemError } from './errors.ts';
import { bodyBytes, route } from './handler.ts';
import { json, RawJson } from './json.ts';
import { checkId, conditions, notFoundExpr, refreshParam, routingRequired, writeBody } from './routes-docs.ts';

const BULK_PARAMS = ['refresh', 'routing', 'timeout', 'wait_for_active_shards', 'pipeline', 'type', '_source', '_source_includes',
  '_source_excludes', '_source_include', '_source_exclude', 'fields'];

interface Planned { item: BulkItem; meta: IndexMeta | null; shard: number; id: string; error?: unknown }

export function registerBulkRoutes(router: Router, cluster: EsCluster): void {
  const bulk = route(BULK_PARAMS, async (req, p) => {
    const started = Date.now();
    const items = parseBulk(bodyBytes(req), { index: p.index, type: p.type ?? req.query.get('type') ?? undefined });
    const refresh = refreshParam(req);
    const planned = await plan(cluster, items, req.query.get('routing') ?? undefined);
    const groups = new Map<string, { meta: IndexMeta; shard: number; idx: number[]; ops: WriteItem[] }>();
    for (let i = 0; i < planned.length; i++) {
      const pl = planned[i];
      if (pl.error !== undefined || !pl.meta) continue;
      const key = `${pl.meta.uuid}/${pl.shard}`;
      let g = groups.get(key);
      if (!g) { g = { meta: pl.meta, shard: pl.shard, idx: [], ops: [] }; groups.set(key, g); }
      try {
        g.ops.push(toWriteItem(pl));
        g.idx.push(i);
      } catch (e) { pl.error = e; }
    }
    const outcomes: (ItemOutcome | undefined)[] = new Array(planned.length);
    await Promise.all([...groups.values()].map(async (g) => {
      try {
        const res = await cluster.writeShard(g.meta, g.shard, g.ops, refresh);
        for (let j = 0; j < g.idx.length; j++) outcomes[g.idx[j]] = res[j];
      } catch (e) {
        for (const i of g.idx) planned[i].error = e;
      }
    }));
    let errors = false;
    const out = planned.map((pl, i) => {
      const base = { _index: pl.meta?.name ?? pl.item.index, _type: pl.item.type, _id: pl.id };
      const o = outcomes[i];
      if (pl.error !== undefined || !o || 'err' in o) {
        errors = true;
        const e = itemError(pl.error ?? (o && 'err' in o ? o.err : new Error('item not executed')));
        return { [pl.item.action]: { ...base, status: e.status, error: e.error } };
      }
      const r = (o as { ok: import('../../engine/docs/doc-shard-types.ts').WriteResult }).ok;
      const b = writeBody(pl.meta!, pl.item.type, pl.id, r);
      if (r.getSource !== undefined) b.get = { ...(r.result !== 'noop' ? { _seq_no: r.seqNo, _primary_term: r.primaryTerm } : {}), found: true, _source: new RawJson(r.getSource) };
      b.status = r.result === 'created' ? 201 : r.result === 'not_found' ? 404 : 200;
      return { [pl.item.action]: b };
    });
    return json(req, 200, { took: Date.now() - started, errors, items: out });
  });
  for (const path of ['/_bulk', '/:index/_bulk', '/:index/:type/_bulk']) router.add(['POST', 'PUT'], path, bulk);
}

/** Resolves each item's index (auto-creating for non-deletes), id and shard; per-item failures are kept. */
async function plan(cluster: EsCluster, items: BulkItem[], defaultRouting: string | undefined): Promise<Planned[]> {
  const targets = new Map<string, Promise<{ meta: IndexMeta | null; routing?: string }>>();
  const out: Planned[] = [];
  for (const item of items) {
    const id = item.id ?? (item.action === 'index' ? newDocId() : '');
    const pl: Planned = { item, meta: null, shard: 0, id };
    out.push(pl);
    try {
      validateTypeName(item.type);
      if (item.action === 'create' && item.id === undefined) throw validationFailed(['an id must be provided if version type or value are set']);
      if (item.action !== 'index' || item.id !== undefined) checkId(id);
      const key = `${item.index}\u0000${item.type}\u0000${item.action === 'delete'}`;
      let t = targets.get(key);
      if (!t) { t = cluster.writeTarget(item.index, item.type, item.action !== 'delete'); targets.set(key, t); }
      const { meta, routing } = await t;
      if (!meta) throw notFoundExpr(item.index);
      pl.meta = meta;
      item.routing ??= defaultRouting ?? routing;
      routingRequired(meta, item.routing, id);
      pl.shard = shardFor(item.routing ?? id, numberOfShards(meta.settings));
    } catch (e) {
      pl.error = e;
    }
  }
  // Auto-creation may have bumped mapping versions: use the latest metadata for every planned item.
  for (const pl of out) if (pl.meta) pl.meta = cluster.state.indices[pl.meta.name] ?? pl.meta;
  return out;
}

function toWriteItem(pl: Planned): WriteItem {
  const it = pl.item;
  const c = conditions((k) => {
    const v = k === 'version' ? it.version : k === 'version_type' ? it.versionType : k === 'if_seq_no' ? it.ifSeqNo : k === 'if_primary_term' ? it.ifPrimaryTerm : undefined;
    return v === undefined ? null : String(v);
  });
  if (it.action === 'delete') return { action: 'delete', op: { id: pl.id, routing: it.routing, ...c } };
  if (it.action === 'update') {
    const body = Buffer.from(it.source!).toString('utf8');
    return { action: 'update', op: { id: pl.id, routing: it.routing, body, ifSeqNo: c.ifSeqNo, ifPrimaryTerm: c.ifPrimaryTerm, retryOnConflict: it.retryOnConflict, fetchSource: bulkFetch(it.fetchSource, body) } };
  }
  return { action: it.action, op: { id: pl.id, source: it.source!, routing: it.routing, ...c } };
}

function bulkFetch(spec: unknown, body: string): WriteItem extends never ? never : import('../../engine/docs/doc-shard-types.ts').UpdateOp['fetchSource'] {
  let s = spec;
  if (s === undefined) {
    try { s = (JSON.parse(body) as Record<string, unknown>)?._source; } catch { s = undefined; }
  }
  if (s === undefined || s === false || s === 'false') return undefined;
  if (s === true || s === 'true') return true;
  const l = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
  if (typeof s === 'object' && s !== null && !Array.isArray(s)) {
    const o = s as Record<string, unknown>;
    return { includes: l(o.includes ?? o.include), excludes: l(o.excludes ?? o.exclude) };
  }
  return { includes: l(s), excludes: [] };
}
