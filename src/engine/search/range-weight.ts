/**
 * `range` on numbers and dates (doc-value scans; integer bounds rounded inward by comparison, float fields
 * compared in float) and on keyword/text terms (lexicographic over the dictionary). Date bounds accept ES
 * date math: `now`, `<date>||`, `+1d`, `-2h`, `/d` rounding (gte/lt round down, gt/lte round up).
 */
import { parseDate, zoneOffsetAt, DEFAULT_DATE_FORMAT } from '../analysis/date-format.ts';
import { applyDateMath } from '../analysis/date-math.ts';
import type { RangeQuery } from './query-ast.ts';
import { NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';
import { matchingTermIds, rangeScanWeight, termSetWeight } from './term-weights.ts';
import { NUMERIC_TYPES } from '../indexing/field-infos.ts';
import { queryShardError } from './shard-errors.ts';

/** Parses a date bound with optional math; `roundUp` selects the end of a rounded unit. */
export function parseDateValue(ctx: CompileContext, v: unknown, format: string | undefined, tz: string | undefined, roundUp: boolean): number {
  if (typeof v === 'number') return Math.trunc(v);
  const s = String(v);
  let base: number, rest: string;
  if (s.startsWith('now')) { base = ctx.nowMs; rest = s.slice(3); } else {
    const i = s.indexOf('||');
    const text = i >= 0 ? s.slice(0, i) : s;
    rest = i >= 0 ? s.slice(i + 2) : '';
    try {
      base = parseDate(text, format ?? DEFAULT_DATE_FORMAT);
      if (tz && !/[zZ]|[+-]\d\d:?\d\d$/.test(text) && !/^\d+$/.test(text)) base -= zoneOffsetAt(tz, base);
    } catch (e) {
      throw queryShardError(ctx, `failed to parse date field [${text}] with format [${format ?? DEFAULT_DATE_FORMAT}]`);
    }
  }
  const out = applyDateMath(base, rest, roundUp, tz ? zoneOffsetAt(tz, base) : 0);
  if (out === null) throw queryShardError(ctx, `operator not supported for date math [${rest}]`);
  return out;
}

export function rangeWeight(ctx: CompileContext, q: RangeQuery, boost: number): Weight {
  const fi = ctx.field(q.field);
  if (!fi) return NULL_WEIGHT;
  if (NUMERIC_TYPES.has(fi.type) || fi.type === 'date' || fi.type === 'boolean') {
    const conv = (v: unknown, up: boolean): number => {
      if (fi.type === 'date') return parseDateValue(ctx, v, q.format ?? fi.format, q.timeZone, up);
      if (fi.type === 'boolean') return v === true || v === 'true' ? 1 : 0;
      const n = Number(v);
      if (Number.isNaN(n)) throw queryShardError(ctx, `For input string: "${String(v)}"`);
      return fi.type === 'float' || fi.type === 'half_float' ? Math.fround(n) : n;
    };
    const gt = q.gt !== undefined ? conv(q.gt, true) : undefined;
    const gte = q.gte !== undefined ? conv(q.gte, false) : undefined;
    const lt = q.lt !== undefined ? conv(q.lt, false) : undefined;
    const lte = q.lte !== undefined ? conv(q.lte, true) : undefined;
    const lo = gt ?? gte ?? -Infinity, loIncl = gt === undefined;
    const hi = lt ?? lte ?? Infinity, hiIncl = lt === undefined;
    return rangeScanWeight(q.field, boost, lo, loIncl, hi, hiIncl);
  }
  if (fi.type !== 'keyword' && fi.type !== 'text') return NULL_WEIGHT;
  const lo = q.gt ?? q.gte, hi = q.lt ?? q.lte;
  const loS = lo === undefined ? undefined : String(lo), hiS = hi === undefined ? undefined : String(hi);
  return termSetWeight(q.field, boost, (fp) => matchingTermIds(fp, (t) => {
    if (loS !== undefined && (q.gt !== undefined ? cmpCodePoints(t, loS) <= 0 : cmpCodePoints(t, loS) < 0)) return false;
    if (hiS !== undefined && (q.lt !== undefined ? cmpCodePoints(t, hiS) >= 0 : cmpCodePoints(t, hiS) > 0)) return false;
    return true;
  }));
}

/** UTF-8 byte order (= code point order), which differs from JS's UTF-16 order for astral characters. */
export function cmpCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff, sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
