/** Functions over instant vectors and scalars (2.42 `functions.go`), called once per evaluation step. */
import type { Labels } from '../tsdb/api.ts';
import { MATCH_EQUAL } from '../tsdb/api.ts';
import type { Call, Expr } from './ast.ts';
import { dropMetricName, getLabel, hasLabel, LABEL_NAME_RE, cachedLabelsKey, setLabel } from './labels.ts';
import { execError } from './value.ts';
import type { Vector } from './value.ts';
import { bucketQuantile } from './quantile.ts';
import type { Bucket } from './quantile.ts';
import { goParseFloat } from './format.ts';
import { bottomLess, sortReverse, topLess } from './aggregate.ts';
import { compileGoRegex, expandGoTemplate, type Re2Regex } from '../regex/index.ts';

export type VectorFunc = (args: Vector[], call: Call, ts: number) => Vector;

function simple(f: (v: number) => number): VectorFunc {
  return (args) => args[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: f(s.v) }));
}

function str(e: Expr): string {
  while (e.kind === 'paren') e = e.expr;
  if (e.kind !== 'string') throw execError('expected a string argument');
  return e.val;
}

/** `time.Unix(int64(v), 0).UTC()` for the date functions. */
function dateFn(f: (d: Date) => number): VectorFunc {
  return (args, _c, ts) => {
    if (args.length === 0) return [{ metric: [], t: ts, v: f(new Date(Math.trunc(ts / 1000) * 1000)) }];
    return args[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: f(new Date(Math.trunc(s.v) * 1000)) }));
  };
}

function sgn(v: number): number { return v < 0 ? -1 : v > 0 ? 1 : v; }

export const VECTOR_FUNCS: Record<string, VectorFunc> = {
  abs: simple(Math.abs), ceil: simple(Math.ceil), floor: simple(Math.floor), exp: simple(Math.exp),
  sqrt: simple(Math.sqrt), ln: simple(Math.log), log2: simple(Math.log2), log10: simple(Math.log10), sgn: simple(sgn),
  sin: simple(Math.sin), cos: simple(Math.cos), tan: simple(Math.tan), asin: simple(Math.asin), acos: simple(Math.acos),
  atan: simple(Math.atan), sinh: simple(Math.sinh), cosh: simple(Math.cosh), tanh: simple(Math.tanh),
  asinh: simple(Math.asinh), acosh: simple(Math.acosh), atanh: simple(Math.atanh),
  deg: simple((v) => (v * 180) / Math.PI), rad: simple((v) => (v * Math.PI) / 180),
  pi: () => [{ metric: [], t: 0, v: Math.PI }],
  time: (_a, _c, ts) => [{ metric: [], t: ts, v: ts / 1000 }],
  vector: (a) => [{ metric: [], t: 0, v: a[0][0].v }],
  scalar: (a) => [{ metric: [], t: 0, v: a[0].length === 1 ? a[0][0].v : NaN }],
  timestamp: (a) => a[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: s.t / 1000 })),
  round: (a, c) => {
    const toNearest = c.args.length >= 2 ? a[1][0].v : 1;
    const inv = 1 / toNearest;
    return a[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: Math.floor(s.v * inv + 0.5) / inv }));
  },
  clamp: (a) => {
    const min = a[1][0].v, max = a[2][0].v;
    if (max < min) return [];
    return a[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: goMax(min, goMin(max, s.v)) }));
  },
  clamp_max: (a) => a[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: goMin(a[1][0].v, s.v) })),
  clamp_min: (a) => a[0].map((s) => ({ metric: dropMetricName(s.metric), t: s.t, v: goMax(a[1][0].v, s.v) })),
  sort: (a) => { const v = a[0].slice(); sortReverse(v, bottomLess); return v; },
  sort_desc: (a) => { const v = a[0].slice(); sortReverse(v, topLess); return v; },
  days_in_month: dateFn((d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()),
  day_of_month: dateFn((d) => d.getUTCDate()),
  day_of_week: dateFn((d) => d.getUTCDay()),
  day_of_year: dateFn((d) => Math.round((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400000) + 1),
  hour: dateFn((d) => d.getUTCHours()),
  minute: dateFn((d) => d.getUTCMinutes()),
  month: dateFn((d) => d.getUTCMonth() + 1),
  year: dateFn((d) => d.getUTCFullYear()),
  histogram_quantile: histogramQuantile,
  label_replace: labelReplace,
  label_join: labelJoin,
  // Native histograms are out of scope: over classic float samples these yield nothing, as in 2.42.
  histogram_count: () => [], histogram_sum: () => [], histogram_fraction: () => [],
};

/** Go's math.Max/Min: NaN wins, and +0 beats -0 for Max. */
function goMax(a: number, b: number): number { return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b); }
function goMin(a: number, b: number): number { return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b); }

