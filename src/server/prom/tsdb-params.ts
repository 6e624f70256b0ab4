/**
 * Request parameters of the metrics API as Prometheus reads them (`r.ParseForm()`: query string plus a
 * form-encoded POST body), time parsing (`parseTime`: float seconds or RFC 3339) and `match[]` parsing
 * (`parseMatchersParam`).
 */
import type { Matcher } from '../../engine/tsdb/api.ts';
import type { HttpRequest } from '../http.ts';
import { parseSeriesSelector } from './series-selector.ts';

export class ParamError extends Error {}

export function formParams(req: HttpRequest): URLSearchParams {
  const out = new URLSearchParams(req.rawQuery);
  const ct = req.headers['content-type'] ?? '';
  if ((req.method === 'POST' || req.method === 'PUT') && ct.startsWith('application/x-www-form-urlencoded') && req.body.length) {
    for (const [k, v] of new URLSearchParams(req.body.toString('utf8'))) out.append(k, v);
  }
  return out;
}

// Go's minTime/maxTime formatted with RFC3339Nano: clients send these back to mean "unbounded".
const MIN_TIME_TEXT = '-292273086-05-16T16:47:06Z';
const MAX_TIME_TEXT = '292277025-08-18T07:12:54.999999999Z';
const FLOAT_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds for a Prometheus time parameter, or throws with Prometheus's wording. */
export function parseTimeMs(s: string): number {
  if (FLOAT_RE.test(s)) {
    const t = Number(s);
    const sec = Math.trunc(t);
    return sec * 1000 + Math.round((t - sec) * 1000);
  }
  if (s === MIN_TIME_TEXT) return -Infinity;
  if (s === MAX_TIME_TEXT) return Infinity;
  const m = RFC3339_RE.exec(s);
  if (m) {
    const base = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
    const frac = m[7] ? Math.trunc(Number(`0.${m[7]}`) * 1000) : 0;
    const off = m[8] ? (m[8] === '+' ? 1 : -1) * (+m[9] * 60 + +m[10]) * 60_000 : 0;
    if (!Number.isNaN(base)) return base + frac - off;
  }
  throw new ParamError(`cannot parse ${JSON.stringify(s)} to a valid timestamp`);
}

/** `parseTimeParam`: the default when absent; errors become `invalid parameter "<name>": …`. */
export function timeParam(p: URLSearchParams, name: string, def: number): number {
  const s = p.get(name);
  if (s === null || s === '') return def;
  try { return parseTimeMs(s); } catch (err) {
    throw new ParamError(`invalid parameter ${JSON.stringify(name)}: Invalid time value for '${name}': ${(err as Error).message}`);
  }
}

/** `parseMatchersParam`: every selector parsed; each must have a matcher that does not match "". */
export function matchersParam(values: string[]): Matcher[][] {
  const sets = values.map((v) => parseSeriesSelector(v));
  for (const ms of sets) {
    if (!ms.some((m) => !m.matches(''))) throw new ParamError('match[] must contain at least one non-empty matcher');
  }
  return sets;
}
