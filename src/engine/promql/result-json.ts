/**
 * Prometheus's JSON encoding of query results (the `data` member of the API envelope), byte for byte:
 * points' timestamps as seconds with exactly three decimals when not whole (`jsonutil.MarshalTimestamp`),
 * values as strings (`1e+21`, `1.5e-07`, `+Inf`, `-0`), scalars' and strings' times with Go's float encoding.
 * Lives in the engine so the query worker can encode off the HTTP thread.
 */
import type { Labels } from '../tsdb/api.ts';
import { formatFloat, formatSampleValue } from './format.ts';
import type { Matrix, QueryResult } from './value.ts';

/** Go's encoding/json string escaping (HTML-safe: <, >, & become \u003c…). */
export function jsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function marshalTimestamp(ms: number): string {
  let out = '';
  if (ms < 0) { out = '-'; ms = -ms; }
  out += Math.floor(ms / 1000);
  const frac = ms % 1000;
  if (frac !== 0) out += '.' + String(frac).padStart(3, '0');
  return out;
}

export function metricJson(ls: Labels): string {
  let out = '{';
  for (let i = 0; i < ls.length; i++) out += (i ? ',' : '') + jsonString(ls[i].name) + ':' + jsonString(ls[i].value);
  return out + '}';
}

function goJsonFloat(v: number): string { return String(v); }

export function matrixJson(m: Matrix): string {
  const parts: string[] = [];
  for (const s of m) {
    let vals = '';
    for (let i = 0; i < s.t.length; i++) vals += (i ? ',' : '') + '[' + marshalTimestamp(s.t[i]) + ',"' + formatSampleValue(s.v[i]) + '"]';
    parts.push('{"metric":' + metricJson(s.metric) + ',"values":[' + vals + ']}');
  }
  return '{"resultType":"matrix","result":[' + parts.join(',') + ']';
}

/** The `data` object, without its closing brace so that `stats` can be appended. */
export function resultJsonOpen(r: QueryResult): string {
  switch (r.type) {
    case 'vector': {
      const ts = marshalTimestamp(r.t);
      const parts = r.vector.map((s) => '{"metric":' + metricJson(s.metric) + ',"value":[' + ts + ',"' + formatSampleValue(s.v) + '"]}');
      return '{"resultType":"vector","result":[' + parts.join(',') + ']';
    }
    case 'scalar': return '{"resultType":"scalar","result":[' + goJsonFloat(r.t / 1000) + ',"' + formatFloat(r.v) + '"]';
    case 'string': return '{"resultType":"string","result":[' + goJsonFloat(r.t / 1000) + ',' + jsonString(r.s) + ']';
    case 'matrix': return matrixJson(r.matrix);
  }
}
