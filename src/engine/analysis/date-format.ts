/**
 * Date parsing and printing for `date` fields: the ES 6.8 default `strict_date_optional_time||epoch_millis`,
 * the common named formats and Joda-style patterns (`yyyy/MM/dd HH:mm:ss`, `||` alternatives). Values are
 * epoch milliseconds (UTC). Only fixed offsets and `UTC`/`Z` are understood as zones in patterns; named zones
 * are resolved through Intl for `time_zone` parameters. The one date parser: the mapper's validation and
 * date detection, indexing, range queries and aggregations all read a date the same way, so a document the
 * mapper accepts is a document the indexer can index.
 */
import { InvalidArgumentError } from '../errors.ts';

export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const ISO_RE = /^([+-]?\d{4,9})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

const NAMED: Record<string, string> = {
  date: 'yyyy-MM-dd', strict_date: 'yyyy-MM-dd', basic_date: 'yyyyMMdd', year_month_day: 'yyyy-MM-dd',
  strict_year_month_day: 'yyyy-MM-dd', year: 'yyyy', year_month: 'yyyy-MM', strict_year_month: 'yyyy-MM',
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss", strict_date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_time: "yyyy-MM-dd'T'HH:mm:ss.SSSZZ", strict_date_time: "yyyy-MM-dd'T'HH:mm:ss.SSSZZ",
  date_time_no_millis: "yyyy-MM-dd'T'HH:mm:ssZZ", strict_date_time_no_millis: "yyyy-MM-dd'T'HH:mm:ssZZ",
  basic_date_time: "yyyyMMdd'T'HHmmss.SSSZ", hour_minute_second: 'HH:mm:ss', date_hour_minute: "yyyy-MM-dd'T'HH:mm",
};

function zoneOffsetMs(z: string | undefined): number {
  if (!z || z === 'Z' || z === 'UTC') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(z);
  if (!m) throw new InvalidArgumentError('INVALID_ARGUMENT', `invalid zone [${z}]`);
  const v = (Number(m[2]) * 60 + Number(m[3] ?? 0)) * 60_000;
  return m[1] === '-' ? -v : v;
}

/**
 * Epoch ms of a calendar date and time, or null when a field is out of its range (month 13, 2015-02-30, hour
 * 24): Joda refuses those, and `Date.UTC` would silently roll them over.
 */
function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  return y >= 0 && y < 100 ? shiftYear(t, y) : t;
}

function daysInMonth(y: number, mo: number): number {
  return mo === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
}

/** Char code of '0'; a digit d is `c - D0` when 0 ≤ that ≤ 9. */
const D0 = 48;

/** Digits s[from, to) as a number, or -1 when one is not a digit. */
function digits(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - D0;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * `yyyy-MM-ddTHH:mm:ss[.SSS]Z`, the shape `Date#toISOString` and most log shippers write, read from its char
 * codes; undefined for any other shape (the regex reads those). Indexing a document parses its dates twice (the
 * mapper's check, then the indexer), and the regex with its eight groups was 2.6% of a bulk load's worker CPU.
 */
function parseIsoCanonical(s: string): number | null | undefined {
  const n = s.length;
  if ((n !== 20 && n !== 24) || s.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  if (n === 24 && s.charCodeAt(19) !== 46) return undefined;
  const y = digits(s, 0, 4), mo = digits(s, 5, 7), d = digits(s, 8, 10), h = digits(s, 11, 13), mi = digits(s, 14, 16), sec = digits(s, 17, 19);
  const ms = n === 24 ? digits(s, 20, 23) : 0;
  if ((y | mo | d | h | mi | sec | ms) < 0) return undefined;
  return utcMs(y, mo, d, h, mi, sec, ms);
}

function parseIso(s: string): number | null {
  const fast = parseIsoCanonical(s);
  if (fast !== undefined) return fast;
  const m = ISO_RE.exec(s);
  if (!m) return null;
  const frac = m[7] ? Number((m[7] + '000').slice(0, 3)) : 0;
  const t = utcMs(Number(m[1]), m[2] ? Number(m[2]) : 1, m[3] ? Number(m[3]) : 1, Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), frac);
  return t === null ? null : t - zoneOffsetMs(m[8]);
}

// Date.UTC maps years 0..99 to 1900..1999.
function shiftYear(ms: number, y: number): number {
  const d = new Date(ms); d.setUTCFullYear(y); return d.getTime();
}

const TOKEN_RE = /'([^']*)'|y+|Y+|M+|d+|H+|h+|m+|s+|S+|Z+|a|E+|./g;

