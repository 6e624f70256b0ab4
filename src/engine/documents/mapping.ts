/**
 * Explicit mappings: validation of a type mapping as ES 6.8's type parsers do (known types, supported
 * parameters per type, analyzers), merging an update into the current mapping (adding fields, refusing type
 * changes), and the rendering GET returns (properties sorted by name, object fields without `type`).
 */
import type { FieldMappingJson, MappingJson } from '../search/api.ts';
import { illegalArgument, mapperParsing } from './doc-errors.ts';
import { compileDynamicTemplates } from './dynamic-templates.ts';

const COMMON = ['type', 'index', 'store', 'doc_values', 'boost', 'null_value', 'copy_to', 'fields', 'include_in_all', 'similarity'];
const NUMERIC = [...COMMON, 'coerce', 'ignore_malformed'];
const PARAMS: Record<string, string[]> = {
  text: [...COMMON, 'analyzer', 'search_analyzer', 'search_quote_analyzer', 'fielddata', 'fielddata_frequency_filter',
    'index_options', 'index_prefixes', 'index_phrases', 'norms', 'position_increment_gap', 'term_vector', 'eager_global_ordinals'],
  keyword: [...COMMON, 'ignore_above', 'normalizer', 'norms', 'eager_global_ordinals', 'index_options', 'split_queries_on_whitespace'],
  long: NUMERIC, integer: NUMERIC, short: NUMERIC, byte: NUMERIC, double: NUMERIC, float: NUMERIC, half_float: NUMERIC,
  scaled_float: [...NUMERIC, 'scaling_factor'],
  date: [...COMMON, 'format', 'locale', 'ignore_malformed'],
  boolean: COMMON,
  ip: [...COMMON, 'ignore_malformed'],
  // Stored and validated; not indexed for geo queries (not supported).
  geo_point: ['type', 'ignore_malformed', 'ignore_z_value', 'null_value', 'store', 'doc_values'],
  binary: ['type', 'store', 'doc_values'],
  completion: ['type', 'analyzer', 'search_analyzer', 'preserve_separators', 'preserve_position_increments', 'max_input_length'],
  object: ['type', 'properties', 'dynamic', 'enabled', 'include_in_all'],
  nested: ['type', 'properties', 'dynamic', 'enabled', 'include_in_parent', 'include_in_root', 'include_in_all'],
};
export const NUMERIC_TYPES = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'half_float', 'scaled_float']);

const ROOT_PARAMS = new Set(['properties', 'dynamic', 'date_detection', 'numeric_detection', 'dynamic_date_formats',
  'dynamic_templates', '_source', '_routing', '_meta', '_all', '_field_names', 'enabled', 'include_in_all']);

const BUILTIN_ANALYZERS = new Set(['standard', 'simple', 'whitespace', 'stop', 'keyword', 'pattern', 'fingerprint', 'english',
  'snowball', 'ik_smart', 'ik_max_word', 'default']);

