/**
 * Field metadata endpoints Kibana, Grafana and the clients call: `_field_caps` (each field's type per index,
 * whether it is searchable and aggregatable, with the indices listed where they differ, as ES 6.8 answers)
 * and `_mapping/field/{fields}` (the mapping of matching fields by full name).
 */
import { simpleMatch } from '../../engine/documents/cluster-state.ts';
import { validationFailed } from '../../engine/documents/doc-errors.ts';
import type { FieldMappingJson } from '../../engine/search/api.ts';
import { FieldInfos, NUMERIC_TYPES } from '../../engine/search/index.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import type { EsCluster, ResolvedIndex } from './cluster.ts';
import { bodyMap, route } from './handler.ts';
import { json } from './json.ts';
import { withMappingDefaults } from './field-mapping-defaults.ts';
import { boolParam } from './params.ts';
import { readOpts, typelessParam } from './routes-indices.ts';

const EXPAND = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];
/** Metadata fields `_field_caps` reports, with their type and capabilities in ES 6.8. */
const META_FIELDS: [string, string, boolean, boolean][] = [
  ['_id', '_id', true, true], ['_index', '_index', true, true], ['_type', '_type', true, true], ['_routing', '_routing', true, false],
  ['_source', '_source', false, false], ['_seq_no', '_seq_no', true, true], ['_version', '_version', false, false],
  ['_field_names', '_field_names', true, false], ['_ignored', '_ignored', true, false], ['_parent', '_parent', true, false],
];

export function registerFieldCapsRoutes(router: Router, cluster: EsCluster): void {
  const caps = route(['fields', ...EXPAND], (req, p) => fieldCaps(cluster, req, p));
  for (const path of ['/_field_caps', '/:index/_field_caps']) router.add(['GET', 'POST'], path, caps);
  const fieldMapping = route(['include_defaults', 'include_type_name', 'local', ...EXPAND], (req, p) => mappingOfFields(cluster, req, p));
  for (const path of ['/_mapping/field/:fields', '/:index/_mapping/field/:fields', '/_mapping/:type/field/:fields', '/:index/_mapping/:type/field/:fields']) {
    router.add('GET', path, fieldMapping);
  }
}

function resolve(cluster: EsCluster, req: HttpRequest, expr: string | undefined): ResolvedIndex[] {
  return cluster.resolveForRead(expr === undefined || expr === '' ? '_all' : expr, { ...readOpts(req), data: true });
}

function fieldCaps(cluster: EsCluster, req: HttpRequest, p: Params): HttpResponse {
  const body = bodyMap(req) ?? {};
  const raw = req.query.get('fields') ?? (body.fields === undefined ? null : ([] as unknown[]).concat(body.fields).join(','));
  if (raw === null || raw === '') throw validationFailed(['specified fields can\'t be null or empty']);
  const patterns = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const matches = (f: string): boolean => patterns.some((pat) => simpleMatch(pat, f));
  // field → type → the indices with that type and their capabilities
  const caps = new Map<string, Map<string, { indices: string[]; searchable: string[]; aggregatable: string[] }>>();
  const note = (field: string, type: string, index: string, searchable: boolean, aggregatable: boolean): void => {
    let byType = caps.get(field);
    if (!byType) caps.set(field, byType = new Map());
    let e = byType.get(type);
    if (!e) byType.set(type, e = { indices: [], searchable: [], aggregatable: [] });
    e.indices.push(index);
    if (searchable) e.searchable.push(index);
    if (aggregatable) e.aggregatable.push(index);
  };
  for (const idx of resolve(cluster, req, p.index)) {
    const infos = new FieldInfos(idx.mapping);
    for (const [path, fi] of infos.fields) {
      if (!matches(path)) continue;
      const aggregatable = fi.type === 'keyword' || NUMERIC_TYPES.has(fi.type) || fi.type === 'date' || fi.type === 'boolean' || fi.type === 'ip' || (fi.type === 'text' && fi.fielddata);
      note(path, fi.type, idx.name, fi.indexed, aggregatable);
    }
    for (const [path, kind] of infos.objects) if (matches(path)) note(path, kind, idx.name, false, false);
    for (const [name, type, s, a] of META_FIELDS) if (matches(name)) note(name, type, idx.name, s, a);
  }
  const fields: Record<string, unknown> = {};
  for (const name of [...caps.keys()].sort()) {
    const byType = caps.get(name)!;
    const out: Record<string, unknown> = {};
    const multi = byType.size > 1;
    for (const [type, e] of byType) {
      const c: Record<string, unknown> = { type, searchable: e.searchable.length === e.indices.length, aggregatable: e.aggregatable.length === e.indices.length };
      // As ES: `indices` only when the field has more than one type; the partial lists only when they are partial.
      if (multi) c.indices = e.indices;
      if (e.searchable.length && e.searchable.length < e.indices.length) c.non_searchable_indices = e.indices.filter((i) => !e.searchable.includes(i));
      if (e.aggregatable.length && e.aggregatable.length < e.indices.length) c.non_aggregatable_indices = e.indices.filter((i) => !e.aggregatable.includes(i));
      out[type] = c;
    }
    fields[name] = out;
  }
  return json(req, 200, { fields });
}

function mappingOfFields(cluster: EsCluster, req: HttpRequest, p: Params): HttpResponse {
  const patterns = p.fields.split(',');
  const defaults = boolParam(req, 'include_defaults');
  const typeless = typelessParam(req);
  const out: Record<string, unknown> = {};
  for (const idx of resolve(cluster, req, p.index)) {
    const types = p.type === undefined || p.type === '_all' || p.type === '*' ? null : p.type.split(',');
    if (idx.type === null || (types && !types.includes(idx.type))) { out[idx.name] = { mappings: {} }; continue; }
    const found: Record<string, unknown> = {};
    visit(idx.mapping.properties ?? {}, '', (full, leaf, m) => {
      if (!patterns.some((pat) => simpleMatch(pat, full))) return;
      found[full] = { full_name: full, mapping: { [leaf]: defaults ? withMappingDefaults(m) : m } };
    });
    out[idx.name] = { mappings: typeless ? found : { [idx.type]: found } };
  }
  return json(req, 200, out);
}

/** Calls `fn` for every field of a mapping (objects, leaves and multi-fields) with its full name. */
function visit(props: Record<string, FieldMappingJson>, prefix: string, fn: (full: string, leaf: string, m: FieldMappingJson) => void): void {
  for (const [name, m] of Object.entries(props)) {
    const full = prefix + name;
    fn(full, name, m);
    if (m.properties) visit(m.properties, `${full}.`, fn);
    for (const [sub, sm] of Object.entries(m.fields ?? {})) fn(`${full}.${sub}`, sub, sm);
  }
}