function patternParse(pattern: string, s: string): number | null {
  let re = '^';
  const fields: string[] = [];
  for (const m of pattern.matchAll(TOKEN_RE)) {
    const t = m[0];
    if (m[1] !== undefined) { re += escapeRe(m[1]); continue; }
    const c = t[0];
    if ('yYMdHhmsS'.includes(c)) { re += c === 'S' ? '(\\d{1,9})' : c === 'y' || c === 'Y' ? '([+-]?\\d{1,9})' : `(\\d{1,${Math.max(2, t.length)}})`; fields.push(c); }
    else if (c === 'Z') { re += '(Z|[+-]\\d{2}:?\\d{2})'; fields.push('Z'); }
    else re += escapeRe(t);
  }
  const m = new RegExp(re + '$').exec(s);
  if (!m) return null;
  const v: Record<string, string> = {};
  fields.forEach((f, i) => { v[f] = m[i + 1]; });
  const t = utcMs(Number(v.y ?? v.Y ?? 1970), v.M ? Number(v.M) : 1, v.d ? Number(v.d) : 1, Number(v.H ?? v.h ?? 0), Number(v.m ?? 0),
    Number(v.s ?? 0), v.S ? Number((v.S + '000').slice(0, 3)) : 0);
  return t === null ? null : t - zoneOffsetMs(v.Z);
}

function escapeRe(s: string): string { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

function parseOne(fmt: string, s: string): number | null {
  switch (fmt) {
    case 'strict_date_optional_time': case 'date_optional_time': case 'strict_date_optional_time_nanos':
      return parseIso(s);
    case 'epoch_millis': return /^-?\d+(\.\d+)?$/.test(s) ? Math.trunc(Number(s)) : null;
    case 'epoch_second': return /^-?\d+(\.\d+)?$/.test(s) ? Math.trunc(Number(s) * 1000) : null;
  }
  return patternParse(NAMED[fmt] ?? fmt, s);
}

/** The alternatives of a format (`a||b`), trimmed; formats are few, so each is split once. */
const formatParts = new Map<string, string[]>();
function alternatives(format: string): string[] {
  let parts = formatParts.get(format);
  if (parts === undefined) {
    parts = format.split('||').map((f) => f.trim());
    if (formatParts.size < 1024) formatParts.set(format, parts);
  }
  return parts;
}

/** Epoch ms of a date value (string or number) read with `format` (`a||b` alternatives), or null when none matches. */
export function parseDateOrNull(value: unknown, format: string = DEFAULT_DATE_FORMAT): number | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    if (alternatives(format).includes('epoch_second')) return Math.trunc(value * 1000);
    return Math.trunc(value);
  }
  const s = String(value).trim();
  for (const f of alternatives(format)) {
    const r = parseOne(f, s);
    if (r !== null && Number.isFinite(r)) return r;
  }
  return null;
}

/** `parseDateOrNull` that throws ES's `failed to parse date field [...] with format [...]` when none matches. */
export function parseDate(value: unknown, format: string = DEFAULT_DATE_FORMAT): number {
  const r = parseDateOrNull(value, format);
  if (r === null) throw new InvalidArgumentError('INVALID_ARGUMENT', `failed to parse date field [${String(value).trim()}] with format [${format}]`);
  return r;
}

