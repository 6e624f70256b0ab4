/** Expression printer with the output of Prometheus 2.x's `String()` methods (used by `/api/v1/format_query`). */
import { formatDuration } from '../model/duration.ts';
import { goQuote } from './strings.ts';
import { aggHasParam } from './ast.ts';
import type { Expr, StartOrEnd, VectorSelector } from './ast.ts';
import type { Matcher } from '../tsdb/api.ts';

const MATCH_OP = ['=', '!=', '=~', '!~'];

function matcherString(m: Matcher): string { return `${m.name}${MATCH_OP[m.type]}${goQuote(m.value)}`; }

function offsetString(off: number): string {
  if (off > 0) return ` offset ${formatDuration(off)}`;
  if (off < 0) return ` offset -${formatDuration(-off)}`;
  return '';
}
function atString(ts: number | null, se: StartOrEnd): string {
  if (ts !== null) return ` @ ${(ts / 1000).toFixed(3)}`;
  if (se === 'start') return ' @ start()';
  if (se === 'end') return ' @ end()';
  return '';
}

function selectorBody(vs: VectorSelector): string {
  const parts: string[] = [];
  for (const m of vs.matchers) {
    if (m.name === '__name__' && m.type === 0 && m.value === vs.name) continue;
    parts.push(matcherString(m));
  }
  if (parts.length === 0) return vs.name;
  parts.sort();
  return `${vs.name}{${parts.join(',')}}`;
}

/** Go's `%v` of a float64: shortest digits, exponent form when the exponent is < -4 or >= 6 (`1e+06`). */
export function goFloatV(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const exp = Math.floor(Math.log10(Math.abs(v)));
  let s = String(v);
  if (exp < -4 || exp >= 6) {
    s = v.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return s;
}

function subquerySuffix(e: Extract<Expr, { kind: 'subquery' }>): string {
  const step = e.step ? formatDuration(e.step) : '';
  return `[${formatDuration(e.range)}:${step}]${atString(e.timestamp, e.startOrEnd)}${offsetString(e.offset)}`;
}

function matchingString(e: Extract<Expr, { kind: 'binary' }>): string {
  const vm = e.matching;
  if (!vm || (vm.labels.length === 0 && !vm.on)) return '';
  let m = ` ${vm.on ? 'on' : 'ignoring'} (${vm.labels.join(', ')})`;
  if (vm.card === 'many-to-one' || vm.card === 'one-to-many') {
    m += ` group_${vm.card === 'many-to-one' ? 'left' : 'right'} (${vm.include.join(', ')})`;
  }
  return m;
}

function aggPrefix(e: Extract<Expr, { kind: 'aggregate' }>): string {
  if (e.without) return `${e.op} without (${e.grouping.join(', ')}) `;
  if (e.grouping.length > 0) return `${e.op} by (${e.grouping.join(', ')}) `;
  return e.op;
}

const MAX_LINE = 100;
const ind = (n: number): string => '  '.repeat(n);

/** Prometheus's `Pretty(level)` (prettier.go): nodes longer than 100 characters are split over lines. */
export function prettyExpr(e: Expr, level = 0): string {
  const flat = formatExpr(e);
  if (flat.length <= MAX_LINE && e.kind !== 'unary') return e.kind === 'subquery' ? flat : ind(level) + flat;
  switch (e.kind) {
    case 'aggregate': {
      let s = ind(level) + aggPrefix(e) + '(\n';
      if (aggHasParam(e.op)) s += `${prettyExpr(e.param!, level + 1)},\n`;
      return s + `${prettyExpr(e.expr, level + 1)}\n${ind(level)})`;
    }
    case 'binary':
      return `${prettyExpr(e.lhs, level + 1)}\n${ind(level)}${e.op}${e.returnBool ? ' bool' : ''}${matchingString(e)}\n${prettyExpr(e.rhs, level + 1)}`;
    case 'call':
      return `${ind(level)}${e.func}(\n${e.args.map((a) => prettyExpr(a, level + 1)).join(',\n')}\n${ind(level)})`;
    case 'paren': return `${ind(level)}(\n${prettyExpr(e.expr, level + 1)}\n${ind(level)})`;
    case 'subquery': return prettyExpr(e.expr, level) + subquerySuffix(e);
    case 'unary': return `${ind(level)}${e.op}${prettyExpr(e.expr, level).trim()}`;
    default: return ind(level) + flat;
  }
}

export function formatExpr(e: Expr): string {
  switch (e.kind) {
    case 'number': return goFloatV(e.val);
    case 'string': return goQuote(e.val);
    case 'vector': return selectorBody(e) + atString(e.timestamp, e.startOrEnd) + offsetString(e.offset);
    case 'matrix':
      return `${selectorBody(e.vs)}[${formatDuration(e.range)}]${atString(e.vs.timestamp, e.vs.startOrEnd)}${offsetString(e.vs.offset)}`;
    case 'subquery': return `${formatExpr(e.expr)}${subquerySuffix(e)}`;
    case 'paren': return `(${formatExpr(e.expr)})`;
    case 'unary': return `${e.op}${formatExpr(e.expr)}`;
    case 'call': return `${e.func}(${e.args.map(formatExpr).join(', ')})`;
    case 'aggregate': {
      let s = aggPrefix(e) + '(';
      if (aggHasParam(e.op)) s += `${formatExpr(e.param!)}, `;
      return `${s}${formatExpr(e.expr)})`;
    }
    case 'binary':
      return `${formatExpr(e.lhs)} ${e.op}${e.returnBool ? ' bool' : ''}${matchingString(e)} ${formatExpr(e.rhs)}`;
  }
}
