/**
 * `_source` filtering (includes/excludes with `*` wildcards, dotted paths, structure preserved) over a
 * lossless parse of the stored bytes, so numbers keep their spelling (`1.0`, 64-bit integers) when re-emitted.
 */
import { parse, stringify } from '../codec/lossless-json.ts';
import type { SourceFilter } from './search-request.ts';
import { simpleMatch } from '../regex/index.ts';

interface Compiled { inc: string[]; exc: string[] }

function matchesAny(patterns: string[], path: string): boolean {
  for (const p of patterns) if (simpleMatch(p, path)) return true;
  return false;
}

function mayMatchBelow(c: Compiled, path: string): boolean {
  for (const p of c.inc) if (p.includes('*') || p.startsWith(path + '.')) return true;
  return false;
}

function filterValue(v: unknown, path: string, c: Compiled, included: boolean): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      if (x !== null && typeof x === 'object' && !isNumberObj(x)) {
        const f = filterValue(x, path, c, included);
        if (f !== undefined) out.push(f);
      } else if (included) out.push(x);
    }
    return out.length || included ? out : undefined;
  }
  if (v !== null && typeof v === 'object' && !isNumberObj(v)) {
    const out: Record<string, unknown> = {};
    let any = false;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const p = path ? `${path}.${k}` : k;
      if (matchesAny(c.exc, p)) continue;
      const inc = included || c.inc.length === 0 || matchesAny(c.inc, p);
      if (!inc && !mayMatchBelow(c, p)) continue;
      if (!inc && (x === null || typeof x !== 'object' || isNumberObj(x))) continue;
      const f = filterValue(x, p, c, inc);
      if (f === undefined) continue;
      out[k] = f; any = true;
    }
    return any || included || path === '' ? out : undefined;
  }
  return included ? v : undefined;
}

function isNumberObj(x: object): boolean { return (x as { isLosslessNumber?: boolean }).isLosslessNumber === true; }

/** Raw stored source text → the filtered JSON text (the raw text itself when nothing filters). */
export function filterSource(raw: string, f: SourceFilter): string | null {
  if (!f.enabled) return null;
  if (f.includes.length === 0 && f.excludes.length === 0) return raw;
  const c: Compiled = { inc: f.includes, exc: f.excludes };
  const v = parse(raw);
  const out = filterValue(v, '', c, f.includes.length === 0) ?? {};
  return stringify(out) ?? '{}';
}

/** Values at a dotted path of a (plain) parsed source, flattened through arrays. */
export function valuesAt(src: unknown, path: string): unknown[] {
  let cur: unknown[] = [src];
  for (const part of path.split('.')) {
    const next: unknown[] = [];
    for (const c of cur) {
      if (Array.isArray(c)) { for (const x of c) if (x && typeof x === 'object') { const y = (x as Record<string, unknown>)[part]; if (y !== undefined) next.push(y); } }
      else if (c && typeof c === 'object') { const y = (c as Record<string, unknown>)[part]; if (y !== undefined) next.push(y); }
    }
    cur = next;
  }
  return cur.flat(Infinity).filter((x) => x !== null && x !== undefined);
}
