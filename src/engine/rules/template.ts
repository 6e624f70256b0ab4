/**
 * The part of Go's text/template that alert labels and annotations use: `{{ $labels.x }}`, `{{ $value }}`,
 * `{{ .Labels.x }}`, `{{ $externalLabels.x }}`, `{{ $externalURL }}`, pipelines into `humanize`,
 * `humanize1024`, `humanizePercentage`, `humanizeDuration`, `toUpper`, `toLower`, `title`, `printf`, and
 * `{{-`/`-}}` trimming. Anything else is an error, reported as Prometheus does in the expanded text.
 */
import { goFloatV } from '../promql/printer.ts';

export interface TemplateData { labels: Record<string, string>; externalLabels: Record<string, string>; externalURL: string; value: number }

type Val = string | number | Record<string, string>;

/** Go's `%.<p>g`. */
export function goG(v: number, p: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(v)));
  let s = v.toPrecision(p);
  if (s.includes('e') || exp < -4 || exp >= p) {
    const [m, e] = v.toExponential(p - 1).split('e');
    const mant = m.includes('.') ? m.replace(/\.?0+$/, '') : m;
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  if (s.includes('.')) s = s.replace(/\.?0+$/, '');
  return s;
}

function humanize(v: number): string {
  if (v === 0 || !Number.isFinite(v)) return goG(v, 4);
  let prefix = '';
  if (Math.abs(v) >= 1) {
    for (const p of ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y']) { if (Math.abs(v) < 1000) break; prefix = p; v /= 1000; }
  } else {
    for (const p of ['m', 'u', 'n', 'p', 'f', 'a', 'z', 'y']) { if (Math.abs(v) >= 1) break; prefix = p; v *= 1000; }
  }
  return goG(v, 4) + prefix;
}

function humanize1024(v: number): string {
  if (Math.abs(v) <= 1 || !Number.isFinite(v)) return goG(v, 4);
  let prefix = '';
  for (const p of ['ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'Zi', 'Yi']) { if (Math.abs(v) < 1024) break; prefix = p; v /= 1024; }
  return goG(v, 4) + prefix;
}

function humanizeDuration(v: number): string {
  if (!Number.isFinite(v)) return goG(v, 4);
  if (v === 0) return '0s';
  if (Math.abs(v) >= 1) {
    const sign = v < 0 ? '-' : '';
    v = Math.abs(v);
    const d = Math.floor(v / 86400), h = Math.floor(v / 3600) % 24, m = Math.floor(v / 60) % 60, s = Math.floor(v) % 60;
    const ms = Math.floor((v - Math.floor(v)) * 1000);
    if (d !== 0) return `${sign}${d}d ${h}h ${m}m ${s}s`;
    if (h !== 0) return `${sign}${h}h ${m}m ${s}s`;
    if (m !== 0) return `${sign}${m}m ${s}s`;
    return ms !== 0 ? `${sign}${s}.${String(ms).padStart(3, '0')}s` : `${sign}${s}s`;
  }
  let prefix = '';
  for (const p of ['m', 'u', 'n', 'p', 'f', 'a', 'z', 'y']) { if (Math.abs(v) >= 1) break; prefix = p; v *= 1000; }
  return `${goG(v, 4)}${prefix}s`;
}

function printf(format: string, args: Val[]): string {
  let i = 0;
  return format.replace(/%(\.\d+)?([sdfgvq%])/g, (m, prec: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    const a = args[i++];
    const n = typeof a === 'number' ? a : Number(a);
    switch (verb) {
      case 'f': return n.toFixed(prec ? Number(prec.slice(1)) : 6);
      case 'd': return String(Math.trunc(n));
      case 'g': return prec ? goG(n, Number(prec.slice(1))) : goFloatV(n);
      case 'q': return JSON.stringify(String(a));
      default: return typeof a === 'number' ? goFloatV(a) : String(a ?? '');
    }
  });
}

const FUNCS: Record<string, (args: Val[]) => Val> = {
  humanize: (a) => humanize(Number(a[0])),
  humanize1024: (a) => humanize1024(Number(a[0])),
  humanizePercentage: (a) => humanize(Number(a[0]) * 100) + '%',
  humanizeDuration: (a) => humanizeDuration(Number(a[0])),
  toUpper: (a) => String(a[0]).toUpperCase(),
  toLower: (a) => String(a[0]).toLowerCase(),
  title: (a) => String(a[0]).replace(/\b\w/g, (c) => c.toUpperCase()),
  printf: (a) => printf(String(a[0]), a.slice(1)),
};

function tokens(s: string): string[] {
  const out: string[] = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|`[^`]*`|\||[^\s|]+)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) out.push(m[1]);
  return out;
}

function operand(tok: string, d: TemplateData): Val {
  if (tok.startsWith('"')) return JSON.parse(tok) as string;
  if (tok.startsWith('`')) return tok.slice(1, -1);
  if (/^-?\d/.test(tok)) return Number(tok);
  const path = tok.split('.');
  let root: Val;
  if (path[0] === '$labels' || (path[0] === '' && path[1] === 'Labels')) { root = d.labels; path.splice(0, path[0] === '' ? 2 : 1); }
  else if (path[0] === '$externalLabels' || (path[0] === '' && path[1] === 'ExternalLabels')) { root = d.externalLabels; path.splice(0, path[0] === '' ? 2 : 1); }
  else if (tok === '$value' || tok === '.Value') return d.value;
  else if (tok === '$externalURL' || tok === '.ExternalURL') return d.externalURL;
  else throw new Error(`undefined variable or field ${JSON.stringify(tok)}`);
  if (path.length === 0) return root;
  if (path.length !== 1) throw new Error(`can't evaluate field ${path[1]}`);
  return (root as Record<string, string>)[path[0]] ?? '<no value>';
}

function evalPipeline(src: string, d: TemplateData): string {
  let value: Val | undefined;
  for (const stage of src.split(/\|(?=(?:[^"]*"[^"]*")*[^"]*$)/)) {
    const t = tokens(stage.trim());
    if (t.length === 0) throw new Error('missing value for command');
    const fn = FUNCS[t[0]];
    if (fn) {
      const args = t.slice(1).map((x) => operand(x, d));
      if (value !== undefined) args.push(value);
      value = fn(args);
    } else {
      if (t.length > 1 || value !== undefined) throw new Error(`function ${JSON.stringify(t[0])} not defined`);
      value = operand(t[0], d);
    }
  }
  if (typeof value === 'number') return goFloatV(value);
  if (typeof value === 'object') return 'map[' + Object.keys(value!).sort().map((k) => `${k}:${(value as Record<string, string>)[k]}`).join(' ') + ']';
  return String(value);
}

/** Expands a template; errors come back as Prometheus's `<error expanding template: …>` text. */
export function expandTemplate(text: string, d: TemplateData): string {
  try {
    let out = '';
    let i = 0;
    while (i < text.length) {
      const open = text.indexOf('{{', i);
      if (open < 0) { out += text.slice(i); break; }
      let lit = text.slice(i, open);
      let inner = open + 2;
      if (text[inner] === '-' && text[inner + 1] === ' ') { lit = lit.replace(/\s+$/, ''); inner++; }
      const close = text.indexOf('}}', inner);
      if (close < 0) throw new Error('unclosed action');
      let body = text.slice(inner, close);
      let next = close + 2;
      if (body.endsWith(' -')) { body = body.slice(0, -2); while (next < text.length && /\s/.test(text[next])) next++; }
      out += lit;
      const b = body.trim();
      if (!b.startsWith('/*')) out += evalPipeline(b, d);
      i = next;
    }
    return out;
  } catch (e) {
    return `<error expanding template: ${(e as Error).message}>`;
  }
}
