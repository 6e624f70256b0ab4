/** Functions over range vectors (2.42 `functions.go`): each call sees one series' window at one step. */
import type { Window } from './storage.ts';
import { quantile } from './quantile.ts';
import { execError } from './value.ts';

export interface RangeArgs {
  win: Window;
  /** Inclusive window bounds (ms) after offset/@. */
  rangeStart: number;
  rangeEnd: number;
  /** Selector range (ms). */
  range: number;
  /** Scalar arguments at this step, by argument position. */
  scalars: number[];
  ts: number;
}
export type RangeFunc = (a: RangeArgs) => number | null;

/** Neumaier-compensated summation step; returns [sum, c]. */
function kahanInc(inc: number, sum: number, c: number): [number, number] {
  const t = sum + inc;
  if (Math.abs(sum) >= Math.abs(inc)) c += (sum - t) + inc;
  else c += (inc - t) + sum;
  return [t, c];
}

function extrapolatedRate(a: RangeArgs, isCounter: boolean, isRate: boolean): number | null {
  const { t, v, s, n } = a.win;
  if (n < 2) return null;
  const first = v[s], last = v[s + n - 1];
  let result = last - first;
  if (isCounter) {
    let prev = first;
    for (let i = s + 1; i < s + n; i++) { const x = v[i]; if (x < prev) result += prev; prev = x; }
  }
  let durationToStart = (t[s] - a.rangeStart) / 1000;
  const durationToEnd = (a.rangeEnd - t[s + n - 1]) / 1000;
  const sampled = (t[s + n - 1] - t[s]) / 1000;
  const avgBetween = sampled / (n - 1);
  if (isCounter && result > 0 && first >= 0) {
    const toZero = sampled * (first / result);
    if (toZero < durationToStart) durationToStart = toZero;
  }
  const threshold = avgBetween * 1.1;
  let interval = sampled;
  interval += durationToStart < threshold ? durationToStart : avgBetween / 2;
  interval += durationToEnd < threshold ? durationToEnd : avgBetween / 2;
  let factor = interval / sampled;
  if (isRate) factor /= a.range / 1000;
  return result * factor;
}

function instantValue(a: RangeArgs, isRate: boolean): number | null {
  const { t, v, s, n } = a.win;
  if (n < 2) return null;
  const last = v[s + n - 1], prev = v[s + n - 2];
  let result = isRate && last < prev ? last : last - prev;
  const dt = t[s + n - 1] - t[s + n - 2];
  if (dt === 0) return null;
  if (isRate) result /= dt / 1000;
  return result;
}

export function linearRegression(t: ArrayLike<number>, v: ArrayLike<number>, s: number, n: number, interceptTime: number): [number, number] {
  let sumX = 0, cX = 0, sumY = 0, cY = 0, sumXY = 0, cXY = 0, sumX2 = 0, cX2 = 0;
  const initY = v[s];
  let constY = true;
  for (let i = s; i < s + n; i++) {
    if (constY && i > s && v[i] !== initY) constY = false;
    const x = (t[i] - interceptTime) / 1e3;
    [sumX, cX] = kahanInc(x, sumX, cX);
    [sumY, cY] = kahanInc(v[i], sumY, cY);
    [sumXY, cXY] = kahanInc(x * v[i], sumXY, cXY);
    [sumX2, cX2] = kahanInc(x * x, sumX2, cX2);
  }
  if (constY) {
    if (initY === Infinity || initY === -Infinity) return [NaN, NaN];
    return [0, initY];
  }
  sumX += cX; sumY += cY; sumXY += cXY; sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  return [slope, sumY / n - (slope * sumX) / n];
}

