/** Label-set helpers over the sorted `Labels` arrays of `tsdb/api.ts`. */
import type { Label, Labels } from '../tsdb/api.ts';
import { goQuote } from './strings.ts';

export const METRIC_NAME = '__name__';
export const EMPTY_LABELS: Labels = Object.freeze([]) as Labels;

const keyCache = new WeakMap<Labels, string>();

/** A string that identifies the label set exactly (used as a hash key). */
export function labelsKey(ls: Labels): string {
  let k = keyCache.get(ls);
  if (k !== undefined) return k;
  k = '';
  for (let i = 0; i < ls.length; i++) k += ls[i].name + '\xfe' + ls[i].value + '\xff';
  keyCache.set(ls, k);
  return k;
}

export function getLabel(ls: Labels, name: string): string {
  for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return ls[i].value;
  return '';
}

export function hasLabel(ls: Labels, name: string): boolean {
  for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return true;
  return false;
}

const droppedCache = new WeakMap<Labels, Labels>();

/** The label set without `__name__`; memoised so a series keeps one output label object across steps. */
export function dropMetricName(ls: Labels): Labels {
  if (ls.length === 0 || ls[0].name !== METRIC_NAME) return ls; // sorted: __name__ sorts before lower-case names
  let d = droppedCache.get(ls);
  if (d === undefined) { d = ls.filter((l) => l.name !== METRIC_NAME); droppedCache.set(ls, d); }
  return d;
}

/** Returns a copy with `name` set to `value` (removed when value is ""), kept sorted. */
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

export function keepLabels(ls: Labels, names: readonly string[]): Labels {
  return ls.filter((l) => names.includes(l.name));
}
export function delLabels(ls: Labels, names: readonly string[]): Labels {
  return ls.filter((l) => !names.includes(l.name));
}

/** Key over only `names` (on) or over everything but `names` and `__name__` (ignoring / without). */
export function signature(ls: Labels, on: boolean, names: readonly string[]): string {
  let k = '';
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i];
    const listed = names.includes(l.name);
    if (on ? listed : !listed && l.name !== METRIC_NAME) k += l.name + '\xfe' + l.value + '\xff';
  }
  return k;
}

export { compareLabels } from '../tsdb/api.ts';

export function labelsFromObject(o: Record<string, string>): Labels {
  return Object.keys(o).sort().filter((n) => o[n] !== '').map((name) => ({ name, value: o[name] }));
}


/** Go `labels.Labels.String()`: `{a="b", c="d"}`. */
export function labelsString(ls: Labels): string {
  return '{' + ls.map((l) => `${l.name}=${goQuote(l.value)}`).join(', ') + '}';
}

export const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** `signature` memoised per label-set object: series keep their label objects across steps. */
export function cachedSignature(on: boolean, names: readonly string[]): (ls: Labels) => string {
  const cache = new Map<Labels, string>();
  return (ls) => {
    let k = cache.get(ls);
    if (k === undefined) { k = signature(ls, on, names); cache.set(ls, k); }
    return k;
  };
}