/** The dynamic mapper's `dynamic_date_formats` default (ES 6.8). */
export const DEFAULT_DYNAMIC_DATE_FORMATS = ['strict_date_optional_time', 'yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z'];

/** Date detection of the dynamic mapper: the format to map a string with, or null when it is not a date. */
export function detectDate(v: string, formats: readonly string[]): string | null {
  if (v.length < 8 || !/^\d/.test(v) || /^-?\d+(\.\d+)?$/.test(v)) return null;
  for (const f of formats) {
    if (f === 'strict_date_optional_time' || f === 'date_optional_time') {
      if (/^\d{4}-/.test(v) && parseIso(v) !== null) return DEFAULT_DATE_FORMAT;
      continue;
    }
    // "yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z" — ES prints the detected format without the zone part.
    const alts = f.split('||').map((a) => a.replace(/\s*Z$/, ''));
    for (const a of alts) if (parseOne(a, v) !== null) return alts.join('||');
  }
  return null;
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** Prints epoch millis with the first format of `format` (ES prints with the first alternative). */
export function formatDate(ms: number, format: string = DEFAULT_DATE_FORMAT, offsetMs = 0): string {
  const f = format.split('||')[0].trim();
  if (f === 'epoch_millis') return String(ms);
  if (f === 'epoch_second') return String(Math.trunc(ms / 1000));
  if (f === 'strict_date_optional_time' || f === 'date_optional_time') return isoString(ms, offsetMs);
  const d = new Date(ms + offsetMs);
  let out = '';
  for (const m of (NAMED[f] ?? f).matchAll(TOKEN_RE)) {
    const t = m[0];
    if (m[1] !== undefined) { out += m[1]; continue; }
    switch (t[0]) {
      case 'y': case 'Y': out += t.length === 2 ? pad(d.getUTCFullYear() % 100, 2) : pad(d.getUTCFullYear(), t.length); break;
      case 'M': out += pad(d.getUTCMonth() + 1, t.length); break;
      case 'd': out += pad(d.getUTCDate(), t.length); break;
      case 'H': out += pad(d.getUTCHours(), t.length); break;
      case 'h': out += pad(d.getUTCHours() % 12 || 12, t.length); break;
      case 'm': out += pad(d.getUTCMinutes(), t.length); break;
      case 's': out += pad(d.getUTCSeconds(), t.length); break;
      case 'S': out += pad(d.getUTCMilliseconds(), 3).slice(0, t.length); break;
      case 'Z': out += offsetString(offsetMs, t.length > 1); break;
      default: out += t;
    }
  }
  return out;
}

function offsetString(offsetMs: number, colon: boolean): string {
  if (offsetMs === 0) return 'Z';
  const a = Math.abs(offsetMs) / 60_000;
  return (offsetMs < 0 ? '-' : '+') + pad(Math.floor(a / 60), 2) + (colon ? ':' : '') + pad(a % 60, 2);
}

function isoString(ms: number, offsetMs: number): string {
  const d = new Date(ms + offsetMs);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:` +
    `${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}${offsetString(offsetMs, true)}`;
}

/** Offset of `zone` (fixed `+01:00` or an IANA name) at instant `ms`, in milliseconds. */
export function zoneOffsetAt(zone: string | undefined, ms: number): number {
  if (!zone || zone === 'UTC' || zone === 'Z' || zone === 'GMT') return 0;
  if (/^[+-]\d{2}(:?\d{2})?$/.test(zone)) return zoneOffsetMs(zone);
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(new Date(ms));
    const g = (t: string): number => Number(parts.find((p) => p.type === t)!.value);
    return Date.UTC(g('year'), g('month') - 1, g('day'), g('hour'), g('minute'), g('second')) - Math.floor(ms / 1000) * 1000;
  } catch {
    throw new InvalidArgumentError('INVALID_ARGUMENT', `The datetime zone id '${zone}' is not recognised`);
  }
}