function holtWinters(a: RangeArgs): number | null {
  const { v: w, s: off, n } = a.win;
  const v = (i: number): number => w[off + i];
  const sf = a.scalars[1], tf = a.scalars[2];
  if (!(sf > 0 && sf < 1)) throw execError(`invalid smoothing factor. Expected: 0 < sf < 1, got: ${sf.toFixed(6)}`);
  if (!(tf > 0 && tf < 1)) throw execError(`invalid trend factor. Expected: 0 < tf < 1, got: ${tf.toFixed(6)}`);
  if (n < 2) return null;
  let s0 = 0, s1 = v(0), b = v(1) - v(0);
  for (let i = 1; i < n; i++) {
    const x = sf * v(i);
    if (i - 1 !== 0) b = tf * (s1 - s0) + (1 - tf) * b;
    const y = (1 - sf) * (s1 + b);
    s0 = s1; s1 = x + y;
  }
  return s1;
}

function avgOverTime(a: RangeArgs): number {
  const { v, s, n } = a.win;
  let mean = 0, count = 0, c = 0;
  for (let i = s; i < s + n; i++) {
    count++;
    const x = v[i];
    if (mean === Infinity || mean === -Infinity) {
      if ((x === Infinity || x === -Infinity) && (mean > 0) === (x > 0)) continue;
      if (Number.isFinite(x)) continue;
    }
    [mean, c] = kahanInc(x / count - mean / count, mean, c);
  }
  return mean === Infinity || mean === -Infinity ? mean : mean + c;
}

function variance(a: RangeArgs): number {
  const { v, s, n } = a.win;
  let count = 0, mean = 0, cMean = 0, aux = 0, cAux = 0;
  for (let i = s; i < s + n; i++) {
    count++;
    const delta = v[i] - (mean + cMean);
    [mean, cMean] = kahanInc(delta / count, mean, cMean);
    [aux, cAux] = kahanInc(delta * (v[i] - (mean + cMean)), aux, cAux);
  }
  return (aux + cAux) / count;
}

export const RANGE_FUNCS: Record<string, RangeFunc> = {
  rate: (a) => extrapolatedRate(a, true, true),
  increase: (a) => extrapolatedRate(a, true, false),
  delta: (a) => extrapolatedRate(a, false, false),
  irate: (a) => instantValue(a, true),
  idelta: (a) => instantValue(a, false),
  deriv: (a) => (a.win.n < 2 ? null : linearRegression(a.win.t, a.win.v, a.win.s, a.win.n, a.win.t[a.win.s])[0]),
  predict_linear: (a) => {
    if (a.win.n < 2) return null;
    const [slope, intercept] = linearRegression(a.win.t, a.win.v, a.win.s, a.win.n, a.ts);
    return slope * a.scalars[1] + intercept;
  },
  holt_winters: holtWinters,
  changes: (a) => {
    const { v, s, n } = a.win;
    let changes = 0;
    for (let i = s + 1; i < s + n; i++) if (v[i] !== v[i - 1] && !(Number.isNaN(v[i]) && Number.isNaN(v[i - 1]))) changes++;
    return changes;
  },
  resets: (a) => {
    const { v, s, n } = a.win;
    let r = 0;
    for (let i = s + 1; i < s + n; i++) if (v[i] < v[i - 1]) r++;
    return r;
  },
  avg_over_time: avgOverTime,
  sum_over_time: (a) => {
    let sum = 0, c = 0;
    const { v, s, n } = a.win;
    for (let i = s; i < s + n; i++) [sum, c] = kahanInc(v[i], sum, c);
    return sum === Infinity || sum === -Infinity ? sum : sum + c;
  },
  count_over_time: (a) => a.win.n,
  min_over_time: (a) => {
    const { v, s, n } = a.win;
    let m = v[s];
    for (let i = s; i < s + n; i++) if (v[i] < m || Number.isNaN(m)) m = v[i];
    return m;
  },
  max_over_time: (a) => {
    const { v, s, n } = a.win;
    let m = v[s];
    for (let i = s; i < s + n; i++) if (v[i] > m || Number.isNaN(m)) m = v[i];
    return m;
  },
  last_over_time: (a) => a.win.v[a.win.s + a.win.n - 1],
  present_over_time: () => 1,
  absent_over_time: () => 1,
  quantile_over_time: (a) => quantile(a.scalars[0], a.win.values()),
  stddev_over_time: (a) => Math.sqrt(variance(a)),
  stdvar_over_time: variance,
};