/** Java `Map.toString` rendering used in "unsupported parameters" reasons. */
export function javaString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(javaString).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as object).map(([k, x]) => `${k}=${javaString(x)}`).join(', ')}}`;
  return String(v);
}

function unsupported(entries: [string, unknown][]): string {
  return entries.map(([k, v]) => `[${k} : ${javaString(v)}]`).join(', ');
}

export interface MappingContext {
  /** Analyzer names defined in the index settings (`index.analysis.analyzer.<name>.*`). */
  customAnalyzers: Set<string>;
}

/** Validates a root (type-level) mapping body; throws the inner `mapper_parsing_exception`. */
export function validateRootMapping(body: unknown, ctx: MappingContext): MappingJson {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw mapperParsing('Root mapping definition must be an object');
  const m = body as MappingJson;
  const bad = Object.entries(m).filter(([k]) => !ROOT_PARAMS.has(k));
  if (bad.length) throw mapperParsing(`Root mapping definition has unsupported parameters:  ${unsupported(bad)}`);
  if (m.dynamic !== undefined) checkDynamic(m.dynamic, '_doc');
  if (m.properties !== undefined) validateProperties(m.properties, '', ctx);
  compileDynamicTemplates(m.dynamic_templates);
  return m;
}

function checkDynamic(v: unknown, field: string): void {
  const s = String(v);
  if (s !== 'true' && s !== 'false' && s !== 'strict') {
    throw mapperParsing(`Could not convert [${field}.dynamic] to boolean`);
  }
}

function validateProperties(props: unknown, prefix: string, ctx: MappingContext): void {
  if (typeof props !== 'object' || props === null || Array.isArray(props)) throw mapperParsing(`Expected map for property [properties] on field [${prefix || '_doc'}] but got a class java.lang.String`);
  for (const [name, def] of Object.entries(props as Record<string, unknown>)) {
    // ES's mapper builders refuse an empty name with an IllegalArgumentException (not a parsing error).
    if (name === '') throw illegalArgument('name cannot be empty string');
    validateField(name, prefix + name, def, ctx);
  }
}

function validateField(name: string, path: string, def: unknown, ctx: MappingContext): void {
  if (typeof def !== 'object' || def === null || Array.isArray(def)) {
    throw mapperParsing(`Expected map for property [fields] on field [${name}] but got a class java.lang.String`);
  }
  const f = def as FieldMappingJson;
  const type = f.type ?? (f.properties !== undefined ? 'object' : undefined);
  if (type === undefined) throw mapperParsing(`No type specified for field [${name}]`);
  const allowed = PARAMS[type];
  if (!allowed) throw mapperParsing(`No handler for type [${type}] declared on field [${name}]`);
  const bad = Object.entries(f).filter(([k]) => !allowed.includes(k));
  if (bad.length) throw mapperParsing(`Mapping definition for [${name}] has unsupported parameters:  ${unsupported(bad)}`);
  for (const key of ['analyzer', 'search_analyzer', 'search_quote_analyzer'] as const) {
    const a = f[key];
    if (a !== undefined && !BUILTIN_ANALYZERS.has(String(a)) && !ctx.customAnalyzers.has(String(a))) {
      throw mapperParsing(`analyzer [${a}] not found for field [${name}]`);
    }
  }
  if (f.search_analyzer !== undefined && f.analyzer === undefined) {
    throw mapperParsing(`analyzer on field [${name}] must be set when search_analyzer is set`);
  }
  if (f.dynamic !== undefined) checkDynamic(f.dynamic, name);
  if (f.properties !== undefined) validateProperties(f.properties, `${path}.`, ctx);
  if (f.fields !== undefined) {
    if (typeof f.fields !== 'object' || f.fields === null) throw mapperParsing(`Expected map for property [fields] on field [${name}]`);
    for (const [sub, sd] of Object.entries(f.fields)) {
      validateField(sub, `${path}.${sub}`, sd, ctx);
      const st = (sd as FieldMappingJson).type ?? 'object';
      if (st === 'object' || st === 'nested') throw mapperParsing(`Type [${st}] cannot be used in multi field`);
    }
  }
}

/** The effective type of a field definition (`object` when only `properties`). */
export const typeOf = (f: FieldMappingJson): string => f.type ?? 'object';

const CONFLICT_PARAMS = ['analyzer', 'search_analyzer', 'index', 'store', 'doc_values', 'format', 'normalizer', 'norms'];

/**
 * Merges `update` into `current` (both root mappings) and returns a new mapping; `current` is not changed.
 * Throws `illegal_argument_exception` on type changes and conflicting parameters, as ES's merge does.
 */
export function mergeMapping(current: MappingJson, update: MappingJson): MappingJson {
  const out: MappingJson = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (k === 'properties') out.properties = mergeProps(current.properties ?? {}, v as Record<string, FieldMappingJson>, '');
    else out[k] = v;
  }
  return out;
}

function mergeProps(cur: Record<string, FieldMappingJson>, upd: Record<string, FieldMappingJson>, prefix: string): Record<string, FieldMappingJson> {
  const out: Record<string, FieldMappingJson> = { ...cur };
  for (const [name, u] of Object.entries(upd)) {
    const c = cur[name];
    out[name] = c ? mergeField(c, u, prefix + name) : u;
  }
  return out;
}

function mergeField(c: FieldMappingJson, u: FieldMappingJson, path: string): FieldMappingJson {
  const ct = typeOf(c);
  const ut = u.type ?? (ct === 'nested' && u.properties ? 'nested' : typeOf(u));
  const cObj = ct === 'object' || ct === 'nested';
  const uObj = ut === 'object' || ut === 'nested';
  if (cObj !== uObj) {
    throw illegalArgument(cObj ? `can't merge a non object mapping [${path}] with an object mapping [${path}]`
      : `mapper [${path}] of different type, current_type [${ct}], merged_type [ObjectMapper]`);
  }
  if (cObj) {
    if (ct !== ut) throw illegalArgument(`object mapping [${path}] can't be changed from ${ct === 'nested' ? 'nested to non-nested' : 'non-nested to nested'}`);
    const out: FieldMappingJson = { ...c };
    for (const [k, v] of Object.entries(u)) {
      if (k === 'properties') out.properties = mergeProps(c.properties ?? {}, v as Record<string, FieldMappingJson>, `${path}.`);
      else if (k !== 'type') out[k] = v;
    }
    return out;
  }
  if (ct !== ut) throw illegalArgument(`mapper [${path}] of different type, current_type [${ct}], merged_type [${ut}]`);
  const conflicts: string[] = [];
  for (const p of CONFLICT_PARAMS) {
    if (u[p] !== undefined && JSON.stringify(u[p]) !== JSON.stringify(c[p] ?? defaultParam(ct, p))) conflicts.push(`mapper [${path}] has different [${p}]`);
  }
  if (conflicts.length) throw illegalArgument(`Mapper for [${path}] conflicts with existing mapping:\n[${conflicts.join(', ')}]`);
  const out: FieldMappingJson = { ...c };
  for (const [k, v] of Object.entries(u)) {
    if (k === 'fields') out.fields = mergeProps(c.fields ?? {}, v as Record<string, FieldMappingJson>, `${path}.`);
    else out[k] = v;
  }
  return out;
}

