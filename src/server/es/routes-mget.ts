/**
 * `_mget`: many documents in one request, by `docs` (each naming its index, type, id, routing and `_source`)
 * or by `ids` against the index and type in the path. A document that cannot be read (its index missing, an
 * alias naming several indices) gets an `error` entry in its place; the request as a whole fails only when it
 * is malformed, as in Elasticsearch 6.8.
 */
import { docError, validationFailed } from '../../engine/documents/doc-errors.ts';
import type { StoredDoc } from '../../engine/documents/doc-shard-types.ts';
import { filterSource, parseLossless, sourceFilterOf, stringifyLossless } from '../../engine/documents/source.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster } from './cluster.ts';
import { errorBody } from './errors.ts';
import { bodyMap, route } from './handler.ts';
import { json, RawJson } from './json.ts';
import { listParam } from './params.ts';
import { lookup } from './routes-docs.ts';

const MGET_PARAMS = ['_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude', 'stored_fields',
  'routing', 'realtime', 'refresh', 'preference'];
/** Reads in flight at once for one request (a long `ids` list must not flood the shard queues). */
const CONCURRENT_READS = 64;

/** What of `_source` to return: none, all, or a filter. */
type SourceSpec = false | true | { includes: string[]; excludes: string[] };

interface Item { index?: string; type: string; id: string; routing: string | null; source: SourceSpec; storedFields: boolean }

export function registerMgetRoutes(router: Router, cluster: EsCluster): void {
  const mget = route(MGET_PARAMS, (req, p) => multiGet(cluster, req, p));
  for (const path of ['/_mget', '/:index/_mget', '/:index/:type/_mget']) router.add(['GET', 'POST'], path, mget);
}

async function multiGet(cluster: EsCluster, req: HttpRequest, p: Params): Promise<HttpResponse> {
  const items = parseItems(req, p);
  const out: unknown[] = new Array(items.length);
  for (let start = 0; start < items.length; start += CONCURRENT_READS) {
    await Promise.all(items.slice(start, start + CONCURRENT_READS).map(async (it, k) => {
      out[start + k] = await readOne(cluster, it);
    }));
  }
  return json(req, 200, { docs: out });
}

async function readOne(cluster: EsCluster, it: Item): Promise<unknown> {
  const index = it.index!;
  try {
    const found = await lookup(cluster, index, it.type, it.id, it.routing);
    if (!found.doc) return { _index: found.index, _type: found.type, _id: it.id, found: false };
    return foundBody(found.index, found.type, it, found.doc);
  } catch (err) {
    const { error } = errorBody(err);
    return { _index: index, _type: it.type === '_all' ? '_doc' : it.type, _id: it.id, error };
  }
}

function foundBody(index: string, type: string, it: Item, d: StoredDoc): Record<string, unknown> {
  const b: Record<string, unknown> = { _index: index, _type: type, _id: it.id, _version: d.version, _seq_no: d.seqNo, _primary_term: d.primaryTerm };
  if (d.routing !== undefined) b._routing = d.routing;
  b.found = true;
  const spec = it.storedFields && it.source === true ? false : it.source;
  if (spec === false) return b;
  const text = Buffer.from(d.source.buffer, d.source.byteOffset, d.source.byteLength).toString('utf8');
  const f = spec === true ? null : sourceFilterOf(spec.includes, spec.excludes);
  b._source = new RawJson(f ? stringifyLossless(filterSource(parseLossless(text), f)) : text);
  return b;
}

/** The request's documents, with the path's index and type and the URL's `_source`/`routing` as defaults. */
function parseItems(req: HttpRequest, p: Params): Item[] {
  const body = bodyMap(req) ?? {};
  const defaults = urlSource(req);
  const routing = req.query.get('routing');
  const storedFields = req.query.has('stored_fields');
  const items: Item[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k === 'docs') {
      if (!Array.isArray(v)) throw docError('DOC_PARSE', [`docs array element should include an object`]);
      for (const d of v) {
        if (typeof d !== 'object' || d === null || Array.isArray(d)) throw docError('DOC_ILLEGAL_ARGUMENT', ['docs array element should include an object']);
        items.push(docItem(d as Record<string, unknown>, p, defaults, routing, storedFields));
      }
    } else if (k === 'ids') {
      if (!Array.isArray(v)) throw docError('DOC_ILLEGAL_ARGUMENT', ['ids array element should only contain ids']);
      for (const id of v) {
        if (typeof id !== 'string' && typeof id !== 'number') throw docError('DOC_ILLEGAL_ARGUMENT', ['ids array element should only contain ids']);
        items.push({ index: p.index, type: p.type ?? '_all', id: String(id), routing, source: defaults, storedFields });
      }
    } else {
      throw docError('DOC_PARSE', [`unknown key [${k}] for a ${Array.isArray(v) ? 'START_ARRAY' : typeof v === 'object' && v !== null ? 'START_OBJECT' : 'VALUE'}, expected [docs] or [ids].`]);
    }
  }
  const problems: string[] = [];
  if (items.length === 0) problems.push('no documents to get');
  items.forEach((it, i) => {
    if (!it.index) problems.push(`index is missing for doc ${i}`);
    if (it.id === '') problems.push(`id is missing for doc ${i}`);
  });
  if (problems.length) throw validationFailed(problems);
  return items;
}

function docItem(d: Record<string, unknown>, p: Params, defaults: SourceSpec, routing: string | null, storedFields: boolean): Item {
  for (const k of Object.keys(d)) {
    if (!['_index', '_type', '_id', 'routing', '_routing', '_source', 'stored_fields', 'version', 'version_type', '_version', '_version_type', 'parent', '_parent'].includes(k)) {
      throw docError('DOC_PARSE', [`Unknown key for a VALUE_STRING in [${k}].`]);
    }
  }
  const r = d.routing ?? d._routing;
  return {
    index: d._index === undefined ? p.index : String(d._index),
    type: d._type === undefined ? p.type ?? '_all' : String(d._type),
    id: d._id === undefined || d._id === null ? '' : String(d._id),
    routing: r === undefined || r === null ? routing : String(r),
    source: d._source === undefined ? defaults : sourceSpecOf(d._source),
    storedFields: d.stored_fields !== undefined || storedFields,
  };
}

function urlSource(req: HttpRequest): SourceSpec {
  const s = req.query.get('_source');
  if (s === 'false') return false;
  const includes = s !== null && s !== 'true' && s !== '' ? s.split(',') : listParam(req, '_source_includes') ?? listParam(req, '_source_include') ?? [];
  const excludes = listParam(req, '_source_excludes') ?? listParam(req, '_source_exclude') ?? [];
  return includes.length || excludes.length ? { includes, excludes } : true;
}

function sourceSpecOf(v: unknown): SourceSpec {
  if (v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  if (typeof v === 'string') return { includes: v.split(','), excludes: [] };
  if (Array.isArray(v)) return { includes: v.map(String), excludes: [] };
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const l = (x: unknown): string[] => (x === undefined ? [] : Array.isArray(x) ? x.map(String) : [String(x)]);
    return { includes: l(o.includes ?? o.include), excludes: l(o.excludes ?? o.exclude) };
  }
  throw docError('DOC_PARSE', [`Unknown _source value [${String(v)}]`]);
}
