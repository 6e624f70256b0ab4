/**
 * PromQL syntax tree (after `promql/parser/ast.go`). Durations and timestamps are integer milliseconds.
 * Nodes are plain objects so a parsed tree can be inspected, printed and posted to a worker as-is
 * (matchers are rebuilt on the worker side from `type/name/value`).
 */
import type { Matcher } from '../tsdb/api.ts';

export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

export type StartOrEnd = 'start' | 'end' | null;

export interface NumberLiteral { kind: 'number'; val: number; pos: number }
export interface StringLiteral { kind: 'string'; val: string; pos: number }
export interface VectorSelector {
  kind: 'vector'; name: string; matchers: Matcher[]; pos: number; end: number;
  offset: number; timestamp: number | null; startOrEnd: StartOrEnd;
}
export interface MatrixSelector { kind: 'matrix'; vs: VectorSelector; range: number; pos: number }
export interface SubqueryExpr {
  kind: 'subquery'; expr: Expr; range: number; step: number; pos: number;
  offset: number; timestamp: number | null; startOrEnd: StartOrEnd;
}
export interface ParenExpr { kind: 'paren'; expr: Expr; pos: number }
export interface UnaryExpr { kind: 'unary'; op: '-' | '+'; expr: Expr; pos: number }

export type Cardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';
export interface VectorMatching { card: Cardinality; labels: string[]; on: boolean; include: string[] }

export type BinOp = 'or' | 'and' | 'unless' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%' | '^' | 'atan2';
export interface BinaryExpr {
  kind: 'binary'; op: BinOp; lhs: Expr; rhs: Expr; returnBool: boolean; matching: VectorMatching | null; pos: number;
}

export type AggOp = 'sum' | 'avg' | 'count' | 'min' | 'max' | 'group' | 'stddev' | 'stdvar' | 'topk' | 'bottomk'
  | 'count_values' | 'quantile';
export interface AggregateExpr {
  kind: 'aggregate'; op: AggOp; expr: Expr; param: Expr | null; grouping: string[]; without: boolean; pos: number;
}
export interface Call { kind: 'call'; func: string; args: Expr[]; pos: number }

export type Expr = NumberLiteral | StringLiteral | VectorSelector | MatrixSelector | SubqueryExpr | ParenExpr
  | UnaryExpr | BinaryExpr | AggregateExpr | Call;

export const AGG_OPS: ReadonlySet<string> = new Set(['sum', 'avg', 'count', 'min', 'max', 'group', 'stddev', 'stdvar',
  'topk', 'bottomk', 'count_values', 'quantile']);
export function aggHasParam(op: AggOp): boolean {
  return op === 'topk' || op === 'bottomk' || op === 'count_values' || op === 'quantile';
}
export const COMPARISON_OPS: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);
export const SET_OPS: ReadonlySet<string> = new Set(['and', 'or', 'unless']);

export interface FunctionDef { readonly args: readonly ValueType[]; readonly ret: ValueType; readonly variadic: number }

const V: ValueType = 'vector', M: ValueType = 'matrix', S: ValueType = 'scalar', STR: ValueType = 'string';
const fn = (args: ValueType[], ret: ValueType = V, variadic = 0): FunctionDef => ({ args, ret, variadic });

/** Prometheus 2.42's function list (`promql/parser/functions.go`); native-histogram ones parse but evaluate only classic data. */
export const FUNCTIONS: Record<string, FunctionDef> = {
  abs: fn([V]), absent: fn([V]), absent_over_time: fn([M]), acos: fn([V]), acosh: fn([V]), asin: fn([V]),
  asinh: fn([V]), atan: fn([V]), atanh: fn([V]), avg_over_time: fn([M]), ceil: fn([V]), changes: fn([M]),
  clamp: fn([V, S, S]), clamp_max: fn([V, S]), clamp_min: fn([V, S]), cos: fn([V]), cosh: fn([V]),
  count_over_time: fn([M]), days_in_month: fn([V], V, 1), day_of_month: fn([V], V, 1), day_of_week: fn([V], V, 1),
  day_of_year: fn([V], V, 1), deg: fn([V]), delta: fn([M]), deriv: fn([M]), exp: fn([V]), floor: fn([V]),
  histogram_count: fn([V]), histogram_sum: fn([V]), histogram_fraction: fn([S, S, V]), histogram_quantile: fn([S, V]),
  holt_winters: fn([M, S, S]), hour: fn([V], V, 1), idelta: fn([M]), increase: fn([M]), irate: fn([M]),
  label_replace: fn([V, STR, STR, STR, STR]), label_join: fn([V, STR, STR, STR], V, -1), last_over_time: fn([M]),
  ln: fn([V]), log10: fn([V]), log2: fn([V]), max_over_time: fn([M]), min_over_time: fn([M]), minute: fn([V], V, 1),
  month: fn([V], V, 1), pi: fn([], S), predict_linear: fn([M, S]), present_over_time: fn([M]),
  quantile_over_time: fn([S, M]), rad: fn([V]), rate: fn([M]), resets: fn([M]), round: fn([V, S], V, 1),
  scalar: fn([V], S), sgn: fn([V]), sin: fn([V]), sinh: fn([V]), sort: fn([V]), sort_desc: fn([V]), sqrt: fn([V]),
  stddev_over_time: fn([M]), stdvar_over_time: fn([M]), sum_over_time: fn([M]), tan: fn([V]), tanh: fn([V]),
  time: fn([], S), timestamp: fn([V]), vector: fn([S]), year: fn([V], V, 1),
};

/** Functions whose result depends on the evaluation time itself (no `@` rewriting in the test runner). */
export const AT_MODIFIER_UNSAFE: ReadonlySet<string> = new Set(['time', 'timestamp', 'predict_linear', 'hour', 'minute',
  'month', 'year', 'day_of_month', 'day_of_week', 'day_of_year', 'days_in_month']);

export function typeOf(e: Expr): ValueType {
  switch (e.kind) {
    case 'number': return 'scalar';
    case 'string': return 'string';
    case 'vector': return 'vector';
    case 'matrix': case 'subquery': return 'matrix';
    case 'paren': case 'unary': return typeOf(e.expr);
    case 'binary': return typeOf(e.lhs) === 'scalar' && typeOf(e.rhs) === 'scalar' ? 'scalar' : 'vector';
    case 'aggregate': return 'vector';
    case 'call': return FUNCTIONS[e.func].ret;
  }
}

/** Prometheus's `DocumentedType`. */
export function documentedType(t: ValueType): string {
  return t === 'vector' ? 'instant vector' : t === 'matrix' ? 'range vector' : t;
}

/** Calls `f` on every node, parents before children, with the path of ancestors. */
export function walk(e: Expr, f: (n: Expr, path: readonly Expr[]) => void, path: Expr[] = []): void {
  f(e, path);
  path.push(e);
  switch (e.kind) {
    case 'matrix': walk(e.vs, f, path); break;
    case 'subquery': case 'paren': case 'unary': walk(e.expr, f, path); break;
    case 'binary': walk(e.lhs, f, path); walk(e.rhs, f, path); break;
    case 'aggregate': if (e.param) walk(e.param, f, path); walk(e.expr, f, path); break;
    case 'call': for (const a of e.args) walk(a, f, path); break;
    default: break;
  }
  path.pop();
}
