/**
 * Aliases: parsing alias definitions (`filter`, `routing`, `index_routing`, `search_routing`,
 * `is_write_index`) and applying a `_aliases` action list to a state as one change (all or nothing).
 */
import type { AliasMeta, ClusterState, IndexMeta } from './cluster-state.ts';
import { simpleMatch } from './cluster-state.ts';
import { docError, illegalArgument, indexNotFound, validationFailed } from './doc-errors.ts';
import { validateAliasName } from './names.ts';

const ALIAS_KEYS = new Set(['filter', 'routing', 'index_routing', 'search_routing', 'is_write_index']);

/** Parses an alias body (`{}` or `{filter, routing, …}`). */
export function parseAliasDef(name: string, body: unknown): AliasMeta {
  if (body == null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw illegalArgument(`[alias] failed to parse field [${name}]`);
  const b = body as Record<string, unknown>;
  const out: AliasMeta = {};
  for (const k of Object.keys(b)) {
    if (!ALIAS_KEYS.has(k)) throw illegalArgument(`[alias] unknown field [${k}], parser not found`);
  }
  if (b.filter !== undefined) out.filter = b.filter;
  if (b.routing !== undefined) { out.index_routing = String(b.routing); out.search_routing = String(b.routing); }
  if (b.index_routing !== undefined) out.index_routing = String(b.index_routing);
  if (b.search_routing !== undefined) out.search_routing = String(b.search_routing);
  if (b.is_write_index !== undefined) out.is_write_index = b.is_write_index === true || b.is_write_index === 'true';
  if (out.index_routing !== undefined && out.index_routing.includes(',')) {
    throw illegalArgument(`alias [${name}] has several index routing values associated with it`);
  }
  return out;
}

/** Parses an `aliases` object of a create-index or template body. */
export function parseAliasesObject(body: unknown): Record<string, AliasMeta> {
  const out: Record<string, AliasMeta> = {};
  if (body == null) return out;
  if (typeof body !== 'object' || Array.isArray(body)) throw illegalArgument('aliases must be an object');
  for (const [name, def] of Object.entries(body as Record<string, unknown>)) out[name] = parseAliasDef(name, def);
  return out;
}

function list(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v.map(String) : [String(v)];
}

function expandIndices(state: ClusterState, patterns: string[]): string[] {
  const out = new Set<string>();
  for (const p of patterns) {
    if (p === '_all' || p.includes('*')) {
      for (const n of Object.keys(state.indices)) if (p === '_all' || simpleMatch(p, n)) out.add(n);
      continue;
    }
    if (!state.indices[p]) throw indexNotFound(p);
    out.add(p);
  }
  return [...out].sort();
}

/** Applies a `_aliases` body to `state`, returning the new state; nothing changes if any action fails. */
export function applyAliasActions(state: ClusterState, body: unknown): ClusterState {
  const actions = (body as { actions?: unknown })?.actions;
  if (!Array.isArray(actions) || actions.length === 0) throw validationFailed(['no action specified']);
  const indices: Record<string, IndexMeta> = { ...state.indices };
  const touch = (n: string): IndexMeta => {
    if (indices[n] === state.indices[n]) indices[n] = { ...indices[n], aliases: { ...indices[n].aliases } };
    return indices[n];
  };
  const removeIdx: string[] = [];
  for (const action of actions) {
    const entries = Object.entries(action as Record<string, Record<string, unknown>>);
    if (entries.length !== 1) throw illegalArgument('[aliases] failed to parse field [actions]');
    const [kind, a] = entries[0];
    const targets = expandIndices({ ...state, indices }, [...list(a.index), ...list(a.indices)]);
    if (targets.length === 0 && !list(a.index).concat(list(a.indices)).some((p) => p.includes('*'))) {
      throw validationFailed(['One of [index] or [indices] is required']);
    }
    if (kind === 'remove_index') { removeIdx.push(...targets); continue; }
    const names = [...list(a.alias), ...list(a.aliases)];
    if (names.length === 0) throw validationFailed(['[alias] or [aliases] is required']);
    if (kind === 'add') {
      const { index: _i, indices: _s, alias: _a, aliases: _b, ...def } = a;
      const meta = parseAliasDef(names[0], def);
      for (const alias of names) {
        validateAliasName(alias);
        if (indices[alias]) throw docError('DOC_INVALID_ALIAS_NAME', [alias, 'an index exists with the same name as the alias'], { index_uuid: '_na_', index: alias });
        for (const t of targets) touch(t).aliases[alias] = meta;
      }
    } else if (kind === 'remove') {
      for (const t of targets) {
        const matched = Object.keys(indices[t].aliases).filter((x) => names.some((p) => simpleMatch(p, x)));
        if (matched.length === 0) throw docError('DOC_ALIASES_NOT_FOUND', [names.join(',')], { 'resource.type': 'aliases', 'resource.id': names.join(',') });
        for (const m of matched) delete touch(t).aliases[m];
      }
    } else {
      throw illegalArgument(`[aliases] unknown field [${kind}], parser not found`);
    }
  }
  for (const n of removeIdx) delete indices[n];
  return { ...state, version: state.version + 1, indices };
}
