/**
 * The bits of Go's `fmt`/`strconv` number formatting that alert templates and the rules API show to
 * users: `%v`/`%g` of a float64, `%.Ng`, `%e`, `%f`, and `FormatFloat(v, 'e', -1, 64)` (`1e+00`).
 */

function special(v: number, plus: boolean): string | null {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return plus ? '+Inf' : '+Inf';
  if (v === -Infinity) return '-Inf';
  return null;
}

/**
 * `toFixed`/`toExponential` round exact ties up; Go rounds them to even (`%.1f` of 2.25 is 2.2). When the
 * exact decimal expansion is a tie, keep the truncated digits if their last digit is even.
 */
function halfEven(rounded: string, exact: string, keep: number): string {
  const tail = exact.slice(keep);
  if (!/^50*$/.test(tail.replace(/e.*$/, ''))) return rounded;
  const truncated = exact.slice(0, keep);
  const last = truncated.replace(/\D/g, '').slice(-1);
  if (Number(last) % 2 !== 0) return rounded;
  return truncated.replace(/\.$/, '') + (exact.includes('e') ? exact.slice(exact.indexOf('e')) : '');
}

function toFixedEven(a: number, prec: number): string {
  const exact = a.toFixed(Math.min(100, prec + 30));
  return halfEven(a.toFixed(prec), exact, exact.indexOf('.') + 1 + prec);
}

function toExpEven(a: number, prec: number): string {
  const exact = a.toExponential(Math.min(100, prec + 30));
  return halfEven(a.toExponential(prec), exact.slice(0, exact.indexOf('e')), 2 + prec)
    .replace(/^([^e]*)$/, `$1${a.toExponential(prec).slice(a.toExponential(prec).indexOf('e'))}`);
}

/** Decimal digits (no trailing zeros) and decimal-point position, rounded to `prec` digits (-1 = shortest). */
function digitsOf(v: number, prec: number): { neg: boolean; digits: string; dp: number } {
  const a = Math.abs(v);
  const neg = v < 0 || Object.is(v, -0);
  if (a === 0) return { neg, digits: '0', dp: 1 };
  const s = prec < 0 ? a.toExponential() : toExpEven(a, Math.max(0, prec - 1));
  const [mant, e] = s.split('e');
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  return { neg, digits, dp: Number(e) + 1 };
}

function expForm(neg: boolean, digits: string, dp: number, fracDigits: number, pad: boolean): string {
  let d = digits;
  if (pad) d = d.padEnd(fracDigits + 1, '0');
  const mant = d.length > 1 ? `${d[0]}.${d.slice(1)}` : d;
  const exp = dp - 1;
  const ae = Math.abs(exp);
  return `${neg ? '-' : ''}${mant}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
}

function fixedForm(neg: boolean, digits: string, dp: number, frac: number): string {
  let int: string, fr: string;
  if (dp <= 0) { int = '0'; fr = '0'.repeat(-dp) + digits; } else if (dp >= digits.length) {
    int = digits + '0'.repeat(dp - digits.length); fr = '';
  } else { int = digits.slice(0, dp); fr = digits.slice(dp); }
  fr = fr.padEnd(frac, '0').slice(0, frac);
  return `${neg ? '-' : ''}${int}${frac > 0 ? '.' + fr : ''}`;
}

/** Go's `%g` with precision `prec` (-1: shortest, as `%v` prints a float64). */
export function goG(v: number, prec = -1): string {
  const sp = special(v, true);
  if (sp !== null) return sp;
  if (prec === 0) prec = 1;
  const { neg, digits, dp } = digitsOf(v, prec);
  let eprec = prec < 0 ? 6 : prec;
  if (prec >= 0 && eprec > digits.length && digits.length >= dp) eprec = digits.length;
  const exp = dp - 1;
  if (exp < -4 || exp >= eprec) return expForm(neg, digits, dp, 0, false);
  return fixedForm(neg, digits, dp, Math.max(digits.length - dp, 0));
}

/** Go's `%.Nf` (N defaults to 6). */
export function goF(v: number, prec = 6): string {
  const sp = special(v, true);
  if (sp !== null) return sp;
  const neg = v < 0 || Object.is(v, -0);
  const s = toFixedEven(Math.abs(v), Math.min(prec, 70));
  return (neg ? '-' : '') + s;
}

/** Go's `%.Ne` (N defaults to 6) and, with -1, `FormatFloat(v, 'e', -1, 64)`. */
export function goE(v: number, prec = 6): string {
  const sp = special(v, true);
  if (sp !== null) return sp;
  if (prec < 0) {
    const { neg, digits, dp } = digitsOf(v, -1);
    return expForm(neg, digits, dp, 0, false);
  }
  const { neg, digits, dp } = digitsOf(v, prec + 1);
  return expForm(neg, v === 0 ? '0' : digits, dp, prec, true);
}
