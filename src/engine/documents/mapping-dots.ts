/**
 * Dots in mapping field names: ES (since 5.0, ObjectMapper.TypeParser.parseProperties) reads a property named
 * `a.b.c` as the field `c` inside objects `a` and `b`, so `{"a.b": {"type": "text"}}` is stored and returned as
 * `{"a": {"properties": {"b": {"type": "text"}}}}`. Applied to `properties` at every level before validation; a
 * multi-field name (`fields`) is not split.
 */
import type { MappingJson } from '../search/api.ts';

type Props = Record<string, Record<string, unknown>>;

/** A copy of the root mapping with every dotted property name expanded into objects. */
export function expandDottedFields<T extends MappingJson | Record<string, unknown>>(mapping: T): T {
  const m = mapping as Record<string, unknown>;
  if (!isMap(m.properties)) return mapping;
  return { ...m, properties: expandProps(m.properties as Props) } as T;
}

function expandProps(props: Props): Props {
  const out: Props = {};
  for (const [name, def] of Object.entries(props)) {
    const parts = name.split('.');
    // A name that is empty or has empty parts is left whole, for validation to refuse.
    if (parts.length === 1 || parts.some((p) => p === '')) { put(out, name, expandField(def)); continue; }
    let leaf: Record<string, unknown> = expandField(def);
    for (let i = parts.length - 1; i > 0; i--) leaf = { properties: { [parts[i]]: leaf } };
    put(out, parts[0], leaf);
  }
  return out;
}

function expandField(def: Record<string, unknown>): Record<string, unknown> {
  return isMap(def) && isMap(def.properties) ? { ...def, properties: expandProps(def.properties as Props) } : def;
}

/** Adds `def` under `name`, merging the properties of two object definitions of the same name. */
function put(out: Props, name: string, def: Record<string, unknown>): void {
  const cur = out[name];
  if (cur && isMap(cur.properties) && isMap(def) && isMap(def.properties)) {
    const merged: Props = { ...(cur.properties as Props) };
    for (const [k, v] of Object.entries(def.properties as Props)) put(merged, k, v);
    out[name] = { ...cur, ...def, properties: merged };
  } else {
    out[name] = def;
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
