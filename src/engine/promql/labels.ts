/**
 * PromQL's own label-set operations (dropping `__name__`, `on`/`ignoring`/`by`/`without` signatures, Go's
 * `Labels.String()`), over the shared label-set module `tsdb/labels.ts`, whose keys, getters and builders the
 * evaluator uses as they are.
 */
import type { Labels } from '../tsdb/api.ts';
import { labelsKey } from '../tsdb/labels.ts';
import { goQuote } from './strings.ts';

export { compareLabels, getLabel, hasLabel, LABEL_NAME_RE, setLabel } from '../tsdb/labels.ts';

export const METRIC_NAME = '__name__';

const keyCache = new WeakMap<Labels, string>();

/**
 * `labelsKey` memoised per label-set object: the evaluator keys the same output series at every step, and
 * series keep their label objects across steps.
 */
export function cachedLabelsKey(ls: Labels): string {
  let k = keyCache.get(ls);
  if (k === undefined) { k = labelsKey(ls); keyCache.set(ls, k); }
  return k;
}

const droppedCache = new WeakMap<Labels, Labels>();

/** The label set without `__name__`; memoised so a series keeps one output label object across steps. */
export function dropMetricName(ls: Labels): Labels {
  if (ls.length === 0 || ls[0].name !== METRIC_NAME) return ls; // sorted: __name__ sorts before lower-case names
  let d = droppedCache.get(ls);
  if (d === undefined) { d = ls.filter((l) => l.name !== METRIC_NAME); droppedCache.set(ls, d); }
  return d;
}

/**
 * The label set without `__name__`, not memoised: for a caller that drops it once per series (a range
 * function's output series), where the WeakMap entry of `dropMetricName` is only work for the collector.
 */
export function withoutMetricName(ls: Labels): Labels {
  if (ls.length === 0 || ls[0].name !== METRIC_NAME) return ls;
  return ls.slice(1);
}

export function keepLabels(ls: Labels, names: readonly string[]): Labels {
  return ls.filter((l) => names.includes(l.name));
}
export function delLabels(ls: Labels, names: readonly string[]): Labels {
  return ls.filter((l) => !names.includes(l.name));
}

/**
 * Key over only `names` (on) or over everything but `names` and `__name__` (ignoring / without). A grouping
 * signature, not a label-set identity: it is compared only with other signatures of the same grouping.
 */
export function signature(ls: Labels, on: boolean, names: readonly string[]): string {
  let k = '';
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i];
    const listed = names.includes(l.name);
    if (on ? listed : !listed && l.name !== METRIC_NAME) k += l.name + '\xfe' + l.value + '\xff';
  }
  return k;
}

/** Go `labels.Labels.String()`: `{a="b", c="d"}`. */
export function labelsString(ls: Labels): string {
  return '{' + ls.map((l) => `${l.name}=${goQuote(l.value)}`).join(', ') + '}';
}

/** `signature` memoised per label-set object: series keep their label objects across steps. */
export function cachedSignature(on: boolean, names: readonly string[]): (ls: Labels) => string {
  const cache = new Map<Labels, string>();
  return (ls) => {
    let k = cache.get(ls);
    if (k === undefined) { k = signature(ls, on, names); cache.set(ls, k); }
    return k;
  };
}
