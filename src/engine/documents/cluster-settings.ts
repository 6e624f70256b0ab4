/**
 * Cluster-wide dynamic settings (`PUT/GET /_cluster/settings`): persistent ones survive a restart (LMDB),
 * transient ones do not, and a transient value overrides a persistent one, as in Elasticsearch 6.8. The
 * settings this node knows are listed with their defaults (what `include_defaults` shows); those that change
 * what it does: `action.auto_create_index`, `action.destructive_requires_name`, the `cluster.blocks.*`
 * write blocks, the disk watermarks and `search.max_buckets`. Other known settings are stored and shown but have nothing to act on in a one-node cluster.
 */
import { parseWatermark } from './disk-watermark.ts';
import { parseTimeValue } from './settings.ts';
import { cause, docError, illegalArgument } from './doc-errors.ts';
import { simpleMatch } from './cluster-state.ts';

export type FlatClusterSettings = Readonly<Record<string, string>>;

/** Known dynamic cluster settings and their defaults. */
const DEFAULTS: Record<string, string> = {
  'action.auto_create_index': 'true',
  'action.destructive_requires_name': 'false',
  'cluster.blocks.read_only': 'false',
  'cluster.blocks.read_only_allow_delete': 'false',
  'cluster.info.update.interval': '30s',
  'cluster.max_shards_per_node': '1000',
  'cluster.routing.allocation.enable': 'all',
  'cluster.routing.allocation.disk.threshold_enabled': 'true',
  'cluster.routing.allocation.disk.watermark.low': '85%',
  'cluster.routing.allocation.disk.watermark.high': '90%',
  'cluster.routing.allocation.disk.watermark.flood_stage': '95%',
  'cluster.routing.rebalance.enable': 'all',
  'discovery.zen.minimum_master_nodes': '-1',
  'indices.breaker.fielddata.limit': '60%',
  'indices.breaker.request.limit': '60%',
  'indices.breaker.total.limit': '70%',
  'indices.recovery.max_bytes_per_sec': '40mb',
  'script.max_compilations_rate': '75/5m',
  'search.default_search_timeout': '-1',
  'search.max_buckets': '-1',
  'xpack.monitoring.collection.enabled': 'false',
};
const WATERMARK_PREFIX = 'cluster.routing.allocation.disk.watermark.';
/** Group settings (any key under the prefix). */
const PREFIXES = ['logger.', 'cluster.routing.allocation.include.', 'cluster.routing.allocation.exclude.', 'cluster.routing.allocation.require.'];
const BOOLEANS = new Set(['action.destructive_requires_name', 'cluster.blocks.read_only', 'cluster.blocks.read_only_allow_delete',
  'cluster.routing.allocation.disk.threshold_enabled', 'xpack.monitoring.collection.enabled']);
const ENUMS: Record<string, string[]> = {
  'cluster.routing.allocation.enable': ['all', 'primaries', 'new_primaries', 'none'],
  'cluster.routing.rebalance.enable': ['all', 'primaries', 'replicas', 'none'],
};

/** Integer settings and their least value (ES's Setting.intSetting). */
const INT_MINIMUMS: Record<string, number> = { 'search.max_buckets': -1 };

/** As Setting.intSetting's parser: a Java int at least `min`; what is not an int fails as its NumberFormatException. */
function parseIntSetting(v: string, key: string, min: number): void {
  const n = /^[+-]?\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= -2147483648 && n <= 2147483647)) {
    throw illegalArgument(`Failed to parse value [${v}] for setting [${key}]`, { cause: cause('DOC_NUMBER_FORMAT', [`For input string: "${v}"`]) });
  }
  if (n < min) throw illegalArgument(`Failed to parse value [${v}] for setting [${key}] must be >= ${min}`);
}

/** The settings of a PUT body section, flattened: `null` removes a setting. */
export function parseSettingsUpdate(section: unknown, scope: 'persistent' | 'transient'): Record<string, string | null> {
  if (section === undefined || section === null) return {};
  if (typeof section !== 'object' || Array.isArray(section)) throw docError('DOC_PARSE', [`[${scope}] settings must be an object`]);
  const out: Record<string, string | null> = {};
  const walk = (o: Record<string, unknown>, prefix: string): void => {
    for (const [k, v] of Object.entries(o)) {
      const key = prefix + k;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, `${key}.`);
      else out[key] = v === null ? null : Array.isArray(v) ? v.map(String).join(',') : String(v);
    }
  };
  walk(section as Record<string, unknown>, '');
  for (const [k, v] of Object.entries(out)) {
    const known = k in DEFAULTS || PREFIXES.some((p) => k.startsWith(p) && k.length > p.length);
    if (!known) throw illegalArgument(`${scope} setting [${k}], not recognized`);
    if (v === null) continue;
    if (BOOLEANS.has(k) && v !== 'true' && v !== 'false') throw illegalArgument(`Failed to parse value [${v}] as only [true] or [false] are allowed.`);
    if (ENUMS[k] && !ENUMS[k].includes(v.toLowerCase())) throw illegalArgument(`No enum constant for [${k}]: [${v}]`);
    if (k.startsWith(WATERMARK_PREFIX)) parseWatermark(v, k);
    if (k === 'cluster.info.update.interval') parseTimeValue(v, k);
    if (k in INT_MINIMUMS) parseIntSetting(v, k, INT_MINIMUMS[k]);
  }
  return out;
}

/** `current` with `update` applied (null removes). */
export function applySettings(current: FlatClusterSettings, update: Record<string, string | null>): FlatClusterSettings {
  const next: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(update)) { if (v === null) delete next[k]; else next[k] = v; }
  return next;
}

/** The effective value of `key`: transient over persistent over the default. */
export function effectiveSetting(key: string, persistent: FlatClusterSettings, transient: FlatClusterSettings): string {
  return transient[key] ?? persistent[key] ?? DEFAULTS[key] ?? '';
}

export function clusterDefaults(): FlatClusterSettings { return DEFAULTS; }

/**
 * Whether `action.auto_create_index` lets a write create `index`: `true`/`false`, or a comma list of patterns
 * each optionally prefixed with `+` or `-`, the first match deciding (no match: refused).
 */
export function autoCreateAllowed(setting: string, index: string): boolean {
  const v = setting.trim();
  if (v === 'true' || v === '') return true;
  if (v === 'false') return false;
  for (const raw of v.split(',')) {
    const p = raw.trim();
    const neg = p.startsWith('-');
    const pattern = neg || p.startsWith('+') ? p.slice(1) : p;
    if (simpleMatch(pattern, index)) return !neg;
  }
  return false;
}
