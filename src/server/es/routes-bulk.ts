/**
 * `_bulk`: parses the NDJSON (whole-request failures), auto-creates target indices, groups items by shard
 * (order kept within a shard), runs the shards in parallel across workers, and answers per-item results.
 */
import { parseBulk, type BulkItem } from '../../engine/documents/bulk-parse.ts';
import { ByteWriter } from '../../engine/codec/byte-buf.ts';
import { bulkRun, resultStatus, writePlainItem, type BulkRun } from './bulk-reply.ts';
import type { IndexMeta } from '../../engine/documents/cluster-state.ts';
import { newDocId } from '../../engine/documents/names.ts';
import { shardFor } from '../../engine/documents/routing.ts';
import { numberOfReplicas, numberOfShards } from '../../engine/documents/settings.ts';
import type { WriteConditions, WriteResult } from '../../engine/documents/doc-shard-types.ts';
import { validateTypeName } from '../../engine/documents/names.ts';
import { validationFailed } from '../../engine/documents/doc-errors.ts';
import { ingest } from './routes-ingest.ts';
import { newWriteOutcomes, OUTCOME_FORCED_REFRESH, OUTCOME_OTHER, OUTCOME_PENDING, outcomeAt, WRITE_AUTO_ID, WRITE_CREATE, WRITE_RESULTS, type ItemOutcome, type WriteBatch, type WriteColumns, type WriteItem } from '../../workers/protocol.ts';
import type { Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { itemError, JSON_HEADERS } from './errors.ts';
import { bodyBytes, route } from './handler.ts';
import { compact, json, RawJson, wantsPretty } from './json.ts';
import { checkId, conditions, notFoundExpr, refreshParam, routingRequired, writeBody } from './routes-docs.ts';

/** Outcome code of an item no shard ran (it failed before, or its shard's call failed as a whole). */
const OUTCOME_NOT_RUN = 0xfd;
const COMMA = 0x2c;
/** Room left before the items for the response's head (`{"took":<ms>,"errors":false,"items":[`: under 50 bytes). */
const HEAD_ROOM = 64;

const BULK_PARAMS = ['refresh', 'routing', 'timeout', 'wait_for_active_shards', 'pipeline', 'type', '_source', '_source_includes',
  '_source_excludes', '_source_include', '_source_exclude', 'fields'];

/** `autoId`: the id was generated here, so no earlier copy can exist (the shard skips looking for one). */
interface Planned { item: BulkItem; meta: IndexMeta | null; shard: number; id: string; autoId: boolean; error?: unknown; dropped?: boolean }

export function registerBulkRoutes(router: Router, cluster: EsCluster): void {
  const bulk = route(BULK_PARAMS, async (req, p) => {
    const started = Date.now();
    cluster.checkWriteBlock(); // a cluster block fails the whole request, as ES checks it before the items
    const items = parseBulk(bodyBytes(req), { index: p.index, type: p.type ?? req.query.get('type') ?? undefined });
    const refresh = refreshParam(req);
    const planned = await plan(cluster, items, req.query.get('routing') ?? undefined, req.query.get('pipeline') ?? undefined);
    // Groups by index uuid, then by shard number (no key string per item), in order of first appearance.
    // A group of plain items only (`isPlain`) crosses as columns, any other as WriteItems.
    type Group = { meta: IndexMeta; shard: number; idx: number[]; plain: boolean; sourceBytes: number; batch: WriteBatch | null };
    const groups: Group[] = [];
    const byIndex = new Map<string, (Group | undefined)[]>();
    for (let i = 0; i < planned.length; i++) {
      const pl = planned[i];
      if (pl.error !== undefined || !pl.meta || pl.dropped) continue;
      let shards = byIndex.get(pl.meta.uuid);
      if (!shards) { shards = []; byIndex.set(pl.meta.uuid, shards); }
      let g = shards[pl.shard];
      if (!g) { g = { meta: pl.meta, shard: pl.shard, idx: [], plain: true, sourceBytes: 0, batch: null }; shards[pl.shard] = g; groups.push(g); }
      g.idx.push(i);
      if (g.plain && isPlain(pl)) g.sourceBytes += pl.item.source!.byteLength;
      else g.plain = false;
    }
    for (const g of groups) g.batch = g.plain ? writeColumns(planned, g.idx, g.sourceBytes) : writeItems(planned, g.idx);
    // The shards' outcomes, as columns by request item (protocol.ts `WriteOutcomes`); OUTCOME_NOT_RUN: no shard ran it.
    const n = planned.length;
    const all = newWriteOutcomes(n);
    const { code, version, seqNo, primaryTerm } = all;
    code.fill(OUTCOME_NOT_RUN);
    const others = new Map<number, ItemOutcome>();
    await Promise.all(groups.map(async (g) => {
      try {
        if (g.idx.length === 0) return; // every item failed to convert
        const res = await cluster.writeShard(g.meta, g.shard, g.batch!, refresh);
        for (let j = 0; j < g.idx.length; j++) {
          const i = g.idx[j];
          code[i] = res.code[j]; version[i] = res.version[j]; seqNo[i] = res.seqNo[j]; primaryTerm[i] = res.primaryTerm[j];
        }
        for (let k = 0; k < res.otherAt.length; k++) others.set(g.idx[res.otherAt[k]], res.others[k]);
      } catch (e) {
        for (const i of g.idx) planned[i].error = e;
      }
    }));
    const pretty = wantsPretty(req) || req.query.has('filter_path'); // object path: json() prints or filters it
    let errors = false;
    const objs: unknown[] = [];
    // The items' text goes straight into the body's bytes, after room for the head (`{"took":…,"errors":…,
    // "items":[`), written last. A join of the items made one 400 KB flat string from 2,000 ropes for a
    // 2,000-item bulk (~1.4 µs per item on the main thread), and the reply then encoded it once more.
    const body = new ByteWriter(pretty ? 1 : HEAD_ROOM + n * 256 + 2);
    body.len = pretty ? 0 : HEAD_ROOM;
    const item = (v: unknown): void => { if (pretty) objs.push(v); else body.utf8(compact(v)); };
    let lastMeta: IndexMeta | null = null, lastType = '', run: BulkRun | null = null;
    for (let i = 0; i < n; i++) {
      const pl = planned[i];
      const c = code[i];
      if (!pretty && i > 0) body.u8(COMMA);
      if (pl.dropped) {
        // As ES: a document its pipeline dropped is a no-op with version -3 and nothing written.
        item({ [pl.item.action]: { _index: pl.item.index, _type: pl.item.type, _id: pl.id, _version: -3, result: 'noop', _shards: { total: 0, successful: 0, failed: 0 }, status: 200 } });
        continue;
      }
      const o = c === OUTCOME_OTHER ? others.get(i)! : null;
      if (pl.error !== undefined || c === OUTCOME_NOT_RUN || c === OUTCOME_PENDING || (o !== null && !('ok' in o))) {
        errors = true;
        const e = itemError(pl.error ?? (o !== null && 'err' in o ? o.err : new Error('item not executed')));
        item({ [pl.item.action]: { _index: pl.meta?.name ?? pl.item.index, _type: pl.item.type, _id: pl.id, status: e.status, error: e.error } });
        continue;
      }
      const result = o !== null ? (o as { ok: WriteResult }).ok.result : WRITE_RESULTS[c & ~OUTCOME_FORCED_REFRESH];
      if (pretty || o !== null || result === 'noop') {
        const r = o !== null ? (o as { ok: WriteResult }).ok : (outcomeAt(all, i) as { ok: WriteResult }).ok;
        const b = writeBody(pl.meta!, pl.item.type, pl.id, r);
        if (r.getSource !== undefined) b.get = { ...(r.result !== 'noop' ? { _seq_no: r.seqNo, _primary_term: r.primaryTerm } : {}), found: true, _source: new RawJson(r.getSource) };
        b.status = resultStatus(result);
        item({ [pl.item.action]: b });
        continue;
      }
      // The common case, written directly: it is most of a bulk response's bytes. The index, type and shard
      // counts are the same for a run of items: their bytes are made once per run.
      const m = pl.meta!;
      if (m !== lastMeta || pl.item.type !== lastType) {
        lastMeta = m; lastType = pl.item.type;
        run = bulkRun(m.name, lastType, 1 + numberOfReplicas(m.settings));
      }
      writePlainItem(body, pl.item.action, run!, pl.id, c & ~OUTCOME_FORCED_REFRESH, (c & OUTCOME_FORCED_REFRESH) !== 0, version[i], seqNo[i], primaryTerm[i]);
    }
    const took = Date.now() - started;
    if (pretty) return json(req, 200, { took, errors, items: objs });
    body.utf8(']}');
    const head = Buffer.from(`{"took":${took},"errors":${errors},"items":[`);
    const start = HEAD_ROOM - head.length;
    body.buf.set(head, start);
    return { status: 200, headers: JSON_HEADERS, body: body.buf.subarray(start, body.len) };
  });
  for (const path of ['/_bulk', '/:index/_bulk', '/:index/:type/_bulk']) router.add(['POST', 'PUT'], path, bulk);
}

/** Resolves each item's index (auto-creating for non-deletes), id and shard; per-item failures are kept. */
async function plan(cluster: EsCluster, items: BulkItem[], defaultRouting: string | undefined, defaultPipeline: string | undefined): Promise<Planned[]> {
  // Resolve (and auto-create) each distinct target once, before the per-item loop. An item whose pipeline
  // does not exist fails before its index would be created, as ingest runs first in ES.
  // Consecutive items mostly share a target: its key string is made once per run of them.
  let lastIndex: string | undefined, lastType: string | undefined, lastDelete = false, lastKey = '';
  const keyOf = (it: BulkItem): string => {
    const del = it.action === 'delete';
    if (it.index !== lastIndex || it.type !== lastType || del !== lastDelete || lastKey === '') {
      lastIndex = it.index; lastType = it.type; lastDelete = del;
      lastKey = `${it.index}\u0000${it.type}\u0000${del}`;
    }
    return lastKey;
  };
  const targets = new Map<string, { meta: IndexMeta | null; routing?: string } | { error: unknown }>();
  // Index and create items go through their pipeline first (it may reroute, re-id, drop or fail them).
  const ingestError = new Map<BulkItem, unknown>();
  const dropped = new Set<BulkItem>();
  for (const it of items) {
    if (it.action === 'delete' || it.action === 'update') continue;
    try {
      const ing = ingest(cluster, it.pipeline ?? defaultPipeline, it.index, it.type, it.id, it.routing ?? defaultRouting, it.source!);
      if (ing.kind === 'dropped') { dropped.add(it); continue; }
      it.index = ing.index; it.id = ing.id; it.routing = ing.routing; it.source = ing.source;
    } catch (e) { ingestError.set(it, e); }
  }
  const pipelineError = (it: BulkItem): unknown => ingestError.get(it);
  for (const it of items) {
    if (pipelineError(it) !== undefined || dropped.has(it)) continue;
    const key = keyOf(it);
    if (targets.has(key)) continue;
    try {
      validateTypeName(it.type);
      targets.set(key, await cluster.writeTarget(it.index, it.type, it.action !== 'delete'));
    } catch (e) {
      targets.set(key, { error: e });
    }
  }
  const out: Planned[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const autoId = item.id === undefined && item.action === 'index';
    const id = item.id ?? (autoId ? newDocId() : '');
    const pl: Planned = { item, meta: null, shard: 0, id, autoId };
    out[i] = pl;
    if (dropped.has(item)) { pl.dropped = true; continue; }
    try {
      const bad = pipelineError(item);
      if (bad !== undefined) throw bad;
      const t = targets.get(keyOf(item))!;
      if ('error' in t) throw t.error;
      if (item.action === 'create' && item.id === undefined) throw validationFailed(['an id must be provided if version type or value are set']);
      if (item.action !== 'index' || item.id !== undefined) checkId(id);
      if (!t.meta) throw notFoundExpr(item.index);
      // Auto-creation and type setting may have bumped the mapping version: use the latest metadata.
      const meta = cluster.state.indices[t.meta.name] ?? t.meta;
      pl.meta = meta;
      item.routing ??= defaultRouting ?? t.routing;
      routingRequired(meta, item.routing, id);
      pl.shard = shardFor(item.routing ?? id, numberOfShards(meta.settings));
    } catch (e) {
      pl.error = e;
    }
  }
  return out;
}

const NO_CONDITIONS: WriteConditions = Object.freeze({});

/** An index/create item with no routing or conditions: what `WriteColumns` carries. */
function isPlain(pl: Planned): boolean {
  const it = pl.item;
  return (it.action === 'index' || it.action === 'create') && it.routing === undefined && it.version === undefined &&
    it.versionType === undefined && it.ifSeqNo === undefined && it.ifPrimaryTerm === undefined;
}

/** The plain items `idx` of `planned` as columns; their sources are copied out, and the items let go of theirs. */
function writeColumns(planned: Planned[], idx: number[], sourceBytes: number): WriteColumns {
  const n = idx.length;
  const ids: string[] = new Array(n);
  const flags = new Uint8Array(n);
  const ends = new Uint32Array(n);
  const sources = Buffer.allocUnsafe(sourceBytes);
  let at = 0;
  for (let j = 0; j < n; j++) {
    const pl = planned[idx[j]];
    const it = pl.item;
    ids[j] = pl.id;
    flags[j] = (it.action === 'create' ? WRITE_CREATE : 0) | (pl.autoId ? WRITE_AUTO_ID : 0);
    sources.set(it.source!, at);
    at += it.source!.byteLength;
    ends[j] = at;
    it.source = undefined;
  }
  return { ids, flags, sources, ends };
}

/** The items `idx` of `planned` as WriteItems; an item that cannot be made fails alone (and leaves `idx`). */
function writeItems(planned: Planned[], idx: number[]): WriteItem[] {
  const out: WriteItem[] = [];
  let k = 0;
  for (const i of idx) {
    try {
      out.push(toWriteItem(planned[i]));
      idx[k++] = i;
    } catch (e) { planned[i].error = e; }
  }
  idx.length = k;
  return out;
}

function toWriteItem(pl: Planned): WriteItem {
  const it = pl.item;
  const c = it.version === undefined && it.versionType === undefined && it.ifSeqNo === undefined && it.ifPrimaryTerm === undefined
    ? NO_CONDITIONS : conditions(bulkCondition.bind(it));
  if (it.action === 'delete') return { action: 'delete', op: { id: pl.id, routing: it.routing, ...c } };
  if (it.action === 'update') {
    const body = Buffer.from(it.source!).toString('utf8');
    return { action: 'update', op: { id: pl.id, routing: it.routing, body, ifSeqNo: c.ifSeqNo, ifPrimaryTerm: c.ifPrimaryTerm, retryOnConflict: it.retryOnConflict, fetchSource: bulkFetch(it.fetchSource, body) } };
  }
  // The common item ({_id} and a source) crosses to the worker as just that: no empty conditions or routing.
  if (it.routing === undefined && c === NO_CONDITIONS) return { action: it.action, op: pl.autoId ? { id: pl.id, source: it.source!, autoId: true } : { id: pl.id, source: it.source! } };
  return { action: it.action, op: { id: pl.id, source: it.source!, routing: it.routing, ...c, ...(pl.autoId ? { autoId: true } : {}) } };
}

function bulkFetch(spec: unknown, body: string): WriteItem extends never ? never : import('../../engine/documents/doc-shard-types.ts').UpdateOp['fetchSource'] {
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

/** Reads a bulk item's version fields by their URL parameter names (`this` is the item). */
function bulkCondition(this: BulkItem, k: string): string | null {
  const v = k === 'version' ? this.version : k === 'version_type' ? this.versionType : k === 'if_seq_no' ? this.ifSeqNo : k === 'if_primary_term' ? this.ifPrimaryTerm : undefined;
  return v === undefined ? null : String(v);
}
