/**
 * Template functions: Go's built-ins (`and or not len index print printf eq ne lt le gt ge urlquery`) and
 * Prometheus's (`humanize*`, `toUpper`, `toLower`, `title`, `match`, `reReplaceAll`, `stripPort`, …),
 * with Go's output formats. The functions that run PromQL from a template
 * (`query`, `first`, `label`, `value`, `strvalue`, `sortByLabel`) run through the rule's query function.
 */
import { goParseFloat } from '../promql/format.ts';
import { parseDurationMs } from '../model/duration.ts';
import { compileGoRegexUnanchored, expandGoTemplate } from '../regex/index.ts';
import { goE, goF, goG } from './go-format.ts';

export type TplFunc = (args: unknown[], env: FuncEnv) => unknown;
/** A sample as templates see it (Prometheus's `template.sample`). */
export interface QuerySample { Labels: Record<string, string>; Value: number }
export type TemplateQuery = (q: string) => Promise<QuerySample[]>;
export interface FuncEnv { externalURL: string; query?: TemplateQuery }

/** Go's `fmt.Sprint` of one value (`%v`). */
export function printValue(v: unknown): string {
  if (v === null || v === undefined) return '<no value>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goG(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(printValue).join(' ')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o).sort().map((k) => `${k}:${printValue(o[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** Go's `truth`: false, 0, "", nil and empty collections are false. */
export function truth(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v as object).length > 0;
  return true;
}

function toFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const f = goParseFloat(v);
    if (f === null) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(v)}: invalid syntax`);
    return f;
  }
  throw new Error(`can't convert ${printValue(v)} to float`);
}

const SMALL = ['m', 'u', 'n', 'p', 'f', 'a', 'z', 'y'];

function humanize(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return goG(v, 4);
  if (Math.abs(v) >= 1) {
    let prefix = '';
    for (const p of ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y']) {
      if (Math.abs(v) < 1000) break;
      prefix = p; v /= 1000;
    }
    return goG(v, 4) + prefix;
  }
  let prefix = '';
  for (const p of SMALL) { if (Math.abs(v) >= 1) break; prefix = p; v *= 1000; }
  return goG(v, 4) + prefix;
}

