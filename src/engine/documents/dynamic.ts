/**
 * Parsing a document against its mapping: validates (and coerces, for the search index) values of mapped
 * fields, and builds the dynamic mapping update for unseen fields exactly as ES 6.8's dynamic mapper
 * (strings → text + keyword sub-field, integers → long, decimals → float, date detection, `dynamic`
 * true/false/strict inherited through objects).
 *
 * Numbers arrive either as JS numbers (fast path, `JSON.parse`) or as lossless numbers carrying their
 * spelling. Only the spelling tells `1.0` (float) from `1` (long), so when an unmapped number is met in a
 * fast-parsed document the walk throws `NEED_LOSSLESS` and the caller re-parses losslessly.
 */
import type { FieldMappingJson, MappingJson } from '../search/api.ts';
import { cause, docError, mapperParsing } from './doc-errors.ts';
import { DEFAULT_DATE_FORMAT, DEFAULT_DYNAMIC_DATE_FORMATS, detectDate, parseDateOrNull } from '../analysis/date-format.ts';
import { NUMERIC_TYPES, typeOf } from './mapping.ts';
import { templateMapping, type DynamicType } from './dynamic-templates.ts';
import { parseGeoPoint } from '../indexing/geo-point.ts';
import type { ErrorCause } from './doc-errors.ts';

export const NEED_LOSSLESS = Symbol('need lossless parse');

/** The shape of lossless-json's LosslessNumber, without importing it here. */
interface LosslessNum { isLosslessNumber: true; value: string }
const isLossless = (v: unknown): v is LosslessNum => typeof v === 'object' && v !== null && (v as LosslessNum).isLosslessNumber === true;

interface Walk {
  root: MappingJson;
  typeName: string;
  dateFormats: string[];
  dateDetection: boolean;
  numericDetection: boolean;
}

/**
 * Returns the mapping update the document needs (null when none). Throws mapper/strict errors, or
 * `NEED_LOSSLESS` (a symbol) when the number spelling matters and `doc` was parsed lossy.
 */
export function dynamicUpdate(mapping: MappingJson, typeName: string, doc: Record<string, unknown>): MappingJson | null {
  const w = walkOf(mapping, typeName);
  const delta: Record<string, FieldMappingJson> = {};
  walkObject(w, mapping.properties, dynamicOf(mapping.dynamic, 'true'), doc, '', typeName, delta);
  return hasKeys(delta) ? { properties: delta } : null;
}

/**
 * The walk settings of the last mapping seen (every document of a bulk load is checked against the same one),
 * with the raw root settings they were derived from, compared again in case the object was changed in place.
 */
let lastWalk: (Walk & { raw: [unknown, unknown, unknown] }) | null = null;

