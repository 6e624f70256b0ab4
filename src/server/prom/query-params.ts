/**
 * Request parameters of Prometheus's query endpoints (`web/api/v1/api.go` of 2.42): form values from a
 * POST body take precedence over the URL, times are unix seconds (float) or RFC 3339, durations are
 * float seconds or Prometheus durations; errors carry Prometheus's wording.
 */
import type { HttpRequest } from '../http.ts';
import { InvalidArgumentError } from '../../engine/errors.ts';
import { parseDurationMsOrNull } from '../../engine/model/duration.ts';

/** Go's `r.FormValue`: the first value from the urlencoded body (POST/PUT/PATCH), then from the URL. */
export function formValues(req: HttpRequest): URLSearchParams {
  const ct = req.headers['content-type'] ?? '';
  if (req.body.length > 0 && ['POST', 'PUT', 'PATCH'].includes(req.method) && ct.startsWith('application/x-www-form-urlencoded')) {
    const merged = new URLSearchParams(req.body.toString('utf8'));
    for (const [k, v] of req.query) merged.append(k, v);
    return merged;
  }
  return req.query;
}

export function badParam(name: string, msg: string): InvalidArgumentError {
  return new InvalidArgumentError('INVALID_ARGUMENT', `invalid parameter ${JSON.stringify(name)}: ${msg}`, { param: name });
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i;

function goRound(x: number): number { return x < 0 ? -Math.round(-x) : Math.round(x); }

/** Parses a time to integer ms, or null. Float seconds are rounded to the millisecond as Prometheus does. */
export function parseTimeMs(s: string): number | null {
  if (FLOAT.test(s)) {
    const f = Number(s.replace(/inf(inity)?$/i, 'Infinity'));
    if (!Number.isFinite(f)) return null;
    // Go: math.Modf, then math.Round of the fraction to ms (half away from zero, unlike Math.round).
    const whole = Math.trunc(f);
    return whole * 1000 + goRound((f - whole) * 1000);
  }
  const m = RFC3339.exec(s);
  if (!m) {
    if (s === '-292273086-05-16T16:47:06Z') return -9223372036854;
    if (s === '292277025-08-18T07:12:54.999999999Z') return 9223372036854;
    return null;
  }
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) + (m[7] ? Math.floor(Number(m[7]) * 1000) : 0);
  if (Number.isNaN(ms)) return null;
  if (m[8] === 'Z' || m[8] === 'z') return ms;
  const sign = m[8][0] === '-' ? -1 : 1;
  return ms - sign * (Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(4, 6))) * 60_000;
}

/** Prometheus's `parseDuration` for API parameters, in ms. */
export function parseApiDurationMs(s: string): number | null {
  if (FLOAT.test(s)) {
    const d = Number(s);
    if (!Number.isFinite(d)) return null;
    if (Math.abs(d * 1e9) > 9.223372036854776e18) throw new Error(`cannot parse ${JSON.stringify(s)} to a valid duration. It overflows int64`);
    return d * 1000;
  }
  return parseDurationMsOrNull(s);
}

export function timeParam(form: URLSearchParams, name: string, def: number, forQuery: boolean): number {
  const s = form.get(name) ?? '';
  if (s === '' && forQuery) return def;
  const t = parseTimeMs(s);
  if (t === null) {
    const msg = `cannot parse ${JSON.stringify(s)} to a valid timestamp`;
    throw badParam(name, forQuery ? `Invalid time value for '${name}': ${msg}` : msg);
  }
  return t;
}

export function durationParam(form: URLSearchParams, name: string): number | null {
  const s = form.get(name);
  if (s === null) return null;
  let d: number | null;
  try { d = parseApiDurationMs(s); } catch (e) { throw badParam(name, (e as Error).message); }
  if (d === null) throw badParam(name, `cannot parse ${JSON.stringify(s)} to a valid duration`);
  return d;
}
