/**
 * Java's `Float.toString` / `Double.toString` as ES prints scores and aggregation values: the shortest
 * decimal that round-trips, at least one fractional digit, scientific `d.dddE<n>` outside [1e-3, 1e7).
 */
import { RawJson } from './json.ts';

function layout(digits: string, exp: number, neg: boolean): string {
  // digits: significant digits without dot; value = 0.d1d2... × 10^exp
  let s: string;
  const mag = exp - 1; // exponent of the leading digit
  if (mag >= -3 && mag < 7) {
    if (exp <= 0) s = '0.' + '0'.repeat(-exp) + digits;
    else if (exp >= digits.length) s = digits + '0'.repeat(exp - digits.length) + '.0';
    else s = digits.slice(0, exp) + '.' + digits.slice(exp);
  } else {
    s = digits[0] + '.' + (digits.length > 1 ? digits.slice(1) : '0') + 'E' + mag;
  }
  return (neg ? '-' : '') + s;
}

function fromShortest(repr: string, neg: boolean): string {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(repr)!;
  const intPart = m[1], frac = m[2] ?? '', e = Number(m[3] ?? 0);
  let digits = (intPart + frac).replace(/^0+/, '');
  const lead = (intPart + frac).length - digits.length;
  let exp = intPart.length + e - lead;
  digits = digits.replace(/0+$/, '');
  if (digits === '') { digits = '0'; exp = 1; }
  return layout(digits, exp, neg);
}

export function javaFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? 'Infinity' : '-Infinity';
  if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0';
  const x = Math.fround(f);
  let repr = '';
  for (let p = 1; p <= 9; p++) {
    const s = Math.abs(x).toPrecision(p);
    if (Math.fround(Number(s)) === Math.abs(x)) { repr = String(Number(s)); break; }
  }
  return fromShortest(repr, x < 0);
}

export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (!Number.isFinite(d)) return d > 0 ? 'Infinity' : '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  return fromShortest(String(Math.abs(d)), d < 0);
}

/** A float JSON number (scores). */
export const jf = (f: number): RawJson => new RawJson(javaFloat(f));
/** A double JSON number (aggregation values); NaN/Infinity are printed as ES does for doubles in JSON: as strings. */
export const jd = (d: number): RawJson | string => (Number.isFinite(d) ? new RawJson(javaDouble(d)) : javaDouble(d));
