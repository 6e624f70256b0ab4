/** Renderings shared by several endpoints: index settings, mappings and aliases as ES 6.8 prints them. */
import type { AliasMeta, IndexMeta, TemplateMeta } from '../../engine/documents/cluster-state.ts';
import { renderMapping } from '../../engine/documents/mapping.ts';
import { nestSettings, sortedFlat } from '../../engine/documents/settings.ts';

export function renderAlias(a: AliasMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.filter !== undefined) out.filter = a.filter;
  if (a.index_routing !== undefined) out.index_routing = a.index_routing;
  if (a.search_routing !== undefined) out.search_routing = a.search_routing;
  if (a.is_write_index !== undefined) out.is_write_index = a.is_write_index;
  return out;
}

export function renderAliases(aliases: Record<string, AliasMeta>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(aliases).sort()) out[name] = renderAlias(aliases[name]);
  return out;
}

/** `mappings` of an index: `{type: mapping}`, or the bare mapping with `include_type_name=false`. */
export function renderMappings(m: IndexMeta, typeless: boolean): Record<string, unknown> {
  if (m.type === null) return {};
  const body = renderMapping(m.mapping);
  return typeless ? body : { [m.type]: body };
}

export function renderSettings(flat: Record<string, string | string[]>, flatSettings: boolean): Record<string, unknown> {
  return flatSettings ? sortedFlat(flat) : nestSettings(flat);
}

export function renderTemplate(t: TemplateMeta, flatSettings: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { order: t.order };
  if (t.version !== undefined) out.version = t.version;
  out.index_patterns = t.index_patterns;
  out.settings = renderSettings(t.settings, flatSettings);
  const mappings: Record<string, unknown> = {};
  for (const [type, m] of Object.entries(t.mappings)) mappings[type] = renderMapping(m ?? {});
  out.mappings = mappings;
  out.aliases = renderAliases(t.aliases);
  return out;
}
