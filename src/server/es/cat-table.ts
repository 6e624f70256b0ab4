/**
 * `_cat` table rendering as ES 6.8's RestTable: default columns, `h` (names, aliases, wildcards), `s`
 * (with `:desc`), `v` headers, `help`, `format=json` (all values strings), `bytes` units, right-aligned
 * numeric columns (headers too), one space between cells, the last column never right-padded.
 */
import { illegalArgument } from '../../engine/documents/doc-errors.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import { TEXT_HEADERS } from './errors.ts';
import { json } from './json.ts';
import { simpleMatch } from '../../engine/documents/cluster-state.ts';

export interface CatColumn { name: string; aliases?: string[]; right?: boolean; hidden?: boolean; desc: string }
export type Cell = string | number | null;
export type CatRow = Record<string, Cell>;

export const CAT_PARAMS = ['v', 'h', 's', 'help', 'format', 'bytes', 'time', 'local', 'master_timeout', 'ts'];

export function renderCat(req: HttpRequest, cols: CatColumn[], rows: CatRow[]): HttpResponse {
  if (req.query.has('help')) return { status: 200, headers: TEXT_HEADERS, body: help(cols) };
  const selected = selectColumns(req, cols);
  const sorted = sortRows(req, cols, rows);
  const format = req.query.get('format') ?? (acceptsJsonOnly(req.headers.accept) ? 'json' : 'txt');
  if (format === 'json') {
    return json(req, 200, sorted.map((r) => Object.fromEntries(selected.map(([c, display]) => [display, r[c.name] === null || r[c.name] === undefined ? null : String(r[c.name])]))));
  }
  const v = req.query.has('v') && req.query.get('v') !== 'false';
  const cells = sorted.map((r) => selected.map(([c]) => (r[c.name] === null || r[c.name] === undefined ? '' : String(r[c.name]))));
  const headers = selected.map(([, d]) => d);
  const widths = selected.map((_, i) => Math.max(v ? headers[i].length : 0, ...cells.map((row) => row[i].length)));
  const line = (row: string[]): string => row.map((cell, i) => {
    const right = selected[i][0].right;
    if (right) return cell.padStart(widths[i]);
    return i === row.length - 1 ? cell : cell.padEnd(widths[i]);
  }).join(' ') + '\n';
  let out = v ? line(headers) : '';
  for (const row of cells) out += line(row);
  return { status: 200, headers: TEXT_HEADERS, body: out };
}

function selectColumns(req: HttpRequest, cols: CatColumn[]): [CatColumn, string][] {
  const h = req.query.get('h');
  if (!h) return cols.filter((c) => !c.hidden).map((c) => [c, c.name]);
  const out: [CatColumn, string][] = [];
  for (const token of h.split(',').map((t) => t.trim()).filter(Boolean)) {
    if (token.includes('*')) {
      for (const c of cols) if (simpleMatch(token, c.name) && !out.some(([x]) => x === c)) out.push([c, c.name]);
      continue;
    }
    const c = cols.find((x) => x.name === token || x.aliases?.includes(token));
    if (c) out.push([c, token]);
  }
  return out;
}

function sortRows(req: HttpRequest, cols: CatColumn[], rows: CatRow[]): CatRow[] {
  const s = req.query.get('s');
  if (!s) return rows;
  const keys = s.split(',').map((k) => {
    const [name, dir] = k.split(':');
    const c = cols.find((x) => x.name === name || x.aliases?.includes(name));
    if (!c) throw illegalArgument(`Unable to sort by unknown sort key \`${name}\``);
    return { c, desc: dir === 'desc' };
  });
  return [...rows].sort((a, b) => {
    for (const { c, desc } of keys) {
      const x = sortValue(a[c.name]), y = sortValue(b[c.name]);
      const r = x < y ? -1 : x > y ? 1 : 0;
      if (r) return desc ? -r : r;
    }
    return 0;
  });
}

function sortValue(v: Cell): number | string {
  if (typeof v === 'number') return v;
  if (v === null) return '';
  const n = rawBytes(v);
  return n ?? v;
}

/** Sorting sizes like `1.1kb` numerically. */
function rawBytes(v: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(b|kb|mb|gb|tb|pb)?$/.exec(v);
  if (!m) return null;
  return Number(m[1]) * 1024 ** ['b', 'kb', 'mb', 'gb', 'tb', 'pb'].indexOf(m[2] ?? 'b');
}

function help(cols: CatColumn[]): string {
  const names = cols.map((c) => c.name);
  const aliases = cols.map((c) => (c.aliases ?? []).join(','));
  const w1 = Math.max(...names.map((n) => n.length));
  const w2 = Math.max(...aliases.map((a) => a.length));
  return cols.map((c, i) => `${names[i].padEnd(w1)} | ${aliases[i].padEnd(w2)} | ${c.desc}\n`).join('');
}

const UNITS = ['b', 'kb', 'mb', 'gb', 'tb', 'pb'];

/** ES byte rendering (`230b`, `1.1kb`), or an integer in the `?bytes=` unit. */
export function bytesCell(req: HttpRequest, n: number): string | number {
  const unit = req.query.get('bytes');
  if (unit) {
    const i = UNITS.indexOf(unit.toLowerCase());
    if (i < 0) throw illegalArgument(`failed to parse [bytes] with value [${unit}]`);
    return Math.floor(n / 1024 ** i);
  }
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) { v /= 1024; i++; }
  if (i === 0) return `${n}b`;
  const s = (Math.round(v * 10) / 10).toFixed(1).replace(/\.0$/, '');
  return `${s}${UNITS[i]}`;
}

/**
 * Whether an Accept header picks JSON for `_cat`, as XContentType.fromMediaTypeOrFormat reads the whole header:
 * exactly `application/json` (parameters allowed) or `application/*`; a list of types is not one of them.
 */
function acceptsJsonOnly(accept: string | undefined): boolean {
  if (!accept) return false;
  const a = accept.trim().toLowerCase();
  return a === 'application/json' || a.startsWith('application/json;') || a === 'json' || a.startsWith('application/*');
}
