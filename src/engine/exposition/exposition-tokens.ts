/**
 * Token helpers of the exposition parser: quoted label values and HELP escapes, Go-compatible float
 * parsing. Split from exposition-parser.ts to keep each file to one concern; no state.
 */

const C_NL = 10, C_QUOTE = 34, C_BSLASH = 92;

/** Offset of the closing quote of a quoted value whose content starts at `p` (or a newline / the end). */
export function endOfQuoted(b: Uint8Array, p: number): number {
  const n = b.length;
  for (;;) {
    if (p >= n) return n;
    const c = b[p];
    if (c === C_QUOTE || c === C_NL) return p;
    p += c === C_BSLASH ? 2 : 1;
  }
}

/** Text-format label escapes: `\\`, `\"`, `\n`; any other backslash pair is kept as written. */
export function unescapeLabel(raw: string): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const c = raw.charCodeAt(i);
    if (c !== C_BSLASH) { out += raw[i++]; continue; }
    const n = raw[i + 1];
    out += n === 'n' ? '\n' : n === '"' ? '"' : n === '\\' ? '\\' : '\\' + n;
    i += 2;
  }
  return out;
}

export function unescapeHelp(raw: string, om: boolean): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c !== '\\' || i + 1 >= raw.length) { out += c; continue; }
    const n = raw[++i];
    out += n === 'n' ? '\n' : n === '\\' ? '\\' : om && n === '"' ? '"' : '\\' + n;
  }
  return out;
}

/** Powers of ten that doubles hold exactly (10^0 … 10^22). */
const EXACT_POW10 = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));

/**
 * A float token `b[from, to)` as Go's `strconv.ParseFloat` reads it. Plain decimals of at most 15 digits
 * with an exponent within ±22 are computed from the bytes (Clinger's fast path: the digits and the power of
 * ten are exact doubles, so one multiplication or division rounds correctly, as ParseFloat does); anything
 * else goes through `parseGoFloat` on the decoded token.
 */
export function parseFloatBytes(b: Uint8Array, from: number, to: number): number {
  let i = from;
  let c = b[i];
  const neg = c === 45;
  if (neg || c === 43) i++;
  let m = 0, digits = 0, frac = 0, dot = false;
  for (; i < to; i++) {
    c = b[i];
    if (c >= 48 && c <= 57) { m = m * 10 + (c - 48); digits++; if (dot) frac++; continue; }
    if (c === 46 && !dot) { dot = true; continue; }
    break;
  }
  if (digits === 0 || digits > 15) return slowFloat(b, from, to);
  let exp = 0;
  if (i < to) {
    if ((c | 0x20) !== 101) return slowFloat(b, from, to); // not 'e'/'E'
    i++;
    const eneg = b[i] === 45;
    if (eneg || b[i] === 43) i++;
    const es = i;
    for (; i < to && i - es < 4; i++) {
      c = b[i];
      if (c < 48 || c > 57) break;
      exp = exp * 10 + (c - 48);
    }
    if (i === es || i !== to) return slowFloat(b, from, to);
    if (eneg) exp = -exp;
  }
  const k = exp - frac;
  if (k < -22 || k > 22) return slowFloat(b, from, to);
  const v = k >= 0 ? m * EXACT_POW10[k] : m / EXACT_POW10[-k];
  return neg ? -v : v;
}

function slowFloat(b: Uint8Array, from: number, to: number): number {
  return parseGoFloat(Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1'));
}

/** An integer token of at most 15 digits (optionally negative) from its bytes; NaN for anything else. */
export function parseIntBytes(b: Uint8Array, from: number, to: number): number {
  let i = from;
  const neg = b[i] === 45;
  if (neg) i++;
  if (i === to || to - i > 15) return NaN;
  let m = 0;
  for (; i < to; i++) {
    const c = b[i];
    if (c < 48 || c > 57) return NaN;
    m = m * 10 + (c - 48);
  }
  return neg ? -m : m;
}

const DECIMAL_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Go's `strconv.ParseFloat` over the forms exporters use: decimals with exponent, `Inf`/`+Inf`/`-Inf`/
 * `Infinity` and `NaN` in any case. Returns NaN for an invalid token (callers tell real NaN apart with
 * `isNaNToken`).
 */
export function parseGoFloat(t: string): number {
  const c = t.charCodeAt(0);
  // Fast path: Number() accepts every decimal form Go does; it also takes 0x/0b/0o integers and
  // "Infinity", which the slow path below sorts out.
  if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46) {
    const n = Number(t);
    if (!Number.isNaN(n) && !hasRadixPrefix(t)) return Number.isFinite(n) || DECIMAL_RE.test(t) ? n : parseSpecial(t);
  }
  if (DECIMAL_RE.test(t)) return Number(t);
  return parseSpecial(t);
}

export function hasRadixPrefix(t: string): boolean {
  let i = t.charCodeAt(0) === 45 || t.charCodeAt(0) === 43 ? 1 : 0;
  if (t.charCodeAt(i) !== 48) return false;
  const x = t.charCodeAt(i + 1) | 0x20;
  return x === 0x78 || x === 0x62 || x === 0x6f; // x, b, o
}

export function parseSpecial(t: string): number {
  switch (t.toLowerCase()) {
    case 'inf': case '+inf': case 'infinity': case '+infinity': return Infinity;
    case '-inf': case '-infinity': return -Infinity;
    default: return NaN;
  }
}

export function isNaNText(v: string): boolean {
  const t = v.toLowerCase();
  return t === 'nan' || t === '+nan' || t === '-nan';
}

