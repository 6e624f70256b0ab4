/**
 * Date parsing for date detection and date-field coercion: ES/Joda named formats the dynamic mapper and
 * common mappings use, plus simple Joda patterns (`yyyy/MM/dd HH:mm:ss`), joined with `||`.
 * Returns epoch milliseconds (UTC unless the text carries an offset) or null.
 */

export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const ISO = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function build(y: number, mo: number, d: number, h: number, mi: number, s: number, frac: string, tz: string | undefined): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  let t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(t);
  if (check.getUTCDate() !== d) return null; // 2015-02-30
  if (tz && tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const off = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0');
    t -= sign * off * 60000;
  }
  return t;
}

function parseIso(v: string, strict: boolean): number | null {
  const m = ISO.exec(v);
  if (!m) return null;
  if (strict && ((m[2] && m[2].length !== 2) || (m[4] && !m[5]))) return null;
  return build(Number(m[1]), Number(m[2] ?? 1), Number(m[3] ?? 1), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), m[7] ?? '', m[8]);
}

const patternCache = new Map<string, RegExp | null>();

/** Converts a Joda pattern made of yyyy MM dd HH mm ss SSS Z and literals into a regex with named groups. */
function jodaRegex(p: string): RegExp | null {
  let cached = patternCache.get(p);
  if (cached !== undefined) return cached;
  const tokens: [string, string][] = [['yyyy', '(?<y>\\d{4})'], ['MM', '(?<mo>\\d{2})'], ['dd', '(?<d>\\d{2})'], ['HH', '(?<h>\\d{2})'],
    ['mm', '(?<mi>\\d{2})'], ['ss', '(?<s>\\d{2})'], ['SSS', '(?<f>\\d{3})'], ['Z', '(?<z>Z|[+-]\\d{2}:?\\d{2})']];
  let re = '^';
  let i = 0;
  cached = null;
  outer: while (i < p.length) {
    for (const [t, r] of tokens) if (p.startsWith(t, i)) { re += r; i += t.length; continue outer; }
    if (/[a-zA-Z]/.test(p[i])) { patternCache.set(p, null); return null; }
    if (p[i] === "'") { const end = p.indexOf("'", i + 1); const lit = p.slice(i + 1, end < 0 ? p.length : end); re += lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); i = end < 0 ? p.length : end + 1; continue; }
    re += p[i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    i++;
  }
  cached = new RegExp(`${re}$`);
  patternCache.set(p, cached);
  return cached;
}

function parseOne(v: string, f: string): number | null {
  switch (f) {
    case 'strict_date_optional_time': case 'date_optional_time': case 'strict_date_time': case 'date_time':
    case 'strict_date_time_no_millis': case 'date_time_no_millis':
      return parseIso(v, f.startsWith('strict'));
    case 'strict_date': case 'date': case 'yyyy-MM-dd':
      return /^\d{4}-\d{2}-\d{2}$/.test(v) ? parseIso(v, true) : null;
    case 'epoch_millis': return /^-?\d+(\.\d+)?$/.test(v) ? Math.trunc(Number(v)) : null;
    case 'epoch_second': return /^-?\d+(\.\d+)?$/.test(v) ? Math.trunc(Number(v) * 1000) : null;
    case 'basic_date': return /^\d{8}$/.test(v) ? parseIso(`${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6)}`, true) : null;
    default: {
      const re = jodaRegex(f);
      const m = re?.exec(v);
      if (!m?.groups) return null;
      const g = m.groups;
      return build(Number(g.y ?? 1970), Number(g.mo ?? 1), Number(g.d ?? 1), Number(g.h ?? 0), Number(g.mi ?? 0), Number(g.s ?? 0), g.f ?? '', g.z);
    }
  }
}

/** Parses `v` with a `||`-joined format list; numbers are epoch millis. */
export function parseDate(v: unknown, format: string = DEFAULT_DATE_FORMAT): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : null;
  if (typeof v !== 'string') return null;
  for (const f of format.split('||')) {
    const t = parseOne(v, f.trim());
    if (t !== null) return t;
  }
  return null;
}

/** Date detection of the dynamic mapper: the format to map a string with, or null when not a date. */
export function detectDate(v: string, formats: readonly string[]): string | null {
  if (v.length < 8 || !/^\d/.test(v) || /^-?\d+(\.\d+)?$/.test(v)) return null;
  for (const f of formats) {
    if (f === 'strict_date_optional_time' || f === 'date_optional_time') {
      if (parseIso(v, true) !== null && /^\d{4}-/.test(v)) return DEFAULT_DATE_FORMAT;
      continue;
    }
    // "yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z" — ES prints the detected format without the zone part.
    const alts = f.split('||').map((a) => a.replace(/\s*Z$/, ''));
    for (const a of alts) if (parseOne(v, a) !== null) return alts.join('||');
  }
  return null;
}

export const DEFAULT_DYNAMIC_DATE_FORMATS = ['strict_date_optional_time', 'yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z'];
