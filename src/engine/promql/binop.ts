/** Binary operators: scalar/scalar, vector/scalar and vector/vector with matching (2.42 `engine.go`). */
import type { Labels } from '../tsdb/api.ts';
import type { BinOp, BinaryExpr, VectorMatching } from './ast.ts';
import { COMPARISON_OPS } from './ast.ts';
import { typeOf } from './ast.ts';
import { cachedSignature, dropMetricName, getLabel, keepLabels, delLabels, cachedLabelsKey, labelsString, setLabel } from './labels.ts';
import { execError } from './value.ts';
import type { Matrix, Sample, Vector } from './value.ts';
import type { Evaluator } from './engine.ts';

/** Go's math.Pow, which differs from `**` on 1^NaN, (-1)^±Inf and NaN^0 cases. */
export function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if ((x === -1) && (y === Infinity || y === -Infinity)) return 1;
  return x ** y;
}

/** Set by `elemBinop`: whether a comparison keeps the element (always true for arithmetic). */
let keep = true;

/** Applies `op`; returns the value and sets `keep` (no tuple allocation: this runs per sample per step). */
function elemBinop(op: BinOp, l: number, r: number): number {
  keep = true;
  switch (op) {
    case '+': return l + r;
    case '-': return l - r;
    case '*': return l * r;
    case '/': return l / r;
    case '^': return goPow(l, r);
    case '%': return l % r;
    case '==': keep = l === r; return l;
    case '!=': keep = l !== r; return l;
    case '>': keep = l > r; return l;
    case '<': keep = l < r; return l;
    case '>=': keep = l >= r; return l;
    case '<=': keep = l <= r; return l;
    case 'atan2': return Math.atan2(l, r);
    default: throw execError(`operator ${JSON.stringify(op)} not allowed for operations between vectors`);
  }
}

function scalarBinop(op: BinOp, l: number, r: number): number {
  const v = elemBinop(op, l, r);
  return COMPARISON_OPS.has(op) ? (keep ? 1 : 0) : v;
}

function dropsName(op: BinOp): boolean {
  return op === '+' || op === '-' || op === '*' || op === '/' || op === '^' || op === '%';
}

export function evalBinary(ev: Evaluator, e: BinaryExpr): Matrix {
  const lt = typeOf(e.lhs), rt = typeOf(e.rhs);
  if (lt === 'scalar' && rt === 'scalar') {
    return ev.rangeEval([e.lhs, e.rhs], (v) => [{ metric: [], t: 0, v: scalarBinop(e.op, v[0][0].v, v[1][0].v) }]);
  }
  if (lt === 'vector' && rt === 'vector') {
    const m = e.matching!;
    const sig = cachedSignature(m.on, m.labels);
    switch (e.op) {
      case 'and': return ev.rangeEval([e.lhs, e.rhs], (v) => vectorAnd(v[0], v[1], sig));
      case 'or': return ev.rangeEval([e.lhs, e.rhs], (v) => vectorOr(v[0], v[1], sig));
      case 'unless': return ev.rangeEval([e.lhs, e.rhs], (v) => vectorUnless(v[0], v[1], sig));
      default: {
        const cache = new Map<Labels, Map<Labels, Labels>>();
        return ev.rangeEval([e.lhs, e.rhs], (v) => vectorBinop(e.op, v[0], v[1], m, e.returnBool, sig, cache));
      }
    }
  }
  const swap = lt === 'scalar';
  return ev.rangeEval([e.lhs, e.rhs], (v) => vectorScalar(e.op, swap ? v[1] : v[0], (swap ? v[0] : v[1])[0].v, swap, e.returnBool));
}

function vectorAnd(lhs: Vector, rhs: Vector, sig: (l: Labels) => string): Vector {
  if (lhs.length === 0 || rhs.length === 0) return [];
  const right = new Set(rhs.map((s) => sig(s.metric)));
  return lhs.filter((s) => right.has(sig(s.metric)));
}

function vectorOr(lhs: Vector, rhs: Vector, sig: (l: Labels) => string): Vector {
  if (lhs.length === 0) return rhs.slice();
  if (rhs.length === 0) return lhs.slice();
  const left = new Set(lhs.map((s) => sig(s.metric)));
  return lhs.concat(rhs.filter((s) => !left.has(sig(s.metric))));
}

