/**
 * Index expressions: comma lists, `*` wildcards, `-` exclusions, `_all`, and aliases (with their filter
 * and routing) resolved against a state, as ES's IndexNameExpressionResolver does for reads and writes.
 */
import type { AliasMeta, ClusterState, IndexMeta } from './cluster-state.ts';
import { indicesOfAlias, simpleMatch } from './cluster-state.ts';
import { illegalArgument, indexClosed, indexNotFound } from './doc-errors.ts';

export interface Resolved {
  index: IndexMeta;
  /** Filters of the aliases that selected this index (null when the index was named directly or by wildcard). */
  aliasFilter: unknown | null;
  /** Search routing of the selecting alias, if any. */
  searchRouting?: string;
}

export interface ResolveOptions {
  resourceType?: 'index_or_alias' | 'index_expression';
  ignoreUnavailable?: boolean;
  allowNoIndices?: boolean;
  /**
   * The request reads or writes the indices' data (not only their metadata): a closed index named directly
   * or through an alias is index_closed_exception; wildcards skip closed indices (ES's expand_wildcards=open).
   */
  data?: boolean;
}

/** Resolves a read expression to concrete indices (sorted by name). */
export function resolveRead(state: ClusterState, expression: string | undefined, opts: ResolveOptions = {}): Resolved[] {
  const parts = !expression || expression === '_all' || expression === '*' ? ['*'] : expression.split(',').filter(Boolean);
  const chosen = new Map<string, Resolved>();
  const direct = new Set<string>();
  /** Indices named directly or through an alias (not found by a wildcard). */
  const named = new Set<string>();
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.startsWith('-') && i > 0) {
      for (const n of [...chosen.keys()]) if (simpleMatch(p.slice(1), n)) chosen.delete(n);
      continue;
    }
    if (p.includes('*')) {
      for (const n of Object.keys(state.indices)) if (simpleMatch(p, n)) add(chosen, direct, state.indices[n], null, true);
      for (const a of aliasNames(state)) {
        if (!simpleMatch(p, a)) continue;
        for (const n of indicesOfAlias(state, a)) add(chosen, direct, state.indices[n], state.indices[n].aliases[a], false);
      }
      continue;
    }
    if (state.indices[p]) { add(chosen, direct, state.indices[p], null, true); named.add(p); continue; }
    const targets = indicesOfAlias(state, p);
    for (const n of targets) named.add(n);
    if (targets.length === 0) {
      if (opts.ignoreUnavailable) continue;
      throw indexNotFound(p, opts.resourceType ?? 'index_or_alias');
    }
    for (const n of targets) add(chosen, direct, state.indices[n], state.indices[n].aliases[p], false);
  }
  let out = [...chosen.values()].sort((a, b) => (a.index.name < b.index.name ? -1 : 1));
  if (opts.data) {
    for (const r of out) if (r.index.closed && named.has(r.index.name)) throw indexClosed(r.index);
    out = out.filter((r) => !r.index.closed);
  }
  if (out.length === 0 && opts.allowNoIndices === false) throw indexNotFound(expression ?? '_all', opts.resourceType ?? 'index_or_alias');
  return out;
}

function aliasNames(state: ClusterState): Set<string> {
  const out = new Set<string>();
  for (const n in state.indices) for (const a in state.indices[n].aliases) out.add(a);
  return out;
}

function add(chosen: Map<string, Resolved>, direct: Set<string>, index: IndexMeta, alias: AliasMeta | null, isDirect: boolean): void {
  if (isDirect) { direct.add(index.name); chosen.set(index.name, { index, aliasFilter: null }); return; }
  if (direct.has(index.name)) return;
  const prev = chosen.get(index.name);
  const filter = alias?.filter ?? null;
  if (!prev) { chosen.set(index.name, { index, aliasFilter: filter, searchRouting: alias?.search_routing }); return; }
  // Two aliases select the same index: a document matching either alias's filter is visible.
  if (prev.aliasFilter === null || filter === null) prev.aliasFilter = null;
  else prev.aliasFilter = { bool: { should: [prev.aliasFilter, filter] } };
}

export interface WriteTarget {
  /** Null when the index does not exist (the caller may auto-create it). */
  index: IndexMeta | null;
  name: string;
  /** The alias's index routing, applied when the request gives none. */
  routing?: string;
}

/** Resolves the target of a single-document write (an index, or an alias with one write index). */
export function resolveWrite(state: ClusterState, name: string): WriteTarget {
  const idx = state.indices[name];
  if (idx?.closed) throw indexClosed(idx);
  if (idx) return { index: idx, name };
  const targets = indicesOfAlias(state, name);
  if (targets.length === 0) return { index: null, name };
  let chosen: string | undefined;
  if (targets.length === 1) {
    chosen = state.indices[targets[0]].aliases[name].is_write_index === false ? undefined : targets[0];
  } else {
    chosen = targets.find((t) => state.indices[t].aliases[name].is_write_index === true);
  }
  if (!chosen) {
    throw illegalArgument(`no write index is defined for alias [${name}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index`);
  }
  const meta = state.indices[chosen];
  if (meta.closed) throw indexClosed(meta);
  return { index: meta, name: chosen, routing: meta.aliases[name].index_routing };
}
