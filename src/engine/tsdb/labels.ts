/** Label-set helpers: canonical keys, ordering, hashing and conversions. */
import type { Label, Labels } from './api.ts';

const SEP = '\xff';

/**
 * A string that identifies a sorted label set: names and values joined by U+00FF, i.e. exactly
 * `flat.join('\xff')` of the flat `[name, value, …]` form the worker protocol carries, so a worker can key
 * series without building label objects. (A label containing U+00FF could in theory collide; Prometheus
 * label names cannot contain it.)
 */
export function labelsKey(ls: Labels): string {
  let s = '';
  for (let i = 0; i < ls.length; i++) s += (i === 0 ? '' : SEP) + ls[i].name + SEP + ls[i].value;
  return s;
}

/** Sorts by name and drops empty values, as Prometheus does when building a label set. */
export function normalizeLabels(ls: readonly Label[]): Labels {
  const out: Label[] = [];
  for (const l of ls) if (l.value !== '') out.push({ name: l.name, value: l.value });
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

export function labelsFromRecord(rec: Record<string, string>): Labels {
  return normalizeLabels(Object.entries(rec).map(([name, value]) => ({ name, value })));
}

export function labelsToRecord(ls: Labels): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of ls) out[l.name] = l.value;
  return out;
}

export { compareLabels } from './api.ts';

/** FNV-1a over the canonical key: decides which shard worker owns a series. */
export function labelsHash(ls: Labels): number {
  return hashString(labelsKey(ls));
}

export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function getLabel(ls: Labels, name: string): string {
  for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return ls[i].value;
  return '';
}

/** Labels from the flat `[name, value, …]` form (already sorted, as the client sends them). */
export function labelsFromFlat(flat: readonly string[]): Labels {
  const out: Label[] = new Array(flat.length >>> 1);
  for (let i = 0; i < out.length; i++) out[i] = { name: flat[2 * i], value: flat[2 * i + 1] };
  return out;
}