function vectorUnless(lhs: Vector, rhs: Vector, sig: (l: Labels) => string): Vector {
  if (lhs.length === 0 || rhs.length === 0) return lhs.slice();
  const right = new Set(rhs.map((s) => sig(s.metric)));
  return lhs.filter((s) => !right.has(sig(s.metric)));
}

function vectorBinop(op: BinOp, lhs: Vector, rhs: Vector, m: VectorMatching, returnBool: boolean, sig: (l: Labels) => string,
  cache: Map<Labels, Map<Labels, Labels>>): Vector {
  if (lhs.length === 0 || rhs.length === 0) return [];
  const oneToMany = m.card === 'one-to-many';
  if (oneToMany) [lhs, rhs] = [rhs, lhs];
  const rightSigs = new Map<string, Sample>();
  for (const rs of rhs) {
    const k = sig(rs.metric);
    const dup = rightSigs.get(k);
    if (dup) {
      const matched = m.on ? keepLabels(rs.metric, m.labels) : delLabels(rs.metric, [...m.labels, '__name__']);
      throw execError(`found duplicate series for the match group ${labelsString(matched)} on the ${oneToMany ? 'left' : 'right'} hand-side of the operation: [${labelsString(rs.metric)}, ${labelsString(dup.metric)}];many-to-many matching not allowed: matching labels must be unique on one side`);
    }
    rightSigs.set(k, rs);
  }
  const matchedSigs = new Map<string, Set<string> | null>();
  const out: Vector = [];
  for (const ls of lhs) {
    const k = sig(ls.metric);
    const rs = rightSigs.get(k);
    if (!rs) continue;
    let value = oneToMany ? elemBinop(op, rs.v, ls.v) : elemBinop(op, ls.v, rs.v);
    if (returnBool) value = keep ? 1 : 0;
    else if (!keep) continue;
    // Cached per (lhs, rhs) label objects, like Prometheus's enh.resultMetric, so steps share output labels.
    let byRhs = cache.get(ls.metric);
    if (!byRhs) { byRhs = new Map(); cache.set(ls.metric, byRhs); }
    let metric = byRhs.get(rs.metric);
    if (!metric) {
      metric = resultMetric(ls.metric, rs.metric, op, m);
      if (returnBool) metric = dropMetricName(metric);
      byRhs.set(rs.metric, metric);
    }
    const inserted = matchedSigs.get(k);
    if (m.card === 'one-to-one') {
      if (inserted !== undefined) throw execError('multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)');
      matchedSigs.set(k, null);
    } else {
      const ik = cachedLabelsKey(metric);
      let set = inserted;
      if (!set) { set = new Set(); matchedSigs.set(k, set); } else if (set.has(ik)) throw execError('multiple matches for labels: grouping labels must ensure unique results');
      set.add(ik);
    }
    out.push({ metric, t: 0, v: value });
  }
  return out;
}

function resultMetric(lhs: Labels, rhs: Labels, op: BinOp, m: VectorMatching): Labels {
  let ls = lhs;
  if (dropsName(op)) ls = dropMetricName(ls);
  if (m.card === 'one-to-one') ls = m.on ? keepLabels(ls, m.labels) : delLabels(ls, m.labels);
  for (const name of m.include) ls = setLabel(ls, name, getLabel(rhs, name));
  return ls;
}

function vectorScalar(op: BinOp, lhs: Vector, scalar: number, swap: boolean, returnBool: boolean): Vector {
  const out: Vector = [];
  const cmp = COMPARISON_OPS.has(op);
  for (const s of lhs) {
    const lv = swap ? scalar : s.v, rv = swap ? s.v : scalar;
    let value = elemBinop(op, lv, rv);
    if (cmp && swap) value = rv;
    if (returnBool) { value = keep ? 1 : 0; keep = true; }
    if (!keep) continue;
    out.push({ metric: dropsName(op) || returnBool ? dropMetricName(s.metric) : s.metric, t: s.t, v: value });
  }
  return out;
}