function defaultParam(type: string, p: string): unknown {
  if (p === 'index' || p === 'doc_values') return true;
  if (p === 'store') return false;
  if (p === 'analyzer' && type === 'text') return 'default';
  return undefined;
}

/** GET rendering: properties and multi-fields sorted by name; object fields print only `properties`. */
export function renderMapping(m: MappingJson): MappingJson {
  const out: MappingJson = {};
  for (const [k, v] of Object.entries(m)) if (k !== 'properties') out[k] = v;
  if (m.properties && Object.keys(m.properties).length) out.properties = renderProps(m.properties);
  return out;
}

function renderProps(p: Record<string, FieldMappingJson>): Record<string, FieldMappingJson> {
  const out: Record<string, FieldMappingJson> = {};
  for (const name of Object.keys(p).sort()) out[name] = renderField(p[name]);
  return out;
}

function renderField(f: FieldMappingJson): FieldMappingJson {
  const out: FieldMappingJson = {};
  if (f.type !== undefined && f.type !== 'object') out.type = f.type;
  // ES's CompletionFieldMapper always prints its settings, defaults included.
  if (f.type === 'completion') {
    out.analyzer = f.analyzer ?? 'simple';
    if (f.search_analyzer !== undefined && f.search_analyzer !== out.analyzer) out.search_analyzer = f.search_analyzer;
    out.preserve_separators = f.preserve_separators ?? true;
    out.preserve_position_increments = f.preserve_position_increments ?? true;
    out.max_input_length = f.max_input_length ?? 50;
    return out;
  }
  for (const [k, v] of Object.entries(f)) if (k !== 'type' && k !== 'fields' && k !== 'properties') out[k] = v;
  if (f.fields) out.fields = renderProps(f.fields);
  if (f.properties) out.properties = renderProps(f.properties);
  return out;
}

/** Counts mapped fields (objects, leaves and multi-fields) for `index.mapping.total_fields.limit`. */
export function countFields(m: MappingJson): number {
  let n = 0;
  const walk = (p: Record<string, FieldMappingJson> | undefined): void => {
    if (!p) return;
    for (const f of Object.values(p)) { n++; walk(f.properties); walk(f.fields); }
  };
  walk(m.properties);
  return n;
}
