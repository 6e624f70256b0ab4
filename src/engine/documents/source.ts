/**
 * `_source` handling without losing bytes: the stored source is the client's text; anything that must
 * re-serialise it (filtering, updates, pretty printing) goes through lossless-json so 64-bit integers and
 * number spellings survive. Doubles produced by scripts render with Java's `Double.toString` layout.
 */
import { parse as losslessParse, stringify as losslessStringify, isLosslessNumber } from '../codec/lossless-json.ts';
import { simpleMatch } from './cluster-state.ts';

/** A Java double produced by script arithmetic (rendered `2.0`, `1.0E7`). */
export class JavaDouble {
  constructor(readonly v: number) {}
}

export function parseLossless(text: string): unknown {
  return losslessParse(text);
}

/** Java `Double.toString` layout of `x` (shortest round-trip digits). */
export function javaDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mant, exp] = x.toExponential().split('e');
  const m = mant.includes('.') ? mant : `${mant}.0`;
  return `${m}E${Number(exp)}`;
}

const STRINGIFIERS = [{ test: (v: unknown) => v instanceof JavaDouble, stringify: (v: unknown) => javaDouble((v as JavaDouble).v) }];

/** Compact JSON of a lossless value tree. */
export function stringifyLossless(v: unknown): string {
  return losslessStringify(v, undefined, undefined, STRINGIFIERS as never) ?? 'null';
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v) && !(v instanceof JavaDouble);

export interface SourceFilter { includes: string[]; excludes: string[] }

/** ES source filtering: dotted paths with `*` wildcards; structure kept; arrays filtered element-wise. */
export function filterSource(src: unknown, f: SourceFilter): unknown {
  return filterValue(src, '', f) ?? {};
}

function filterValue(v: unknown, path: string, f: SourceFilter): unknown {
  if (Array.isArray(v)) return v.map((x) => filterValue(x, path, f)).filter((x) => !(isObj(x) && Object.keys(x).length === 0));
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const p = path ? `${path}.${k}` : k;
    if (f.excludes.some((e) => simpleMatch(e, p))) continue;
    const val = v[k];
    const nested = isObj(val) || Array.isArray(val);
    if (f.includes.length === 0 || f.includes.some((i) => simpleMatch(i, p))) {
      setKey(out, k, nested && f.excludes.length ? filterValue(val, p, { includes: [], excludes: f.excludes }) : val);
      continue;
    }
    if (!nested || !f.includes.some((i) => couldMatchBelow(i, p))) continue;
    const sub = filterValue(val, p, f);
    if (isObj(sub) && Object.keys(sub).length === 0) continue;
    if (Array.isArray(sub) && sub.length === 0) continue;
    setKey(out, k, sub);
  }
  return out;
}

/** Whether include pattern `i` may match some path strictly below `p`. */
function couldMatchBelow(i: string, p: string): boolean {
  const star = i.indexOf('*');
  if (star < 0) return i.startsWith(`${p}.`);
  const prefix = i.slice(0, star);
  return `${p}.`.startsWith(prefix) || prefix.startsWith(`${p}.`);
}

/** Builds a filter from URL/body forms; null when nothing is filtered. */
export function sourceFilterOf(includes: string[] | undefined, excludes: string[] | undefined): SourceFilter | null {
  const inc = (includes ?? []).filter((s) => s !== '' && s !== '*');
  const exc = (excludes ?? []).filter((s) => s !== '');
  if (inc.length === 0 && exc.length === 0) return null;
  return { includes: inc, excludes: exc };
}

/** Deep equality of two lossless value trees (numbers compared by kind and value, as Java maps do). */
export function deepEqualLossless(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const an = numberOf(a);
  const bn = numberOf(b);
  if (an && bn) return an.float === bn.float && an.value === bn.value;
  if (an || bn) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqualLossless(a[i], b[i])) return false;
    return true;
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!(k in b) || !deepEqualLossless(a[k], b[k])) return false;
    return true;
  }
  return false;
}

function numberOf(v: unknown): { float: boolean; value: number } | null {
  if (typeof v === 'number') return { float: !Number.isInteger(v), value: v };
  if (v instanceof JavaDouble) return { float: true, value: v.v };
  if (isLosslessNumber(v)) return { float: /[.eE]/.test(v.value), value: Number(v.value) };
  return null;
}

/** Sets an own data property (a `__proto__` key stays data instead of replacing the prototype). */
export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** ES `doc` merge: objects merged key by key, everything else replaced. Returns a new tree. */
export function mergeDoc(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(target)) setKey(out, k, target[k]);
  for (const k of Object.keys(patch)) {
    const cur = Object.prototype.hasOwnProperty.call(out, k) ? out[k] : undefined;
    const p = patch[k];
    setKey(out, k, isObj(cur) && isObj(p) ? mergeDoc(cur, p) : p);
  }
  return out;
}

export { isObj as isPlainObject };
