/**
 * The documents cluster state: indices (settings, the one mapping type, aliases) and templates. It is an
 * immutable value: every change builds a new state object so the main thread can persist it and then swap
 * it in one assignment — a reader never sees half an alias switch.
 */
import type { MappingJson } from '../search/api.ts';
import type { FlatSettings } from './settings.ts';

export interface AliasMeta {
  filter?: unknown;
  index_routing?: string;
  search_routing?: string;
  is_write_index?: boolean;
}

export interface IndexMeta {
  name: string;
  uuid: string;
  settings: FlatSettings;
  /** The single mapping type (null until a mapping or document defines it). */
  type: string | null;
  mapping: MappingJson;
  /** Increases on every mapping change; workers cache mappings by this number. */
  mappingVersion: number;
  aliases: Record<string, AliasMeta>;
  creationDate: number;
  /** `_close`d: its shards are closed, reads and writes get index_closed_exception until `_open`. */
  closed?: boolean;
}

export interface TemplateMeta {
  name: string;
  order: number;
  version?: number;
  index_patterns: string[];
  settings: FlatSettings;
  mappings: Record<string, MappingJson>;
  aliases: Record<string, AliasMeta>;
}

export interface ClusterState {
  version: number;
  indices: Readonly<Record<string, IndexMeta>>;
  templates: Readonly<Record<string, TemplateMeta>>;
  /** `_cluster/settings`, flat: persistent ones are stored, transient ones live until a restart. */
  persistentSettings: Readonly<Record<string, string>>;
  transientSettings: Readonly<Record<string, string>>;
  /** Ingest pipeline definitions by id, as they were PUT. */
  pipelines: Readonly<Record<string, unknown>>;
}

export const EMPTY_STATE: ClusterState = { version: 0, indices: {}, templates: {}, persistentSettings: {}, transientSettings: {}, pipelines: {} };

export { simpleMatch } from '../regex/index.ts';

/** Index names that carry alias `alias`, sorted. */
export function indicesOfAlias(state: ClusterState, alias: string): string[] {
  const out: string[] = [];
  for (const name of Object.keys(state.indices)) if (alias in state.indices[name].aliases) out.push(name);
  return out.sort();
}

/** True when some index has an alias called `name`. */
export function isAlias(state: ClusterState, name: string): boolean {
  for (const n in state.indices) if (name in state.indices[n].aliases) return true;
  return false;
}

/** Analyzer names defined in an index's settings. */
export function customAnalyzers(settings: FlatSettings): Set<string> {
  const out = new Set<string>();
  for (const k of Object.keys(settings)) {
    const m = /^index\.analysis\.analyzer\.([^.]+)\./.exec(k);
    if (m) out.add(m[1]);
  }
  return out;
}

export function withIndex(state: ClusterState, meta: IndexMeta): ClusterState {
  return { ...state, version: state.version + 1, indices: { ...state.indices, [meta.name]: meta } };
}