function humanize1024(v: number): string {
  if (Math.abs(v) <= 1 || !Number.isFinite(v)) return goG(v, 4);
  let prefix = '';
  for (const p of ['ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'Zi', 'Yi']) {
    if (Math.abs(v) < 1024) break;
    prefix = p; v /= 1024;
  }
  return goG(v, 4) + prefix;
}

function humanizeDuration(v: number): string {
  if (!Number.isFinite(v)) return goG(v, 4);
  if (v === 0) return goG(v, 4) + 's';
  if (Math.abs(v) >= 1) {
    let sign = '';
    if (v < 0) { sign = '-'; v = -v; }
    const d = Math.trunc(v);
    const s = d % 60, m = Math.trunc(d / 60) % 60, h = Math.trunc(d / 3600) % 24, days = Math.trunc(d / 86400);
    if (days !== 0) return `${sign}${days}d ${h}h ${m}m ${s}s`;
    if (h !== 0) return `${sign}${h}h ${m}m ${s}s`;
    if (m !== 0) return `${sign}${m}m ${s}s`;
    return `${sign}${goG(v, 4)}s`;
  }
  let prefix = '';
  for (const p of SMALL) { if (Math.abs(v) >= 1) break; prefix = p; v *= 1000; }
  return `${goG(v, 4)}${prefix}s`;
}

/** Go's `time.Time.String()` in UTC: `2006-01-02 15:04:05.999999999 +0000 UTC`. */
function humanizeTimestamp(v: number): string {
  if (!Number.isFinite(v)) return goG(v, 4);
  const ms = Math.floor(v * 1000);
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  const ns = Math.round((v * 1e9) % 1e9 + 1e9) % 1e9;
  const frac = ns === 0 ? '' : '.' + String(ns).padStart(9, '0').replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac} +0000 UTC`;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string' && op !== 'eq' && op !== 'ne')) {
    if (op === 'eq' || op === 'ne') { if (typeof a !== typeof b) throw new Error('incompatible types for comparison'); }
    else throw new Error('incompatible types for comparison');
  }
  switch (op) {
    case 'eq': return a === b;
    case 'ne': return a !== b;
    case 'lt': return (a as number) < (b as number);
    case 'le': return (a as number) <= (b as number);
    case 'gt': return (a as number) > (b as number);
    default: return (a as number) >= (b as number);
  }
}

/** Go's `fmt.Sprintf` for the verbs templates use: %s %v %d %f %g %e %q %x %%, with width, `-`, `0` and precision. */
export function sprintf(format: string, args: unknown[]): string {
  let ai = 0, out = '';
  const re = /%([-+ 0#]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;
  let last = 0, m: RegExpExecArray | null;
  while ((m = re.exec(format)) !== null) {
    out += format.slice(last, m.index);
    last = re.lastIndex;
    const [, flags, width, precS, verb] = m;
    if (verb === '%') { out += '%'; continue; }
    if (ai >= args.length) { out += `%!${verb}(MISSING)`; continue; }
    const a = args[ai++];
    const prec = precS === undefined ? undefined : Number(precS);
    let s = formatVerb(verb, a, prec, flags.includes('+'));
    if (width && s.length < Number(width)) {
      const pad = Number(width) - s.length;
      if (flags.includes('-')) s += ' '.repeat(pad);
      else if (flags.includes('0') && typeof a === 'number') s = s.startsWith('-') ? '-' + '0'.repeat(pad) + s.slice(1) : '0'.repeat(pad) + s;
      else s = ' '.repeat(pad) + s;
    }
    out += s;
  }
  out += format.slice(last);
  if (ai < args.length) out += `%!(EXTRA ${args.slice(ai).map((a) => `${goType(a)}=${printValue(a)}`).join(', ')})`;
  return out;
}

function goType(a: unknown): string {
  return typeof a === 'number' ? 'float64' : typeof a === 'string' ? 'string' : typeof a === 'boolean' ? 'bool' : 'map[string]string';
}

function formatVerb(verb: string, a: unknown, prec: number | undefined, plus: boolean): string {
  const sign = (s: string): string => (plus && typeof a === 'number' && !s.startsWith('-') ? '+' + s : s);
  switch (verb) {
    case 'v': case 's': return typeof a === 'string' && prec !== undefined ? a.slice(0, prec) : (verb === 's' && typeof a === 'number' ? `%!s(float64=${goG(a)})` : printValue(a));
    case 'q': return typeof a === 'string' ? JSON.stringify(a) : `%!q(${goType(a)}=${printValue(a)})`;
    case 'd': return typeof a === 'number' && Number.isInteger(a) ? sign(String(a)) : `%!d(${goType(a)}=${printValue(a)})`;
    case 'f': case 'F': return typeof a === 'number' ? sign(goF(a, prec ?? 6)) : `%!f(${goType(a)}=${printValue(a)})`;
    case 'g': return typeof a === 'number' ? sign(goG(a, prec ?? -1)) : `%!g(${goType(a)}=${printValue(a)})`;
    case 'e': return typeof a === 'number' ? sign(goE(a, prec ?? 6)) : `%!e(${goType(a)}=${printValue(a)})`;
    case 'x': return typeof a === 'string' ? Buffer.from(a).toString('hex') : typeof a === 'number' && Number.isInteger(a) ? a.toString(16) : `%!x(${goType(a)}=${printValue(a)})`;
    case 't': return typeof a === 'boolean' ? String(a) : `%!t(${goType(a)}=${printValue(a)})`;
    default: return `%!${verb}(${goType(a)}=${printValue(a)})`;
  }
}

function goSprint(args: unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0 && typeof args[i] !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += printValue(args[i]);
  }
  return out;
}

/** Go's `regexp.ReplaceAllString`: every match replaced by `repl` expanded as `Regexp.Expand` does. */
function reReplaceAll(pattern: string, repl: string, s: string): string {
  let out = '', last = 0;
  for (const m of compileGoRegexUnanchored(pattern).execAll(s)) {
    out += s.slice(last, m.index) + expandGoTemplate(repl, m);
    last = m.index + (m[0] ?? '').length;
  }
  return out + s.slice(last);
}

export const TEMPLATE_FUNCS: Record<string, TplFunc> = {
  and: (a) => { for (const x of a) if (!truth(x)) return x; return a[a.length - 1]; },
  or: (a) => { for (const x of a) if (truth(x)) return x; return a[a.length - 1]; },
  not: (a) => !truth(a[0]),
  len: (a) => (typeof a[0] === 'string' ? Buffer.byteLength(a[0]) : Array.isArray(a[0]) ? a[0].length : Object.keys(a[0] as object ?? {}).length),
  index: (a) => { let v = a[0]; for (const k of a.slice(1)) v = (v as Record<string, unknown> | null)?.[String(k)] ?? ''; return v; },
  print: (a) => goSprint(a),
  println: (a) => a.map(printValue).join(' ') + '\n',
  printf: (a) => sprintf(String(a[0]), a.slice(1)),
  eq: (a) => a.slice(1).some((b) => compare('eq', a[0], b)),
  ne: (a) => compare('ne', a[0], a[1]),
  lt: (a) => compare('lt', a[0], a[1]),
  le: (a) => compare('le', a[0], a[1]),
  gt: (a) => compare('gt', a[0], a[1]),
  ge: (a) => compare('ge', a[0], a[1]),
  urlquery: (a) => encodeURIComponent(goSprint(a)).replace(/%20/g, '+'),
  html: (a) => goSprint(a).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;'),
  js: (a) => JSON.stringify(goSprint(a)).slice(1, -1),
  humanize: (a) => humanize(toFloat(a[0])),
  humanize1024: (a) => humanize1024(toFloat(a[0])),
  humanizeDuration: (a) => humanizeDuration(toFloat(a[0])),
  humanizePercentage: (a) => goG(toFloat(a[0]) * 100, 4) + '%',
  humanizeTimestamp: (a) => humanizeTimestamp(toFloat(a[0])),
  toUpper: (a) => String(a[0]).toUpperCase(),
  toLower: (a) => String(a[0]).toLowerCase(),
  title: (a) => String(a[0]).replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_m, p: string, c: string) => p + c.toUpperCase()),
  match: (a) => compileGoRegexUnanchored(String(a[0])).matchesPart(String(a[1])),
  reReplaceAll: (a) => reReplaceAll(String(a[0]), String(a[1]), String(a[2])),
  safeHtml: (a) => String(a[0]),
  stripPort: (a) => { const s = String(a[0]); const m = /^(\[[^\]]*\]|[^:]*):\d*$/.exec(s); return m ? m[1].replace(/^\[|\]$/g, '') : s; },
  externalURL: (_a, env) => env.externalURL,
  pathPrefix: (_a, env) => { try { return new URL(env.externalURL).pathname.replace(/\/$/, ''); } catch { return ''; } },
  graphLink: (a) => `/graph?g0.expr=${encodeURIComponent(String(a[0]))}&g0.tab=0`,
  tableLink: (a) => `/graph?g0.expr=${encodeURIComponent(String(a[0]))}&g0.tab=1`,
  parseDuration: (a) => parseDurationMs(String(a[0])) / 1000, // seconds, from model.ParseDuration as Prometheus's
  query: (a, env) => {
    if (!env.query) throw new Error('no query function available');
    return env.query(String(a[0]));
  },
  first: (a) => {
    const v = a[0] as QuerySample[];
    if (!Array.isArray(v) || v.length === 0) throw new Error('first() called on vector with no elements');
    return v[0];
  },
  label: (a) => (a[1] as QuerySample | null)?.Labels?.[String(a[0])] ?? '',
  value: (a) => (a[0] as QuerySample).Value,
  strvalue: (a) => (a[0] as QuerySample).Labels.__value__ ?? '',
  sortByLabel: (a) => [...(a[1] as QuerySample[])].sort((x, y) => {
    const l = String(a[0]), p = x.Labels[l] ?? '', q = y.Labels[l] ?? '';
    return p < q ? -1 : p > q ? 1 : 0;
  }),
  args: (a) => Object.fromEntries(a.map((v, i) => [`arg${i}`, v])),
  // A time.Time prints as its String(); templates only ever print it.
  toTime: (a) => humanizeTimestamp(toFloat(a[0])),
};
