/**
 * `dynamic_templates`: the mapping a new field gets when a template matches it, as ES 6.8's
 * DynamicTemplate does. Templates are tried in order and the first match wins; a template matches on the
 * field's detected JSON type (`match_mapping_type`: string, long, double, boolean, date, object, or `*`), its
 * name (`match`/`unmatch`, simple wildcards or Java-style regexes with `match_pattern: regex`) and its full
 * dotted path (`path_match`/`path_unmatch`). `{name}` and `{dynamic_type}` in the template's mapping are
 * replaced by the field's name and the detected type's default mapping type; a mapping without `type` takes the detected type's default.
 */
import type { FieldMappingJson } from '../search/api.ts';
import { goRegexPredicate } from '../regex/index.ts';
import { simpleMatch } from './cluster-state.ts';
import { mapperParsing } from './doc-errors.ts';

/** The detected JSON type of a new value, in ES's `match_mapping_type` words. */
export type DynamicType = 'string' | 'long' | 'double' | 'boolean' | 'date' | 'object';

const DEFAULT_MAPPING_TYPE: Record<DynamicType, string> = { string: 'text', long: 'long', double: 'float', boolean: 'boolean', date: 'date', object: 'object' };
const MATCH_TYPES = new Set(['string', 'long', 'double', 'boolean', 'date', 'object', 'binary', '*']);

interface Template {
  name: string;
  matchType: string | null;
  match: ((s: string) => boolean) | null;
  unmatch: ((s: string) => boolean) | null;
  pathMatch: ((s: string) => boolean) | null;
  pathUnmatch: ((s: string) => boolean) | null;
  mapping: Record<string, unknown>;
}

/** Compiled templates per `dynamic_templates` array (mappings are immutable, so the array identifies them). */
const COMPILED = new WeakMap<object, Template[]>();

/** Parses and checks a `dynamic_templates` value (put-mapping and index creation). */
export function compileDynamicTemplates(raw: unknown): Template[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'object' && COMPILED.has(raw)) return COMPILED.get(raw)!;
  if (!Array.isArray(raw)) throw mapperParsing('Dynamic template syntax error. An array of named objects is expected.');
  const out = raw.map((entry) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length !== 1) {
      throw mapperParsing('Dynamic template syntax error. An array of named objects is expected.');
    }
    const [name, body] = Object.entries(entry as Record<string, unknown>)[0];
    if (typeof body !== 'object' || body === null) throw mapperParsing(`Dynamic template [${name}] must be an object`);
    const b = body as Record<string, unknown>;
    if (typeof b.mapping !== 'object' || b.mapping === null || Array.isArray(b.mapping)) {
      throw mapperParsing(`template [${name}] must have either mapping set`);
    }
    const regex = b.match_pattern === 'regex';
    if (b.match_pattern !== undefined && b.match_pattern !== 'regex' && b.match_pattern !== 'simple') {
      throw mapperParsing(`No matching pattern matched on [${String(b.match_pattern)}]`);
    }
    const matcher = (v: unknown, useRegex: boolean): ((s: string) => boolean) | null => {
      if (v === undefined || v === null) return null;
      const patterns = (Array.isArray(v) ? v : [v]).map(String);
      const tests = patterns.map((p) => (useRegex ? goRegexPredicate(p) : (s: string) => simpleMatch(p, s)));
      return (s) => tests.some((t) => t(s));
    };
    const matchType = b.match_mapping_type === undefined ? null : String(b.match_mapping_type);
    if (matchType !== null && !MATCH_TYPES.has(matchType)) {
      throw mapperParsing(`No field type matched on [${matchType}], possible values are [object, string, long, double, boolean, date, binary]`);
    }
    return {
      name, matchType,
      match: matcher(b.match, regex), unmatch: matcher(b.unmatch, regex),
      pathMatch: matcher(b.path_match, regex), pathUnmatch: matcher(b.path_unmatch, regex),
      mapping: b.mapping as Record<string, unknown>,
    };
  });
  if (typeof raw === 'object') COMPILED.set(raw, out);
  return out;
}

/** The mapping the first matching template gives a new field, or null when none matches. */
export function templateMapping(raw: unknown, name: string, path: string, type: DynamicType): FieldMappingJson | null {
  for (const t of compileDynamicTemplates(raw)) {
    if (t.matchType !== null && t.matchType !== '*' && t.matchType !== type) continue;
    if (t.match && !t.match(name)) continue;
    if (t.unmatch && t.unmatch(name)) continue;
    if (t.pathMatch && !t.pathMatch(path)) continue;
    if (t.pathUnmatch && t.pathUnmatch(path)) continue;
    // As RootObjectMapper does, `{dynamic_type}` reads as the detected type's default mapping type (text, float…).
    const m = substitute(t.mapping, name, DEFAULT_MAPPING_TYPE[type]) as Record<string, unknown>;
    if (m.type === undefined && m.properties === undefined) m.type = DEFAULT_MAPPING_TYPE[type];
    return m as FieldMappingJson;
  }
  return null;
}

function substitute(v: unknown, name: string, type: string): unknown {
  if (typeof v === 'string') return v.replaceAll('{name}', name).replaceAll('{dynamic_type}', type);
  if (Array.isArray(v)) return v.map((x) => substitute(x, name, type));
  if (typeof v === 'object' && v !== null) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[substitute(k, name, type) as string] = substitute(x, name, type);
    return o;
  }
  return v;
}
