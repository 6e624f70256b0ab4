/**
 * `_termvectors` and `_mtermvectors`: a stored document's (or an artificial `doc`'s) terms with frequencies,
 * positions, offsets and optional statistics, computed on the shard holding the document
 * (`engine/documents/doc-term-vectors.ts`). Request parsing and the response layout follow ES 6.8's
 * `TermVectorsRequest`/`TermVectorsResponse`: URL flags override the body's, an artificial doc has no `_id`
 * and `_version` 0, term statistics are printed only for terms the shard holds.
 */
import { docError, illegalArgument, validationFailed } from '../../engine/documents/doc-errors.ts';
import type { TermVectorsRequest, TermVectorsResult } from '../../engine/documents/doc-term-vectors.ts';
import { shardFor } from '../../engine/documents/routing.ts';
import { numberOfShards } from '../../engine/documents/settings.ts';
import type { TermVectorField } from '../../engine/search/term-vectors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { errorBody } from './errors.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';

const PARAMS = ['term_statistics', 'field_statistics', 'fields', 'offsets', 'positions', 'payloads', 'preference', 'routing', 'parent',
  'realtime', 'version', 'version_type'];
const MPARAMS = [...PARAMS, 'ids'];
const FLAGS = ['offsets', 'positions', 'payloads', 'term_statistics', 'field_statistics'] as const;

/** One document's request as parsed: where it goes and what the shard computes. */
interface Item { index: string; type: string; routing: string | null; tv: TermVectorsRequest }

export function registerTermVectorsRoutes(router: Router, cluster: EsCluster): void {
  const one = route(PARAMS, (req, p) => single(cluster, req, p));
  for (const path of ['/:index/:type/_termvectors', '/:index/:type/:id/_termvectors', '/:index/_termvectors', '/:index/_termvectors/:id']) {
    router.add(['GET', 'POST'], path, one);
  }
  const many = route(MPARAMS, (req, p) => multi(cluster, req, p));
  for (const path of ['/_mtermvectors', '/:index/_mtermvectors', '/:index/:type/_mtermvectors']) router.add(['GET', 'POST'], path, many);
}

async function single(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const started = Date.now();
  const it = template(req, p);
  const body = bodyMap(req);
  if (body) parseInto(it, body);
  applyUrl(it, req);
  if (it.tv.id === null && it.tv.doc === null) throw validationFailed(['id or doc is missing']);
  const r = await compute(cluster, it);
  return json(req, 200, render(it, r, Date.now() - started));
}

async function multi(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const started = Date.now();
  const body = bodyMap(req) ?? {};
  const items: Item[] = [];
  const urlIds = req.query.get('ids');
  for (const [k, v] of Object.entries(body)) {
    if (k === 'docs') {
      if (!Array.isArray(v)) throw docError('DOC_PARSE', ['docs array element should include an object']);
      for (const d of v) {
        if (typeof d !== 'object' || d === null || Array.isArray(d)) throw docError('DOC_PARSE', ['docs array element should include an object']);
        const it = template(req, p);
        parseInto(it, d as Record<string, unknown>);
        applyUrl(it, req);
        items.push(it);
      }
    } else if (k === 'ids') {
      if (!Array.isArray(v)) throw docError('DOC_PARSE', ['ids array element should only contain ids']);
      const params = body.parameters as Record<string, unknown> | undefined;
      for (const id of v) {
        const it = template(req, p);
        if (params) parseInto(it, params);
        it.tv.id = String(id);
        applyUrl(it, req);
        items.push(it);
      }
    } else if (k !== 'parameters') {
      throw docError('DOC_PARSE', [`no parameter named [${k}] and type ${Array.isArray(v) ? 'START_ARRAY' : 'VALUE'}`]);
    }
  }
  if (urlIds !== null && items.length === 0) {
    for (const id of urlIds.split(',')) { const it = template(req, p); it.tv.id = id; applyUrl(it, req); items.push(it); }
  }
  if (items.length === 0) throw validationFailed(['multi term vectors: no documents requested']);
  const docs = await Promise.all(items.map(async (it) => {
    try {
      if (!it.index) throw validationFailed(['index is missing']);
      if (it.tv.id === null && it.tv.doc === null) throw validationFailed(['id or doc is missing']);
      return render(it, await compute(cluster, it), Date.now() - started);
    } catch (err) {
      return { _index: it.index, _type: it.type, _id: it.tv.id, error: errorBody(err).error };
    }
  }));
  return json(req, 200, { docs });
}

function template(req: HttpRequest, p: Params): Item {
  return {
    index: p.index ?? '', type: p.type ?? '_doc', routing: req.query.get('routing'),
    tv: { id: p.id ?? null, doc: null, realtime: req.query.get('realtime') !== 'false', fields: null,
      positions: true, offsets: true, payloads: true, termStatistics: false, fieldStatistics: true, perFieldAnalyzer: null },
  };
}

const BOTH = 'failed to parse term vectors request. either [id] or [doc] can be specified, but not both!';