/** An input series' bucket facts, worked out once per label-set object (series keep theirs across steps). */
interface BucketSeries { ub: number; key: string; metric: Labels }
const bucketSeries = new WeakMap<Labels, BucketSeries | null>();
/** Output label sets by group key per call, so every step yields the same label objects. */
const groupLabels = new WeakMap<Call, Map<string, Labels>>();

function bucketSeriesOf(ls: Labels, call: Call): BucketSeries | null {
  let b = bucketSeries.get(ls);
  if (b !== undefined) return b;
  const ub = hasLabel(ls, 'le') ? goParseFloat(getLabel(ls, 'le')) : null;
  if (ub === null) b = null;
  else {
    const key = cachedLabelsKey(ls.filter((l) => l.name !== 'le'));
    let byKey = groupLabels.get(call);
    if (!byKey) { byKey = new Map(); groupLabels.set(call, byKey); }
    let metric = byKey.get(key);
    if (!metric) { metric = ls.filter((l) => l.name !== 'le' && l.name !== '__name__'); byKey.set(key, metric); }
    b = { ub, key, metric };
  }
  bucketSeries.set(ls, b);
  return b;
}

function histogramQuantile(a: Vector[], call: Call): Vector {
  const q = a[0][0].v;
  const groups = new Map<string, { metric: Labels; buckets: Bucket[] }>();
  for (const s of a[1]) {
    const bs = bucketSeriesOf(s.metric, call);
    if (bs === null) continue;
    let g = groups.get(bs.key);
    if (!g) { g = { metric: bs.metric, buckets: [] }; groups.set(bs.key, g); }
    g.buckets.push({ upperBound: bs.ub, count: s.v });
  }
  const out: Vector = [];
  for (const g of groups.values()) out.push({ metric: g.metric, t: 0, v: bucketQuantile(q, g.buckets) });
  return out;
}

function labelReplace(a: Vector[], c: Call): Vector {
  const dst = str(c.args[1]), repl = str(c.args[2]), src = str(c.args[3]), reStr = str(c.args[4]);
  let re: Re2Regex;
  try { re = compileGoRegex(reStr); } catch { throw execError(`invalid regular expression in label_replace(): ${reStr}`); }
  if (!LABEL_NAME_RE.test(dst)) throw execError(`invalid destination label name in label_replace(): ${dst}`);
  return a[0].map((s) => {
    const m = re.exec(getLabel(s.metric, src));
    if (!m) return { metric: s.metric, t: s.t, v: s.v };
    return { metric: setLabel(s.metric, dst, expandGoTemplate(repl, m)), t: s.t, v: s.v };
  });
}

function labelJoin(a: Vector[], c: Call): Vector {
  const dst = str(c.args[1]), sep = str(c.args[2]);
  const srcs = c.args.slice(3).map(str);
  for (const s of srcs) if (!LABEL_NAME_RE.test(s)) throw execError(`invalid source label name in label_join(): ${s}`);
  if (!LABEL_NAME_RE.test(dst)) throw execError(`invalid destination label name in label_join(): ${dst}`);
  return a[0].map((s) => {
    const val = srcs.map((n) => getLabel(s.metric, n)).join(sep);
    return { metric: setLabel(s.metric, dst, val), t: s.t, v: s.v };
  });
}

/** Labels of `absent()`'s output: the equality matchers of a plain selector argument. */
export function absentLabels(e: Expr): Labels {
  const vs = e.kind === 'vector' ? e : e.kind === 'matrix' ? e.vs : null;
  if (!vs) return [];
  let m: Labels = [];
  const empty: string[] = [];
  for (const ma of vs.matchers) {
    if (ma.name === '__name__') continue;
    if (ma.type === MATCH_EQUAL && !hasLabel(m, ma.name)) m = setLabel(m, ma.name, ma.value);
    else empty.push(ma.name);
  }
  for (const n of empty) m = m.filter((l) => l.name !== n);
  return m;
}
