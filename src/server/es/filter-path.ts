/**
 * `filter_path` on any JSON response: comma-separated dotted paths with `*` (one level, partial names) and
 * `**` (any depth) wildcards, `-` prefix to exclude. Arrays are transparent (the pattern applies to each
 * element). Stored sources are parsed losslessly before filtering.
 */
import { isLosslessNumber, parse as losslessParse } from '../../engine/codec/lossless-json.ts';
import { simpleMatch } from '../../engine/documents/cluster-state.ts';
import { JavaDouble } from '../../engine/documents/source.ts';
import { RawJson } from './json.ts';

type Pat = string[];

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v) && !(v instanceof JavaDouble) && !(v instanceof RawJson);

export function applyFilterPath(value: unknown, spec: string): unknown {
  const inc: Pat[] = [], exc: Pat[] = [];
  for (const raw of spec.split(',').map((s) => s.trim()).filter(Boolean)) (raw.startsWith('-') ? exc : inc).push((raw.startsWith('-') ? raw.slice(1) : raw).split('.'));
  let v = value;
  if (inc.length) v = include(v, inc) ?? {};
  if (exc.length) v = exclude(v, exc);
  return v;
}

function expand(v: unknown): unknown {
  return v instanceof RawJson ? losslessParse(v.text) : v;
}

function include(v: unknown, pats: Pat[]): unknown {
  v = expand(v);
  if (pats.some((p) => p.length === 0)) return v;
  if (Array.isArray(v)) {
    const out = v.map((x) => include(x, pats)).filter((x) => x !== undefined);
    return out.length ? out : undefined;
  }
  if (!isObj(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const next: Pat[] = [];
    for (const p of pats) {
      if (p[0] === '**') { next.push(p); next.push(p.slice(1)); if (p.length > 1 && simpleMatch(p[1], k)) next.push(p.slice(2)); }
      else if (simpleMatch(p[0], k)) next.push(p.slice(1));
    }
    if (!next.length) continue;
    const sub = include(v[k], next);
    if (sub !== undefined) out[k] = sub;
  }
  return Object.keys(out).length ? out : undefined;
}

function exclude(v: unknown, pats: Pat[]): unknown {
  v = expand(v);
  if (Array.isArray(v)) return v.map((x) => exclude(x, pats));
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    if (pats.some((p) => p.length === 1 && simpleMatch(p[0], k))) continue;
    const next = pats.filter((p) => p.length > 1 && simpleMatch(p[0], k)).map((p) => p.slice(1));
    out[k] = next.length ? exclude(v[k], next) : v[k];
  }
  return out;
}
