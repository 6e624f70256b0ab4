/**
 * `?human=true` on the stats-style responses (`_stats`, `_nodes`, `_nodes/stats`, `_cluster/stats`,
 * `_cluster/health`): ES's XContentBuilder adds a readable twin before each raw figure — `size` ("1.5kb") before
 * `size_in_bytes`, `uptime` ("3.2m") before `uptime_in_millis`, a date before `start_time_in_millis`, a percentage
 * before `active_shards_percent_as_number`. Only these routes are rewritten: elsewhere a key such as
 * `x_in_bytes` may be a user's aggregation or field name.
 */
import type { HttpRequest } from '../http.ts';
import { javaDouble } from './java-format.ts';
import { JavaDouble } from '../../engine/documents/source.ts';

/** Strings.format1Decimals: Java's double text cut (not rounded) after the first decimal, `.0` dropped. */
export function format1Decimals(value: number, suffix: string): string {
  const p = javaDouble(value);
  const ix = p.indexOf('.') + 1, ex = p.indexOf('E');
  const fraction = p[ix];
  const exp = ex >= 0 ? p.slice(ex) : '';
  return fraction === '0' ? p.slice(0, ix - 1) + exp + suffix : p.slice(0, ix) + fraction + exp + suffix;
}

const BYTE_UNITS: [number, string][] = [[1024 ** 5, 'pb'], [1024 ** 4, 'tb'], [1024 ** 3, 'gb'], [1024 ** 2, 'mb'], [1024, 'kb']];

/** ByteSizeValue.toString. */
export function byteSize(bytes: number): string {
  for (const [n, unit] of BYTE_UNITS) if (bytes >= n) return format1Decimals(bytes / n, unit);
  return format1Decimals(bytes, 'b');
}

const NANO_UNITS: [number, string][] = [[86_400e9, 'd'], [3_600e9, 'h'], [60e9, 'm'], [1e9, 's'], [1e6, 'ms'], [1e3, 'micros']];

/** TimeValue.toString of a duration in nanoseconds (negative durations print as the raw number). */
export function timeValue(nanos: number, rawWhenNegative: number): string {
  if (rawWhenNegative < 0) return String(rawWhenNegative);
  if (nanos === 0) return '0s';
  for (const [n, unit] of NANO_UNITS) if (nanos >= n) return format1Decimals(nanos / n, unit);
  return format1Decimals(nanos, 'nanos');
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const num = (v: unknown): number | null => (typeof v === 'number' ? v : v instanceof JavaDouble ? v.v : null);

/** The readable twin of a raw field, or null when the key has none. */
function twin(key: string, value: unknown): [string, string] | null {
  const n = num(value);
  if (n === null) return null;
  if (key === 'start_time_in_millis') return ['start_time', new Date(n).toISOString()];
  if (key === 'active_shards_percent_as_number') return ['active_shards_percent', `${n.toFixed(1)}%`];
  if (key === 'task_max_waiting_in_queue_millis') return ['task_max_waiting_in_queue', timeValue(n * 1e6, n)];
  if (key.endsWith('_in_bytes')) return [key.slice(0, -9), byteSize(n)];
  if (key.endsWith('_in_millis')) return [key.slice(0, -10), timeValue(n * 1e6, n)];
  if (key.endsWith('_in_nanos')) return [key.slice(0, -9), timeValue(n, n)];
  return null;
}

/** Adds the readable twins throughout `body` (a new tree; leaves the input alone). */
export function humanize(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(humanize);
  if (!isPlain(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    const t = twin(k, v);
    if (t && !(t[0] in body)) out[t[0]] = t[1];
    out[k] = humanize(v);
  }
  return out;
}

/** `body` with readable twins when the request asked for `?human` (`human`, `human=true`). */
export function humanIfAsked(req: HttpRequest, body: unknown): unknown {
  const h = req.query.get('human');
  return h !== null && h !== 'false' ? humanize(body) : body;
}
