/** Static type checks of a parsed tree, with Prometheus 2.x's messages (`parse.go` `checkAST`). */
import { parseErrorAt } from './lexer.ts';
import { COMPARISON_OPS, FUNCTIONS, SET_OPS, documentedType, typeOf } from './ast.ts';
import type { Expr, ValueType } from './ast.ts';

function startPos(e: Expr): number {
  return e.kind === 'binary' ? startPos(e.lhs) : e.kind === 'matrix' ? e.vs.pos : e.pos;
}

export function checkAst(e: Expr, input: string): ValueType {
  const fail = (pos: number, msg: string): never => { throw parseErrorAt(input, pos, msg); };
  const expect = (n: Expr, want: ValueType, ctx: string): void => {
    const t = checkAst(n, input);
    if (t !== want) fail(n.pos, `expected type ${documentedType(want)} in ${ctx}, got ${documentedType(t)}`);
  };
  switch (e.kind) {
    case 'paren': checkAst(e.expr, input); break;
    case 'aggregate':
      expect(e.expr, 'vector', 'aggregation expression');
      if (e.op === 'topk' || e.op === 'bottomk' || e.op === 'quantile') expect(e.param!, 'scalar', 'aggregation parameter');
      if (e.op === 'count_values') expect(e.param!, 'string', 'aggregation parameter');
      break;
    case 'call': checkCall(e, expect, fail); break;
    case 'unary': {
      const t = checkAst(e.expr, input);
      if (t !== 'scalar' && t !== 'vector') fail(e.pos, `unary expression only allowed on expressions of type scalar or instant vector, got ${JSON.stringify(documentedType(t))}`);
      break;
    }
    case 'subquery': {
      const t = checkAst(e.expr, input);
      if (t !== 'vector') fail(e.pos, `subquery is only allowed on instant vector, got ${t} instead`);
      break;
    }
    case 'binary': checkBinary(e, input, fail); break;
    default: break;
  }
  return typeOf(e);
}

function checkCall(e: Extract<Expr, { kind: 'call' }>, expect: (n: Expr, w: ValueType, c: string) => void, fail: (p: number, m: string) => never): void {
  const f = FUNCTIONS[e.func];
  const nargs = f.args.length;
  if (f.variadic === 0) {
    if (nargs !== e.args.length) fail(e.pos, `expected ${nargs} argument(s) in call to ${JSON.stringify(e.func)}, got ${e.args.length}`);
  } else {
    const na = nargs - 1;
    if (na > e.args.length) fail(e.pos, `expected at least ${na} argument(s) in call to ${JSON.stringify(e.func)}, got ${e.args.length}`);
    else if (f.variadic > 0 && na + f.variadic < e.args.length) {
      fail(e.pos, `expected at most ${na + f.variadic} argument(s) in call to ${JSON.stringify(e.func)}, got ${e.args.length}`);
    }
  }
  for (let i = 0; i < e.args.length; i++) {
    let j = i;
    if (j >= nargs) { if (f.variadic === 0) break; j = nargs - 1; }
    expect(e.args[i], f.args[j], `call to function ${JSON.stringify(e.func)}`);
  }
}

function checkBinary(e: Extract<Expr, { kind: 'binary' }>, input: string, fail: (p: number, m: string) => never): void {
  const lt = checkAst(e.lhs, input), rt = checkAst(e.rhs, input);
  const vm = e.matching!;
  if (e.returnBool && !COMPARISON_OPS.has(e.op)) fail(e.pos, 'bool modifier can only be used on comparison operators');
  if (COMPARISON_OPS.has(e.op) && !e.returnBool && lt === 'scalar' && rt === 'scalar') fail(e.pos, 'comparisons between scalars must use BOOL modifier');
  if (SET_OPS.has(e.op) && vm.card === 'one-to-one') vm.card = 'many-to-many';
  if (vm.on) for (const l of vm.labels) if (vm.include.includes(l)) fail(e.pos, `label ${JSON.stringify(l)} must not occur in ON and GROUP clause at once`);
  if (lt !== 'scalar' && lt !== 'vector') fail(startPos(e.lhs), 'binary expression must contain only scalar and instant vector types');
  if (rt !== 'scalar' && rt !== 'vector') fail(startPos(e.rhs), 'binary expression must contain only scalar and instant vector types');
  const start = startPos(e);
  if (lt !== 'vector' || rt !== 'vector') {
    if (vm.labels.length > 0) fail(start, 'vector matching only allowed between instant vectors');
    e.matching = null;
  } else if (SET_OPS.has(e.op)) {
    if (vm.card === 'one-to-many' || vm.card === 'many-to-one') fail(start, `no grouping allowed for ${JSON.stringify(e.op)} operation`);
  }
  if ((lt === 'scalar' || rt === 'scalar') && SET_OPS.has(e.op)) fail(start, `set operator ${JSON.stringify(e.op)} not allowed in binary scalar expression`);
}