/** The body's keys (ES's `TermVectorsRequest.parseRequest`). */
function parseInto(it: Item, b: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(b)) {
    switch (k) {
      case 'fields':
        if (!Array.isArray(v)) throw docError('DOC_PARSE', ['failed to parse term vectors request. field [fields] must be an array']);
        it.tv.fields = v.map(String); break;
      case 'offsets': it.tv.offsets = v === true || v === 'true'; break;
      case 'positions': it.tv.positions = v === true || v === 'true'; break;
      case 'payloads': it.tv.payloads = v === true || v === 'true'; break;
      case 'term_statistics': case 'termStatistics': it.tv.termStatistics = v === true || v === 'true'; break;
      case 'field_statistics': case 'fieldStatistics': it.tv.fieldStatistics = v === true || v === 'true'; break;
      case 'dfs': throw illegalArgument('distributed frequencies is not supported anymore for term vectors');
      case 'per_field_analyzer': it.tv.perFieldAnalyzer = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([f, a]) => [f, String(a)])); break;
      case 'doc':
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw docError('DOC_PARSE', ['failed to parse term vectors request. field [doc] must be an object']);
        if (it.tv.id !== null) throw docError('DOC_PARSE', [BOTH]);
        it.tv.doc = v as Record<string, unknown>; break;
      case '_id':
        if (it.tv.doc !== null) throw docError('DOC_PARSE', [BOTH]);
        it.tv.id = String(v); break;
      case '_index': it.index = String(v); break;
      case '_type': it.type = String(v); break;
      case 'routing': case '_routing': it.routing = String(v); break;
      case 'version': case '_version': case 'version_type': case '_version_type': case 'filter': break;
      default: throw docError('DOC_PARSE', [`failed to parse term vectors request. unknown field [${k}]`]);
    }
  }
}

/** URL parameters win over the body (ES reads them after it). */
function applyUrl(it: Item, req: HttpRequest): void {
  const fields = req.query.get('fields');
  if (fields !== null) it.tv.fields = [...(it.tv.fields ?? []), ...fields.split(',').map((s) => s.trim()).filter(Boolean)];
  for (const f of FLAGS) {
    const v = req.query.get(f);
    if (v === null) continue;
    const on = v === '' || v === 'true';
    if (f === 'term_statistics') it.tv.termStatistics = on;
    else if (f === 'field_statistics') it.tv.fieldStatistics = on;
    else it.tv[f] = on;
  }
}

async function compute(cluster: EsCluster, it: Item): Promise<{ index: string; r: TermVectorsResult }> {
  const resolved = cluster.resolveForRead(it.index, { resourceType: 'index_expression', data: true });
  if (resolved.length !== 1) throw illegalArgument(`Alias [${it.index}] has more than one indices associated with it [[${resolved.map((r) => r.name).join(', ')}]], can't execute a single index op`);
  const meta = cluster.state.indices[resolved[0].name];
  const routing = it.routing ?? resolved[0].searchRouting ?? null;
  // ES sends an artificial doc without routing to any shard; Tessera uses the first, so answers are repeatable.
  const shard = it.tv.id === null && routing === null ? 0 : shardFor(routing ?? it.tv.id!, numberOfShards(meta.settings));
  if (meta.type !== null && it.type !== '_all' && it.type !== meta.type && it.tv.id !== null) {
    return { index: meta.name, r: { found: false, version: 0, fields: [] } };
  }
  return { index: meta.name, r: await cluster.shardCall(meta, shard, 'docs.termvectors', it.tv) };
}

function render(it: Item, c: { index: string; r: TermVectorsResult }, tookMs: number): Record<string, unknown> {
  const out: Record<string, unknown> = { _index: c.index, _type: it.type };
  if (it.tv.id !== null) out._id = it.tv.id;
  out._version = c.r.version;
  out.found = c.r.found;
  out.took = tookMs;
  if (!c.r.found) return out;
  const tv: Record<string, unknown> = {};
  for (const f of c.r.fields) tv[f.field] = renderField(f);
  out.term_vectors = tv;
  return out;
}

function renderField(f: TermVectorField): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (f.stats) o.field_statistics = { sum_doc_freq: f.stats.sumDocFreq, doc_count: f.stats.docCount, sum_ttf: f.stats.sumTtf };
  const terms: Record<string, unknown> = {};
  for (const t of f.terms) {
    const e: Record<string, unknown> = {};
    // ES prints term statistics only when positive (it cannot tell "not asked" from "not in the shard").
    if (t.docFreq > 0) { e.doc_freq = t.docFreq; e.ttf = t.ttf; }
    e.term_freq = t.termFreq;
    if (t.positions || t.startOffsets) {
      const tokens: Record<string, number>[] = [];
      for (let i = 0; i < t.termFreq; i++) {
        const tok: Record<string, number> = {};
        if (t.positions) tok.position = t.positions[i];
        if (t.startOffsets) { tok.start_offset = t.startOffsets[i]; tok.end_offset = t.endOffsets![i]; }
        tokens.push(tok);
      }
      e.tokens = tokens;
    }
    terms[t.term] = e;
  }
  o.terms = terms;
  return o;
}
