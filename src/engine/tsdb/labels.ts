/**
 * Label sets (`Labels`, sorted by name): the one module that keys, builds, converts and routes them, after
 * Prometheus's `model/labels`. PromQL, rules, scrape, the head and the HTTP-side TSDB client all use it, so a
 * label set has one identity everywhere. Pure functions over `tsdb/api.ts` types; no storage code.
 */
import type { Label, Labels } from './api.ts';

export { compareLabels } from './api.ts';

/** Separates names and values in a key. Prometheus label names cannot contain it. */
const SEP = '\xff';

/** Valid label name (Prometheus's `model.LabelNameRE`). */
export const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * A string that identifies a sorted label set: names and values joined by U+00FF. It is exactly
 * `flat.join('\xff')` of the flat `[name, value, …]` form the worker protocol carries (`labelsKeyOfFlat`),
 * so a worker keys series without building label objects. In memory only, never stored. A value that itself
 * contains U+00FF followed by a label name could collide in theory; Prometheus's byte 0xff cannot occur in
 * UTF-8, a JS string's U+00FF can, and keys stay one-byte strings (half the memory of a surrogate separator).
 */
export function labelsKey(ls: Labels): string {
  let s = '';
  for (let i = 0; i < ls.length; i++) s += (i === 0 ? '' : SEP) + ls[i].name + SEP + ls[i].value;
  return s;
}

/** `compareLabels` over the flat `[name, value, …]` form. */
export function compareFlatLabels(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/** `labelsKey` of the flat `[name, value, …]` form. */
export function labelsKeyOfFlat(flat: readonly string[]): string {
  return flat.join(SEP);
}

/**
 * Which of `n` shard workers owns a series: FNV-1a over each flat element followed by a 0xff byte. This is
 * the routing the HTTP-side TSDB client uses; a change moves series between workers, so it is pinned by a test.
 */
export function shardOfSeries(flat: readonly string[], n: number): number {
  return shardOfHash(flatLabelsHash(flat), n);
}

/** The shard of a series whose `labelsHash` is `h`. */
export function shardOfHash(h: number, n: number): number {
  return (h >>> 0) % n;
}

/** 32-bit hash of a flat label set: FNV-1a over each element followed by a 0xff byte (as `shardOfSeries` routes). */
export function flatLabelsHash(flat: readonly string[]): number {
  let h = LABELS_HASH_SEED;
  for (let i = 0; i < flat.length; i++) h = hashLabelString(h, flat[i]);
  return h | 0;
}

/** `flatLabelsHash` of the same set given as `Labels`. */
export function labelsHash(ls: Labels): number {
  let h = LABELS_HASH_SEED;
  for (let i = 0; i < ls.length; i++) h = hashLabelString(hashLabelString(h, ls[i].name), ls[i].value);
  return h | 0;
}

/** The hash of an empty label set, before `hashLabelString` steps. */
export const LABELS_HASH_SEED = 0x811c9dc5;

/**
 * One step of `labelsHash`: `s` (a name or a value, in order) hashed into `h`; for a reader that has the
 * strings without label objects. The result of the last step, `| 0`, is the set's hash.
 */
export function hashLabelString(h: number, s: string): number {
  for (let j = 0; j < s.length; j++) { h ^= s.charCodeAt(j); h = Math.imul(h, 0x01000193); }
  h ^= 0xff;
  return Math.imul(h, 0x01000193);
}

/** Whether `ls` is the flat set `flat`. */
export function labelsEqualFlat(ls: Labels, flat: readonly string[]): boolean {
  if (ls.length * 2 !== flat.length) return false;
  for (let i = 0; i < ls.length; i++) if (ls[i].name !== flat[2 * i] || ls[i].value !== flat[2 * i + 1]) return false;
  return true;
}

export function labelsEqual(a: Labels, b: Labels): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i].name !== b[i].name || a[i].value !== b[i].value) return false;
  return true;
}

/** Sorts by name and drops empty values, as Prometheus does when building a label set. */
export function normalizeLabels(ls: readonly Label[]): Labels {
  const out: Label[] = [];
  for (const l of ls) if (l.value !== '') out.push({ name: l.name, value: l.value });
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

export function labelsFromRecord(rec: Readonly<Record<string, string>>): Labels {
  return normalizeLabels(Object.entries(rec).map(([name, value]) => ({ name, value })));
}

export function labelsToRecord(ls: Labels): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of ls) out[l.name] = l.value;
  return out;
}

/** Labels from the flat `[name, value, …]` form (already sorted, as the client sends them). */
export function labelsFromFlat(flat: readonly string[]): Labels {
  const out: Label[] = new Array(flat.length >>> 1);
  for (let i = 0; i < out.length; i++) out[i] = { name: flat[2 * i], value: flat[2 * i + 1] };
  return out;
}

/** The flat `[name, value, …]` form. */
export function labelsToFlat(ls: Labels): string[] {
  const f: string[] = new Array(ls.length * 2);
  for (let i = 0; i < ls.length; i++) { f[2 * i] = ls[i].name; f[2 * i + 1] = ls[i].value; }
  return f;
}

/** The value of `name`, "" when absent (Prometheus's `Labels.Get`). */
export function getLabel(ls: Labels, name: string): string {
  for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return ls[i].value;
  return '';
}

export function hasLabel(ls: Labels, name: string): boolean {
  for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return true;
  return false;
}

/** A copy with `name` set to `value` (removed when value is ""), kept sorted. */
export function setLabel(ls: Labels, name: string, value: string): Labels {
  const out: Label[] = [];
  let done = false;
  for (const l of ls) {
    if (!done && l.name >= name) {
      done = true;
      if (value !== '') out.push({ name, value });
      if (l.name === name) continue;
    }
    out.push(l);
  }
  if (!done && value !== '') out.push({ name, value });
  return out;
}

/** `base` with `del` removed, then `sets` applied (an empty value deletes), sorted (Prometheus's `labels.Builder`). */
export function buildLabels(base: Labels, sets: readonly (readonly [string, string])[], del: readonly string[] = []): Label[] {
  const m = new Map<string, string>();
  for (const l of base) m.set(l.name, l.value);
  for (const d of del) m.delete(d);
  for (const [k, v] of sets) { if (v === '') m.delete(k); else m.set(k, v); }
  return [...m.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)).map(([name, value]) => ({ name, value }));
}

/**
 * Compares strings in UTF-8 byte order (Go's string order, which Prometheus's index files are sorted by).
 * It equals JS's code-unit order except where a surrogate pair meets a unit in U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}