function walkOf(mapping: MappingJson, typeName: string): Walk {
  const l = lastWalk;
  if (l !== null && l.root === mapping && l.typeName === typeName && l.raw[0] === mapping.dynamic_date_formats
    && l.raw[1] === mapping.date_detection && l.raw[2] === mapping.numeric_detection) return l;
  lastWalk = {
    raw: [mapping.dynamic_date_formats, mapping.date_detection, mapping.numeric_detection],
    root: mapping,
    typeName,
    dateFormats: (mapping.dynamic_date_formats as string[] | undefined) ?? DEFAULT_DYNAMIC_DATE_FORMATS,
    dateDetection: mapping.date_detection !== false && mapping.date_detection !== 'false',
    numericDetection: mapping.numeric_detection === true || mapping.numeric_detection === 'true',
  };
  return lastWalk;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

function dynamicOf(v: unknown, inherited: string): string {
  return v === undefined ? inherited : String(v);
}

function walkObject(w: Walk, props: Record<string, FieldMappingJson> | undefined, dyn: string, obj: Record<string, unknown>,
  prefix: string, parentName: string, delta: Record<string, FieldMappingJson>): void {
  // for…in, not Object.keys: every indexed document passes here, and the keys array was garbage per object.
  for (const rawKey in obj) {
    let key = rawKey;
    let value = obj[rawKey];
    if (key === '') throw mapperParsing('failed to parse', { cause: cause('DOC_ILLEGAL_ARGUMENT', ['field name cannot be an empty string']) });
    const dot = key.indexOf('.');
    if (dot > 0) { // "a.b": v is the object {a: {b: v}} for mapping purposes
      value = { [key.slice(dot + 1)]: value };
      key = key.slice(0, dot);
    }
    walkField(w, props, dyn, key, value, prefix, parentName, delta);
  }
}

function walkField(w: Walk, props: Record<string, FieldMappingJson> | undefined, dyn: string, key: string, value: unknown,
  prefix: string, parentName: string, delta: Record<string, FieldMappingJson>): void {
  const path = prefix + key;
  const def = props?.[key] ?? delta[key];
  if (Array.isArray(value)) {
    for (const v of value) walkField(w, props, dyn, key, v, prefix, parentName, delta);
    return;
  }
  if (def) {
    const t = typeOf(def);
    if (t === 'object' || t === 'nested') {
      if (value === null) return;
      if (typeof value !== 'object' || isLossless(value)) {
        throw mapperParsing(`object mapping for [${path}] tried to parse field [${key}] as object, but found a concrete value`);
      }
      if (def.enabled === false) return;
      const sub: Record<string, FieldMappingJson> = {};
      walkObject(w, def.properties, dynamicOf(def.dynamic, dyn), value as Record<string, unknown>, `${path}.`, path, sub);
      if (hasKeys(sub)) {
        const existing = delta[key];
        delta[key] = existing ? { ...existing, properties: { ...existing.properties, ...sub } }
          : (t === 'nested' ? { type: 'nested', properties: sub } : { properties: sub });
      }
      return;
    }
    checkValue(def, t, path, value);
    return;
  }
  if (value === null) return;
  if (dyn === 'strict') throw docError('DOC_STRICT_DYNAMIC', [key, parentName]);
  if (dyn === 'false') return;
  const inferred = infer(w, value);
  if (inferred === NEED_LOSSLESS) throw NEED_LOSSLESS;
  const fromTemplate = templateMapping(w.root.dynamic_templates, key, path, dynamicTypeOf(inferred));
  const mapped = fromTemplate ?? inferred;
  const t = typeOf(mapped);
  if (t === 'object' || t === 'nested') {
    if (typeof value !== 'object' || isLossless(value)) {
      throw mapperParsing(`object mapping for [${path}] tried to parse field [${key}] as object, but found a concrete value`);
    }
    const sub: Record<string, FieldMappingJson> = {};
    walkObject(w, mapped.properties, dynamicOf(mapped.dynamic, dyn), value as Record<string, unknown>, `${path}.`, path, sub);
    delta[key] = { ...mapped, properties: { ...mapped.properties, ...sub } };
    return;
  }
  if (fromTemplate) checkValue(fromTemplate, t, path, value);
  delta[key] = mapped;
}

/** The `match_mapping_type` word for what `infer` detected. */
function dynamicTypeOf(inferred: FieldMappingJson): DynamicType {
  switch (typeOf(inferred)) {
    case 'text': return 'string';
    case 'long': return 'long';
    case 'float': return 'double';
    case 'boolean': return 'boolean';
    case 'date': return 'date';
    default: return 'object';
  }
}

function infer(w: Walk, v: unknown): FieldMappingJson | typeof NEED_LOSSLESS {
  if (typeof v === 'boolean') return { type: 'boolean' };
  if (typeof v === 'number') return NEED_LOSSLESS;
  if (isLossless(v)) return /[.eE]/.test(v.value) ? { type: 'float' } : { type: 'long' };
  if (typeof v === 'string') {
    if (w.numericDetection && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v.trim())) {
      return /[.eE]/.test(v) ? { type: 'float' } : { type: 'long' };
    }
    if (w.dateDetection) {
      const fmt = detectDate(v, w.dateFormats);
      if (fmt !== null) return fmt === DEFAULT_DATE_FORMAT ? { type: 'date' } : { type: 'date', format: fmt };
    }
    return { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } };
  }
  return { type: 'object' };
}

const INT_RANGES: Record<string, [number, number, string]> = {
  integer: [-2147483648, 2147483647, 'an integer'], short: [-32768, 32767, 'a short'], byte: [-128, 127, 'a byte'],
  long: [-9223372036854775808, 9223372036854775807, 'a long'],
};

function fieldError(path: string, type: string, c: ErrorCause): never {
  throw mapperParsing(`failed to parse field [${path}] of type [${type}]`, { cause: c });
}

