/**
 * Aggregation operators with 2.42's grouping, label and ordering rules (`engine.go` `aggregation`).
 * topk/bottomk keep Go's container/heap layout and final sort so ties come out in the same order.
 */
import type { Labels } from '../tsdb/api.ts';
import type { AggOp } from './ast.ts';
import { cachedSignature, delLabels, keepLabels, LABEL_NAME_RE, setLabel, signature } from './labels.ts';
import { execError } from './value.ts';
import type { Sample, Vector } from './value.ts';
import { quantile } from './quantile.ts';
import { formatFloat } from './format.ts';
import { goSort } from './go-sort.ts';

interface Group {
  labels: Labels; value: number; mean: number; count: number; heap: Sample[];
}

type Less = (a: Sample, b: Sample) => boolean;
const topLess: Less = (a, b) => Number.isNaN(a.v) || a.v < b.v;
const bottomLess: Less = (a, b) => Number.isNaN(a.v) || a.v > b.v;

function heapUp(h: Sample[], j: number, less: Less): void {
  for (;;) {
    const i = Math.trunc((j - 1) / 2);
    if (i === j || !less(h[j], h[i])) break;
    [h[i], h[j]] = [h[j], h[i]];
    j = i;
  }
}
function heapDown(h: Sample[], i: number, n: number, less: Less): void {
  for (;;) {
    const j1 = 2 * i + 1;
    if (j1 >= n) break;
    let j = j1;
    const j2 = j1 + 1;
    if (j2 < n && less(h[j2], h[j1])) j = j2;
    if (!less(h[j], h[i])) break;
    [h[i], h[j]] = [h[j], h[i]];
    i = j;
  }
}
function heapPush(h: Sample[], s: Sample, less: Less): void { h.push(s); heapUp(h, h.length - 1, less); }
function heapPop(h: Sample[], less: Less): void {
  const n = h.length - 1;
  [h[0], h[n]] = [h[n], h[0]];
  heapDown(h, 0, n, less);
  h.pop();
}

/** `sort.Sort(sort.Reverse(x))` exactly as Go orders it (ties included). */
export function sortReverse(h: Sample[], less: Less): void {
  goSort(h, (a, b) => less(b, a));
}
export { topLess, bottomLess };

/** A memoised grouping key for `aggregate` (see `cachedSignature`). */
export function groupingKeyFn(grouping: string[], without: boolean): (ls: Labels) => string {
  if (grouping.length === 0 && !without) return () => '';
  return cachedSignature(!without, grouping);
}

/** Output label sets by group key, kept across steps so every step yields the same label objects. */
export type GroupLabelCache = Map<string, Labels>;

export function aggregate(op: AggOp, grouping: string[], without: boolean, param: number | string, vec: Vector,
  keyOf: (ls: Labels) => string = groupingKeyFn(grouping, without), labelCache: GroupLabelCache = new Map()): Vector {
  let k = 0;
  if (op === 'topk' || op === 'bottomk') {
    const f = param as number;
    if (!(f >= -9.223372036854776e18 && f <= 9.223372036854776e18)) throw execError(`Scalar value ${f} overflows int64`);
    k = Math.trunc(f);
    if (k < 1) return [];
  }
  let valueLabel = '';
  if (op === 'count_values') {
    valueLabel = param as string;
    if (!LABEL_NAME_RE.test(valueLabel)) throw execError(`invalid label name ${JSON.stringify(valueLabel)}`);
    if (!without) grouping = [...grouping, valueLabel].sort();
  }
  const result = new Map<string, Group>();
  const ordered: Group[] = [];
  const less = op === 'bottomk' ? bottomLess : topLess;
  for (const s of vec) {
    let metric = s.metric;
    if (op === 'count_values') metric = setLabel(metric, valueLabel, formatFloat(s.v));
    const key = op === 'count_values' ? (grouping.length === 0 && !without ? '' : signature(metric, !without, grouping)) : keyOf(metric);
    const g = result.get(key);
    if (!g) {
      let labels = labelCache.get(key);
      if (labels === undefined) {
        labels = without ? delLabels(metric, [...grouping, '__name__']) : keepLabels(metric, grouping);
        if (op !== 'count_values') labelCache.set(key, labels);
      }
      const ng: Group = { labels, value: s.v, mean: s.v, count: 1, heap: [] };
      if (op === 'stddev' || op === 'stdvar') ng.value = 0;
      else if (op === 'topk' || op === 'bottomk' || op === 'quantile') ng.heap.push({ metric: s.metric, t: 0, v: s.v });
      else if (op === 'group') ng.value = 1;
      result.set(key, ng);
      ordered.push(ng);
      continue;
    }
    accumulate(op, g, s, k, less);
  }
  return finish(op, ordered, param, less);
}

function accumulate(op: AggOp, g: Group, s: Sample, k: number, less: Less): void {
  switch (op) {
    case 'sum': g.value += s.v; break;
    case 'avg': {
      g.count++;
      if (g.mean === Infinity || g.mean === -Infinity) {
        if ((s.v === Infinity || s.v === -Infinity) && (g.mean > 0) === (s.v > 0)) break;
        if (Number.isFinite(s.v)) break;
      }
      g.mean += s.v / g.count - g.mean / g.count;
      break;
    }
    case 'group': break;
    case 'max': if (g.value < s.v || Number.isNaN(g.value)) g.value = s.v; break;
    case 'min': if (g.value > s.v || Number.isNaN(g.value)) g.value = s.v; break;
    case 'count': case 'count_values': g.count++; break;
    case 'stddev': case 'stdvar': {
      g.count++;
      const delta = s.v - g.mean;
      g.mean += delta / g.count;
      g.value += delta * (s.v - g.mean);
      break;
    }
    case 'topk': case 'bottomk': {
      const h = g.heap;
      const top = h[0].v;
      const better = op === 'topk' ? top < s.v : top > s.v;
      if (h.length < k || better || Number.isNaN(top)) {
        const item = { metric: s.metric, t: 0, v: s.v };
        if (h.length === k) {
          if (k === 1) { h[0] = item; break; }
          heapPop(h, less);
        }
        heapPush(h, item, less);
      }
      break;
    }
    case 'quantile': g.heap.push(s); break;
  }
}

function finish(op: AggOp, groups: Group[], param: number | string, less: Less): Vector {
  const out: Vector = [];
  for (const g of groups) {
    let v = g.value;
    switch (op) {
      case 'avg': v = g.mean; break;
      case 'count': case 'count_values': v = g.count; break;
      case 'stdvar': v = g.value / g.count; break;
      case 'stddev': v = Math.sqrt(g.value / g.count); break;
      case 'topk': case 'bottomk':
        if (g.heap.length > 1) sortReverse(g.heap, less);
        for (const s of g.heap) out.push({ metric: s.metric, t: 0, v: s.v });
        continue;
      case 'quantile': v = quantile(param as number, g.heap.map((s) => s.v)); break;
      default: break;
    }
    out.push({ metric: g.labels, t: 0, v });
  }
  return out;
}
