/** Number formatting as Go's `strconv.FormatFloat` does it, which Prometheus uses for values and labels. */

function digitsAndExp(v: number): { neg: boolean; digits: string; exp: number } {
  const s = Math.abs(v).toExponential(); // shortest round-trip digits, like Go's -1 precision
  const [mant, e] = s.split('e');
  return { neg: v < 0 || Object.is(v, -0), digits: mant.replace('.', ''), exp: Number(e) };
}

function special(v: number): string | null {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return null;
}

/** `strconv.FormatFloat(v, 'f', -1, 64)`, with Prometheus's `+Inf`/`-Inf`/`NaN`. */
export function formatFloat(v: number): string {
  const a = v < 0 ? -v : v;
  // JS prints [1e-6, 1e21) with the same shortest digits and no exponent, exactly like Go's 'f', -1.
  if (a >= 1e-6 && a < 1e21) return String(v);
  const sp = special(v);
  if (sp !== null) return sp;
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const { neg, digits, exp } = digitsAndExp(v);
  let out: string;
  if (exp >= digits.length - 1) out = digits + '0'.repeat(exp - digits.length + 1);
  else if (exp >= 0) out = digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
  else out = '0.' + '0'.repeat(-exp - 1) + digits;
  return (neg ? '-' : '') + out;
}

/** Sample values in API JSON: 'f' form, but exponent form below 1e-6 and from 1e21 (`1.5e-07`, `1e+21`). */
export function formatSampleValue(v: number): string {
  const a0 = v < 0 ? -v : v;
  if (a0 >= 1e-6 && a0 < 1e21) return String(v);
  const sp = special(v);
  if (sp !== null) return sp;
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-6 || a >= 1e21)) {
    const { neg, digits, exp } = digitsAndExp(v);
    const mant = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const es = Math.abs(exp) < 10 ? '0' + Math.abs(exp) : String(Math.abs(exp));
    return `${neg ? '-' : ''}${mant}e${exp < 0 ? '-' : '+'}${es}`;
  }
  return formatFloat(v);
}

/** Go's `ParseFloat(s, 64)` for label values such as `le` (accepts Inf/NaN spellings, hex, underscores not). */
export function goParseFloat(s: string): number | null {
  const t = s.toLowerCase();
  const sign = t.startsWith('-') ? -1 : 1;
  const body = t.replace(/^[+-]/, '');
  if (body === 'inf' || body === 'infinity') return sign * Infinity;
  if (body === 'nan') return NaN;
  if (/^0x[0-9a-f]*(\.[0-9a-f]*)?(p[+-]?\d+)?$/.test(body)) {
    const m = /^0x([0-9a-f]*)(?:\.([0-9a-f]*))?(?:p([+-]?\d+))?$/.exec(body)!;
    const int = m[1] || '0', frac = m[2] ?? '';
    const v = parseInt(int + frac, 16) / 16 ** frac.length * 2 ** Number(m[3] ?? 0);
    return Number.isNaN(v) ? null : sign * v;
  }
  if (!/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(body)) return null;
  return sign * Number(body);
}