/** Validates (with ES's coercion rules) one scalar value of a mapped concrete field. */
function checkValue(def: FieldMappingJson, type: string, path: string, value: unknown): void {
  if (value === null) return;
  if (type === 'completion') { checkCompletion(path, value); return; }
  if (typeof value === 'object' && !isLossless(value) && type !== 'geo_point') {
    fieldError(path, type, cause('DOC_ILLEGAL_STATE', ["Can't get text on a START_OBJECT"]));
  }
  if (type === 'geo_point') { checkGeoPoint(path, value); return; }
  if (typeof value === 'number' && NUMERIC_TYPES.has(type)) {
    // A number JSON.parse gave is finite and its own text's value: only the range is left to check.
    const r = INT_RANGES[type];
    if (r && (value < r[0] || value > r[1])) fieldError(path, type, cause('DOC_ILLEGAL_ARGUMENT', [`Value [${String(value)}] is out of range for ${r[2]}`]));
    return;
  }
  const text = isLossless(value) ? value.value : String(value);
  if (NUMERIC_TYPES.has(type)) {
    if (typeof value === 'boolean') fieldError(path, type, cause('DOC_ILLEGAL_ARGUMENT', [`Current token (VALUE_${value ? 'TRUE' : 'FALSE'}) not numeric, can not use numeric value accessors`]));
    const n = Number(text.trim());
    if (text.trim() === '' || Number.isNaN(n)) fieldError(path, type, cause('DOC_NUMBER_FORMAT', [`For input string: "${text}"`]));
    const r = INT_RANGES[type];
    if (r && (n < r[0] || n > r[1])) fieldError(path, type, cause('DOC_ILLEGAL_ARGUMENT', [`Value [${text}] is out of range for ${r[2]}`]));
    return;
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean' || text === 'true' || text === 'false' || text === '') return;
    fieldError(path, type, cause('DOC_ILLEGAL_ARGUMENT', [`Failed to parse value [${text}] as only [true] or [false] are allowed.`]));
  }
  if (type === 'date') {
    const fmt = (def.format as string | undefined) ?? DEFAULT_DATE_FORMAT;
    const v = isLossless(value) ? Number(value.value) : value;
    if (parseDateOrNull(v, fmt) === null) {
      fieldError(path, type, cause('DOC_ILLEGAL_ARGUMENT', [`failed to parse date field [${text}] with format [${fmt}]`]));
    }
  }
}

/** A completion value: a string, or `{input, weight, contexts}` with an integer weight in [0, 2^31). */
function checkCompletion(path: string, value: unknown): void {
  if (typeof value !== 'object' || isLossless(value)) return;
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['input', 'weight', 'contexts'].includes(k)) fieldError(path, 'completion', cause('DOC_PARSE', [`failed to parse [${path}]: unknown field name [${k}], must be one of [input, weight, contexts]`]));
  }
  if (o.weight !== undefined) {
    const text = isLossless(o.weight) ? o.weight.value : String(o.weight);
    const n = Number(text);
    if (!Number.isInteger(n)) fieldError(path, 'completion', cause('DOC_ILLEGAL_ARGUMENT', [`weight must be an integer, but was [${text}]`]));
    if (n < 0 || n > 2147483647) fieldError(path, 'completion', cause('DOC_ILLEGAL_ARGUMENT', [`weight must be in the interval [0..2147483647], but was [${text}]`]));
  }
}

/** A geo_point value in one of ES's forms (`parseGeoPoint`), with ES's error for each malformed one. */
function checkGeoPoint(path: string, value: unknown): void {
  if (typeof value === 'number' || isLossless(value)) return; // one coordinate of an array point
  const p = parseGeoPoint(value);
  if (p === null) {
    if (typeof value === 'object' && value !== null) fieldError(path, 'geo_point', cause('DOC_PARSE', ['field [lat] missing']));
    const s = String(value).trim();
    fieldError(path, 'geo_point', cause('DOC_PARSE', [`unsupported symbol [${s[0] ?? ''}] in geohash [${s}]`]));
  }
  if (!(Math.abs(p.lat) <= 90)) fieldError(path, 'geo_point', cause('DOC_ILLEGAL_ARGUMENT', [`illegal latitude value [${p.lat}] for ${path}`]));
  if (!(Math.abs(p.lon) <= 180)) fieldError(path, 'geo_point', cause('DOC_ILLEGAL_ARGUMENT', [`illegal longitude value [${p.lon}] for ${path}`]));
}
