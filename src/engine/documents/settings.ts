/**
 * Index settings: accepted flat (`number_of_shards`), prefixed (`index.number_of_shards`) or nested
 * (`{index: {number_of_shards}}`), stored flat under `index.` with string values (arrays of strings for list
 * settings such as analyzer filters), rendered back nested and sorted as ES's Settings tree does.
 */
import { illegalArgument } from './doc-errors.ts';

export type FlatSettings = Record<string, string | string[]>;

export const DEFAULT_SHARDS = 5;
export const DEFAULT_REPLICAS = 1;
/** `Version.CURRENT.id` of 6.8.23 (major*1e6 + minor*1e4 + revision*100 + 99). */
export const VERSION_CREATED = '6082399';

/** Exact keys accepted under `index.` (beyond the prefixes below). */
const KNOWN = new Set([
  'number_of_shards', 'number_of_replicas', 'refresh_interval', 'max_result_window', 'max_inner_result_window',
  'max_rescore_window', 'max_docvalue_fields_search', 'max_script_fields', 'max_ngram_diff', 'max_shingle_diff',
  'max_terms_count', 'max_regex_length', 'gc_deletes', 'number_of_routing_shards', 'codec', 'auto_expand_replicas',
  'priority', 'hidden', 'format', 'shard.check_on_startup', 'max_slices_per_scroll', 'default_pipeline',
  'search.idle.after', 'query.default_field', 'highlight.max_analyzed_offset', 'max_adjacency_matrix_filters',
  'creation_date', 'uuid', 'version.created', 'version.upgraded', 'provided_name', 'load_fixed_bitset_filters_eagerly',
  'mapping.total_fields.limit', 'mapping.depth.limit', 'mapping.nested_fields.limit', 'mapping.nested_objects.limit',
  'mapping.ignore_malformed', 'mapping.coerce', 'mapping.single_type', 'write.wait_for_active_shards', 'requests.cache.enable',
  'soft_deletes.enabled', 'soft_deletes.retention.operations', 'merge.scheduler.max_thread_count',
]);
const KNOWN_PREFIXES = ['analysis.', 'similarity.', 'blocks.', 'routing.', 'translog.', 'sort.', 'merge.', 'store.',
  'search.slowlog.', 'indexing.slowlog.', 'unassigned.', 'lifecycle.', 'refresh.', 'queries.', 'allocation.', 'query_string.'];

/**
 * Flattens any of the three accepted forms into `index.`-prefixed keys with string values. Keys given as null
 * (a reset to the default in an update) are left out, and listed in `nulls` when it is passed.
 */
export function flattenSettings(input: unknown, nulls?: string[]): FlatSettings {
  const out: FlatSettings = {};
  if (input == null) return out;
  if (typeof input !== 'object' || Array.isArray(input)) throw illegalArgument('settings must be an object');
  const reset: string[] = [];
  walk(input as Record<string, unknown>, '', out, reset);
  const prefixed: FlatSettings = {};
  const withPrefix = (k: string): string => (k.startsWith('index.') ? k : `index.${k}`);
  for (const k of Object.keys(out)) prefixed[withPrefix(k)] = out[k];
  if (nulls) for (const k of reset) nulls.push(withPrefix(k));
  return prefixed;
}

function walk(obj: Record<string, unknown>, prefix: string, out: FlatSettings, nulls: string[]): void {
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const key = prefix + k;
    if (v === null) { nulls.push(key); continue; }
    if (v === undefined) continue;
    if (Array.isArray(v)) out[key] = v.map((x) => String(x));
    else if (typeof v === 'object') walk(v as Record<string, unknown>, `${key}.`, out, nulls);
    else out[key] = String(v);
  }
}

/** Checks that every `index.`-prefixed key is a setting ES knows. */
export function validateSettingNames(keys: string[], customAnalyzers = true): void {
  for (const key of keys) {
    const k = key.slice('index.'.length);
    if (KNOWN.has(k) || KNOWN_PREFIXES.some((p) => k.startsWith(p))) continue;
    if (!customAnalyzers && k.startsWith('analysis.')) continue;
    throw illegalArgument(`unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
  }
}

/** Checks names and values; throws `illegal_argument_exception` with ES's wording. */
export function validateSettings(s: FlatSettings, customAnalyzers = true): void {
  validateSettingNames(Object.keys(s), customAnalyzers);
  intSetting(s, 'index.number_of_shards', 1, 1024);
  intSetting(s, 'index.number_of_replicas', 0, Number.MAX_SAFE_INTEGER);
  intSetting(s, 'index.max_result_window', 1, 2147483647);
  const ri = s['index.refresh_interval'];
  if (ri !== undefined && parseTimeValue(String(ri), 'index.refresh_interval') === null) { /* -1 disables */ }
}

function intSetting(s: FlatSettings, key: string, min: number, max: number): void {
  const raw = s[key];
  if (raw === undefined) return;
  const str = String(raw);
  if (!/^-?\d+$/.test(str)) throw illegalArgument(`Failed to parse value [${str}] for setting [${key}]`);
  const n = Number(str);
  if (n < min) throw illegalArgument(`Failed to parse value [${str}] for setting [${key}] must be >= ${min}`);
  if (n > max) throw illegalArgument(`Failed to parse value [${str}] for setting [${key}] must be <= ${max}`);
}

const UNITS: Record<string, number> = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };

/** Parses an ES time value (`1s`, `500ms`, `-1`) into ms; null means disabled (`-1`). */
export function parseTimeValue(v: string, setting: string): number | null {
  if (v === '-1') return null;
  const m = /^(\d+(?:\.\d+)?)(nanos|micros|ms|s|m|h|d)$/.exec(v.trim());
  if (!m) {
    throw illegalArgument(`failed to parse setting [${setting}] with value [${v}] as a time value: unit is missing or unrecognized`);
  }
  return Number(m[1]) * UNITS[m[2]];
}

export function numberOfShards(s: FlatSettings): number {
  return Number(s['index.number_of_shards'] ?? DEFAULT_SHARDS);
}

export function numberOfReplicas(s: FlatSettings): number {
  return Number(s['index.number_of_replicas'] ?? DEFAULT_REPLICAS);
}

/** Refresh interval in ms (null = disabled). */
export function refreshIntervalMs(s: FlatSettings): number | null {
  const v = s['index.refresh_interval'];
  return v === undefined ? 1000 : parseTimeValue(String(v), 'index.refresh_interval');
}

/** Nested rendering with keys sorted (ES's Settings is a sorted map), e.g. `{index: {number_of_shards: "5"}}`. */
export function nestSettings(s: FlatSettings): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const key of Object.keys(s).sort()) {
    const parts = key.split('.');
    let node = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = node[parts[i]];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) node[parts[i]] = {};
      node = node[parts[i]] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = s[key];
  }
  return sortDeep(root) as Record<string, unknown>;
}

function sortDeep(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) out[k] = sortDeep(o[k]);
  return out;
}

/** Flat rendering (`?flat_settings=true`), keys sorted. */
export function sortedFlat(s: FlatSettings): FlatSettings {
  const out: FlatSettings = {};
  for (const k of Object.keys(s).sort()) out[k] = s[k];
  return out;
}
