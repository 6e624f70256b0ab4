/**
 * Token helpers of the exposition parser: quoted label values and HELP escapes, Go-compatible float
 * parsing. Split from exposition-parser.ts to keep each file to one concern; no state.
 */

const C_NL = 10, C_QUOTE = 34, C_BSLASH = 92;

/** Offset of the closing quote of a quoted value whose content starts at `p` (or a newline / the end). */
export function endOfQuoted(s: string, p: number): number {
  for (;;) {
    const c = s.charCodeAt(p);
    if (c === C_QUOTE || c === C_NL || p >= s.length) return p;
    p += c === C_BSLASH ? 2 : 1;
  }
}

/** Bounded scan: `indexOf` would search the rest of the body and make parsing quadratic. */
export function hasBackslash(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === C_BSLASH) return true;
  return false;
}

/** Text-format label escapes: `\\`, `\"`, `\n`; any other backslash pair is kept as written. */
export function unescapeLabel(s: string, from: number, to: number): string {
  if (!hasBackslash(s, from, to)) return s.slice(from, to);
  let out = '';
  let i = from;
  while (i < to) {
    const c = s.charCodeAt(i);
    if (c !== C_BSLASH) { out += s[i++]; continue; }
    const n = s[i + 1];
    out += n === 'n' ? '\n' : n === '"' ? '"' : n === '\\' ? '\\' : '\\' + n;
    i += 2;
  }
  return out;
}

export function unescapeHelp(s: string, from: number, to: number, om: boolean): string {
  if (!hasBackslash(s, from, to)) return s.slice(from, to);
  let out = '';
  for (let i = from; i < to; i++) {
    const c = s[i];
    if (c !== '\\' || i + 1 >= to) { out += c; continue; }
    const n = s[++i];
    out += n === 'n' ? '\n' : n === '\\' ? '\\' : om && n === '"' ? '"' : '\\' + n;
  }
  return out;
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

export function isNaNToken(s: string, from: number, to: number): boolean {
  return isNaNText(s.slice(from, to));
}

export function isNaNText(v: string): boolean {
  const t = v.toLowerCase();
  return t === 'nan' || t === '+nan' || t === '-nan';
}

