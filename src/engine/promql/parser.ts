/**
 * PromQL parser: precedence climbing over the token stream, with the grammar, precedences and type checks of
 * Prometheus 2.x (`generated_parser.y`, `parse.go`): `^` is right-associative, unary minus binds tighter than
 * `*` but looser than `^`, and postfix `[range]`, `[range:step]`, `offset`, `@` bind tightest.
 */
import { MATCH_EQUAL, MATCH_NOT_EQUAL, MATCH_REGEXP, MATCH_NOT_REGEXP, newMatcher } from '../tsdb/api.ts';
import type { Matcher, MatchType } from '../tsdb/api.ts';
import { lex, T, parseErrorAt, TOKEN_TEXT } from './lexer.ts';
import { parseDurationMsOrNull } from '../model/duration.ts';
import type { Token } from './lexer.ts';
import { AGG_OPS, FUNCTIONS, aggHasParam } from './ast.ts';
import type { AggOp, AggregateExpr, BinOp, Cardinality, Expr, VectorMatching, VectorSelector, SubqueryExpr, MatrixSelector } from './ast.ts';
import { checkAst } from './typecheck.ts';
import { unquoteString } from './strings.ts';

const BIN_PREC: Record<string, number> = {
  or: 1, and: 2, unless: 2, '==': 3, '!=': 3, '<': 3, '<=': 3, '>': 3, '>=': 3, '+': 4, '-': 4, '*': 5, '/': 5,
  '%': 5, atan2: 5, '^': 6,
};
const TOKEN_OPS: Partial<Record<T, BinOp>> = {
  [T.EQLC]: '==', [T.NEQ]: '!=', [T.LSS]: '<', [T.LTE]: '<=', [T.GTR]: '>', [T.GTE]: '>=', [T.ADD]: '+', [T.SUB]: '-',
  [T.MUL]: '*', [T.DIV]: '/', [T.MOD]: '%', [T.POW]: '^',
};
const MATCH_OPS: Partial<Record<T, MatchType>> = {
  [T.ASSIGN]: MATCH_EQUAL, [T.NEQ]: MATCH_NOT_EQUAL, [T.EQL_REGEX]: MATCH_REGEXP, [T.NEQ_REGEX]: MATCH_NOT_REGEXP,
};
const KEYWORDS = new Set(['and', 'or', 'unless', 'atan2', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left',
  'group_right', 'bool', 'start', 'end', ...AGG_OPS]);
/** Keywords the 2.x grammar refuses as a metric name (the others, e.g. `sum`, `offset`, `by`, name a metric when no `(` follows). */
const NOT_METRIC = new Set(['bool', 'on', 'ignoring', 'group_left', 'group_right', 'atan2']);
const OPERATOR_WORDS = new Set(['and', 'or', 'unless', 'atan2']);

/** Where an expression starts in the input (a binary expression starts at its left operand). */
export function startPos(e: Expr): number {
  return e.kind === 'binary' ? startPos(e.lhs) : e.kind === 'matrix' ? e.vs.pos : e.pos;
}

/** Parses and type-checks a PromQL expression. Throws ParseError (`<line>:<col>: parse error: <msg>`). */
export function parseExpr(input: string): Expr {
  const p = new Parser(input);
  return p.parseTop();
}

/**
 * Deepest expression accepted. The parser, type checker and evaluator all recurse once (or a few times) per
 * level, so deeper input would overflow the stack; it is a parse error instead. Real queries stay far below.
 */
export const MAX_EXPR_DEPTH = 500;

class Parser {
  private readonly toks: Token[];
  private i = 0;
  /** `expr` calls in progress: parentheses, unary operators, arguments and right operands nest through it. */
  private depth = 0;
  constructor(private readonly input: string) { this.toks = lex(input); }

  parseTop(): Expr {
    if (this.peek().t === T.EOF) throw this.err(0, 'no expression found in input');
    const e = this.expr(0);
    const t = this.peek();
    if (t.t !== T.EOF) throw this.err(t.pos, `unexpected ${desc(t)}`);
    // Left-associative chains (`1+1+1…`) are built by a loop, not recursion: their depth is measured here.
    const deep = deepestNode(e, MAX_EXPR_DEPTH);
    if (deep !== null) throw this.tooDeep(deep.pos);
    checkAst(e, this.input);
    return e;
  }

  private peek(k = 0): Token { return this.toks[Math.min(this.i + k, this.toks.length - 1)]; }
  private next(): Token { return this.toks[Math.min(this.i++, this.toks.length - 1)]; }
  private err(pos: number, msg: string): Error { return parseErrorAt(this.input, pos, msg); }
  private expect(t: T, ctx: string): Token {
    const tok = this.next();
    if (tok.t !== t) throw this.err(tok.pos, `unexpected ${desc(tok)} in ${ctx}, expected ${TOKEN_TEXT[t] ?? ''}`);
    return tok;
  }
  private isWord(tok: Token, w: string): boolean { return tok.t === T.IDENT && tok.val.toLowerCase() === w; }

  private binOpAt(): BinOp | null {
    const t = this.peek();
    if (t.t === T.IDENT) {
      const w = t.val.toLowerCase();
      return w === 'and' || w === 'or' || w === 'unless' || w === 'atan2' ? w : null;
    }
    return TOKEN_OPS[t.t] ?? null;
  }

  private tooDeep(pos: number): Error { return this.err(pos, `expression nested too deeply (more than ${MAX_EXPR_DEPTH} levels)`); }

  private expr(minPrec: number): Expr {
    if (++this.depth > MAX_EXPR_DEPTH) throw this.tooDeep(this.peek().pos);
    try { return this.binaryChain(minPrec); } finally { this.depth--; }
  }

  private binaryChain(minPrec: number): Expr {
    let lhs = this.unary();
    for (;;) {
      const op = this.binOpAt();
      if (op === null) return lhs;
      const prec = BIN_PREC[op];
      if (prec < minPrec) return lhs;
      const opTok = this.next();
      const { returnBool, matching } = this.binModifiers(op);
      const rhs = this.expr(op === '^' ? prec : prec + 1);
      lhs = { kind: 'binary', op, lhs, rhs, returnBool, matching, pos: opTok.pos };
    }
  }

  private binModifiers(op: BinOp): { returnBool: boolean; matching: VectorMatching } {
    let returnBool = false;
    const matching: VectorMatching = { card: 'one-to-one', labels: [], on: false, include: [] };
    if (this.isWord(this.peek(), 'bool')) { this.next(); returnBool = true; }
    const t = this.peek();
    if (this.isWord(t, 'on') || this.isWord(t, 'ignoring')) {
      this.next();
      matching.on = t.val.toLowerCase() === 'on';
      matching.labels = this.labelList('grouping opts');
      const g = this.peek();
      if (this.isWord(g, 'group_left') || this.isWord(g, 'group_right')) {
        this.next();
        matching.card = (g.val.toLowerCase() === 'group_left' ? 'many-to-one' : 'one-to-many') as Cardinality;
        if (this.peek().t === T.LPAREN) matching.include = this.labelList('grouping opts');
      }
    } else if (this.isWord(t, 'group_left') || this.isWord(t, 'group_right')) {
      throw this.err(t.pos, `unexpected <${t.val.toLowerCase()}>`);
    }
    void op;
    return { returnBool, matching };
  }

  private labelList(ctx: string): string[] {
    this.expect(T.LPAREN, ctx);
    const out: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.t === T.RPAREN) return out;
      if (t.t !== T.IDENT) throw this.err(t.pos, `unexpected ${desc(t)} in ${ctx}, expected label`);
      out.push(t.val);
      const s = this.next();
      if (s.t === T.RPAREN) return out;
      if (s.t !== T.COMMA) throw this.err(s.pos, `unexpected ${desc(s)} in ${ctx}, expected "," or ")"`);
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.t === T.ADD || t.t === T.SUB) {
      this.next();
      const operand = this.expr(BIN_PREC['^']);
      if (operand.kind === 'number') {
        if (t.t === T.SUB) operand.val = -operand.val;
        operand.pos = t.pos;
        return operand;
      }
      return { kind: 'unary', op: t.t === T.SUB ? '-' : '+', expr: operand, pos: t.pos };
    }
    return this.postfix(this.primary());
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.t) {
      case T.NUMBER: return { kind: 'number', val: parseNumber(t.val, () => this.err(t.pos, `error parsing number: strconv.ParseFloat: parsing ${JSON.stringify(t.val)}: invalid syntax`)), pos: t.pos };
      case T.STRING: return { kind: 'string', val: this.unquote(t), pos: t.pos };
      case T.LPAREN: {
        const e = this.expr(0);
        this.expect(T.RPAREN, 'paren expression');
        return { kind: 'paren', expr: e, pos: t.pos };
      }
      case T.LBRACE: { this.i--; return this.selector('', t.pos); }
      case T.IDENT: return this.identExpr(t);
      case T.EOF: throw this.err(t.pos, 'unexpected end of input');
      case T.DURATION: throw this.err(t.pos, `unexpected duration "${t.val}"`);
      default: throw this.err(t.pos, `unexpected ${desc(t)}`);
    }
  }

  private identExpr(t: Token): Expr {
    const lower = t.val.toLowerCase();
    if (lower === 'inf' || lower === 'nan') return { kind: 'number', val: lower === 'inf' ? Infinity : NaN, pos: t.pos };
    const nx = this.peek();
    if (AGG_OPS.has(lower) && (nx.t === T.LPAREN || this.isWord(nx, 'by') || this.isWord(nx, 'without'))) return this.aggregation(lower as AggOp, t.pos);
    if (nx.t === T.LPAREN && !KEYWORDS.has(lower)) return this.call(t);
    if (NOT_METRIC.has(lower)) throw this.err(t.pos, `unexpected ${desc(t)}`);
    return this.selector(t.val, t.pos);
  }

  private call(t: Token): Expr {
    if (!(t.val in FUNCTIONS)) throw this.err(t.pos, `unknown function with name ${JSON.stringify(t.val)}`);
    this.next();
    const args: Expr[] = [];
    if (this.peek().t === T.RPAREN) { this.next(); return { kind: 'call', func: t.val, args, pos: t.pos }; }
    for (;;) {
      args.push(this.expr(0));
      const s = this.next();
      if (s.t === T.RPAREN) break;
      if (s.t !== T.COMMA) throw this.err(s.pos, `unexpected ${desc(s)} in function call arguments, expected "," or ")"`);
      if (this.peek().t === T.RPAREN) { this.next(); break; }
    }
    return { kind: 'call', func: t.val, args, pos: t.pos };
  }

  private aggregation(op: AggOp, pos: number): AggregateExpr {
    let grouping: string[] = [], without = false, modSeen = false;
    const mod = (): void => {
      const m = this.peek();
      if (this.isWord(m, 'by') || this.isWord(m, 'without')) {
        this.next(); modSeen = true;
        without = m.val.toLowerCase() === 'without';
        grouping = this.labelList('grouping opts');
      }
    };
    mod();
    const lp = this.peek();
    if (lp.t !== T.LPAREN) throw this.err(lp.pos, `unexpected ${desc(lp)} in aggregation, expected "("`);
    this.next();
    const args: Expr[] = [];
    if (this.peek().t !== T.RPAREN) {
      for (;;) {
        args.push(this.expr(0));
        const s = this.next();
        if (s.t === T.RPAREN) break;
        if (s.t !== T.COMMA) throw this.err(s.pos, `unexpected ${desc(s)} in aggregation, expected "," or ")"`);
      }
    } else this.next();
    if (!modSeen) mod();
    if (args.length === 0) throw this.err(pos, 'no arguments for aggregate expression provided');
    const want = aggHasParam(op) ? 2 : 1;
    if (args.length !== want) throw this.err(pos, `wrong number of arguments for aggregate expression provided, expected ${want}, got ${args.length}`);
    return { kind: 'aggregate', op, expr: args[want - 1], param: want === 2 ? args[0] : null, grouping, without, pos };
  }

  private selector(name: string, pos: number): VectorSelector {
    const matchers: Matcher[] = [];
    let end = pos + name.length;
    if (this.peek().t === T.LBRACE) {
      this.next();
      for (;;) {
        const l = this.next();
        if (l.t === T.RBRACE) { end = l.pos + 1; break; }
        if (l.t !== T.IDENT) throw this.err(l.pos, `unexpected ${desc(l)} in label matching, expected label`);
        const opTok = this.next();
        const mt = MATCH_OPS[opTok.t];
        if (mt === undefined) throw this.err(opTok.pos, `unexpected ${desc(opTok)} in label matching, expected label matching operator`);
        const v = this.next();
        if (v.t !== T.STRING) throw this.err(v.pos, `unexpected ${desc(v)} in label matching, expected string`);
        matchers.push(this.matcher(mt, l.val, this.unquote(v), l.pos));
        const s = this.next();
        if (s.t === T.RBRACE) { end = s.pos + 1; break; }
        if (s.t !== T.COMMA) throw this.err(s.pos, `unexpected ${desc(s)} in label matching, expected "," or "}"`);
      }
    }
    if (name !== '') {
      for (const m of matchers) {
        if (m.name === '__name__') throw this.err(pos, `metric name must not be set twice: ${JSON.stringify(name)} or ${JSON.stringify(m.value)}`);
      }
      matchers.push(newMatcher(MATCH_EQUAL, '__name__', name));
    }
    let nonEmpty = false;
    for (const m of matchers) if (!m.matches('')) { nonEmpty = true; break; }
    if (!nonEmpty) throw this.err(pos, 'vector selector must contain at least one non-empty matcher');
    return { kind: 'vector', name, matchers, pos, end, offset: 0, timestamp: null, startOrEnd: null };
  }

  private matcher(t: MatchType, name: string, value: string, pos: number): Matcher {
    try { return newMatcher(t, name, value); } catch (e) { throw this.err(pos, (e as Error).message); }
  }

  private unquote(t: Token): string {
    const s = unquoteString(t.val);
    if (s === null) throw this.err(t.pos, 'invalid syntax');
    return s;
  }

  private duration(ctx: string): number {
    const t = this.next();
    if (t.t === T.DURATION) {
      const d = parseDurationMsOrNull(t.val);
      if (d === 0) throw this.err(t.pos, 'duration must be greater than 0');
    }
    if (t.t !== T.DURATION) {
      if (t.t === T.NUMBER) throw this.err(t.pos, `unexpected number "${t.val}" in ${ctx}, expected duration`);
      throw this.err(t.pos, `unexpected ${desc(t)} in ${ctx}, expected duration`);
    }
    const d = parseDurationMsOrNull(t.val);
    if (d === null) throw this.err(t.pos, `not a valid duration string: ${JSON.stringify(t.val)}`);
    return d;
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.t === T.LBRACKET) e = this.rangeOrSubquery(e);
      else if (this.isWord(t, 'offset')) e = this.offset(e);
      else if (t.t === T.AT) e = this.at(e);
      else return e;
    }
  }

  private rangeOrSubquery(e: Expr): Expr {
    const lb = this.next();
    const range = this.duration('range');
    const t = this.next();
    if (t.t === T.RBRACKET) {
      if (e.kind !== 'vector') throw this.err(lb.pos, 'ranges only allowed for vector selectors');
      if (e.offset !== 0) throw this.err(lb.pos, 'no offset modifiers allowed before range');
      return { kind: 'matrix', vs: e, range, pos: e.pos } satisfies MatrixSelector;
    }
    if (t.t !== T.COLON) throw this.err(t.pos, `unexpected ${desc(t)} in subquery selector, expected ":" or "]"`);
    let step = 0;
    if (this.peek().t !== T.RBRACKET) step = this.duration('subquery selector');
    this.expect(T.RBRACKET, 'subquery selector');
    return { kind: 'subquery', expr: e, range, step, pos: e.pos, offset: 0, timestamp: null, startOrEnd: null } satisfies SubqueryExpr;
  }

  private target(e: Expr, what: string): VectorSelector | SubqueryExpr {
    if (e.kind === 'vector' || e.kind === 'subquery') return e;
    if (e.kind === 'matrix') return e.vs;
    throw this.err(startPos(e), `${what} modifier must be preceded by an instant vector selector or range vector selector or a subquery`);
  }

  private offset(e: Expr): Expr {
    this.next();
    const tgt = this.target(e, 'offset');
    let sign = 1;
    if (this.peek().t === T.SUB) { this.next(); sign = -1; }
    const d = this.duration('offset');
    if (tgt.offset !== 0) throw this.err(startPos(e), 'offset may not be set multiple times');
    tgt.offset = sign * d;
    return e;
  }

  private at(e: Expr): Expr {
    this.next();
    const tgt = this.target(e, '@');
    if (tgt.timestamp !== null || tgt.startOrEnd !== null) throw this.err(startPos(e), '@ <timestamp> may not be set multiple times');
    const t = this.next();
    const unexpected = (tok: Token): Error => this.err(tok.pos, `unexpected ${desc(tok)} in @, expected timestamp`);
    if (t.t === T.IDENT && (t.val === 'start' || t.val === 'end')) {
      for (const want of [T.LPAREN, T.RPAREN]) { const x = this.next(); if (x.t !== want) throw unexpected(x); }
      tgt.startOrEnd = t.val;
      return e;
    }
    let sign = 1, num = t;
    if (t.t === T.ADD || t.t === T.SUB) { sign = t.t === T.SUB ? -1 : 1; num = this.next(); }
    let v: number;
    if (num.t === T.NUMBER) v = parseNumber(num.val, () => this.err(num.pos, 'bad number'));
    else if (num.t === T.IDENT && ['inf', 'nan'].includes(num.val.toLowerCase())) v = num.val.toLowerCase() === 'inf' ? Infinity : NaN;
    else throw unexpected(num);
    v *= sign;
    if (!Number.isFinite(v) || v >= 9.223372036854776e18 || v <= -9.223372036854776e18) {
      throw this.err(startPos(e), `timestamp out of bounds for @ modifier: ${goFixed6(v)}`);
    }
    const ms = v * 1000;
    tgt.timestamp = ms < 0 ? -Math.round(-ms) : Math.round(ms); // Go's math.Round: half away from zero
    return e;
  }
}

function goFixed6(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  return v.toFixed(6);
}

export function parseNumber(s: string, fail: () => Error): number {
  const lower = s.toLowerCase();
  if (lower.startsWith('0x')) { const v = parseInt(s.slice(2), 16); if (Number.isNaN(v)) throw fail(); return v; }
  // Go's ParseInt(s, 0, 64) reads a leading 0 as octal.
  if (/^0[0-7]+$/.test(s)) return parseInt(s, 8);
  const v = Number(s);
  if (Number.isNaN(v)) throw fail();
  return v;
}

const OP_TOKENS: Partial<Record<T, string>> = { ...TOKEN_OPS, [T.AT]: '@' };

/** Token descriptions as Prometheus's `Item.desc()` gives them in error messages. */
function desc(t: Token): string {
  const op = OP_TOKENS[t.t];
  if (op !== undefined) return `<op:${op}>`;
  switch (t.t) {
    case T.EOF: return 'end of input';
    case T.IDENT: {
      const w = t.val.toLowerCase();
      if (OPERATOR_WORDS.has(w)) return `<op:${w}>`;
      if (AGG_OPS.has(w)) return `<aggr:${w}>`;
      if (KEYWORDS.has(w)) return `<${w}>`;
      return `${t.val.includes(':') ? 'metric identifier' : 'identifier'} ${JSON.stringify(t.val)}`;
    }
    case T.NUMBER: return `number ${JSON.stringify(t.val)}`;
    case T.DURATION: return `duration ${JSON.stringify(t.val)}`;
    case T.STRING: return `string ${JSON.stringify(t.val)}`;
    default: return TOKEN_TEXT[t.t] ?? `"${t.val}"`;
  }
}

/** The first node found deeper than `max` levels (an explicit stack, so the walk itself cannot overflow), or null. */
function deepestNode(root: Expr, max: number): Expr | null {
  const nodes: Expr[] = [root];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const e = nodes.pop()!;
    const d = depths.pop()!;
    if (d > max) return e;
    const push = (c: Expr | null): void => { if (c !== null) { nodes.push(c); depths.push(d + 1); } };
    switch (e.kind) {
      case 'paren': case 'unary': case 'subquery': push(e.expr); break;
      case 'binary': push(e.lhs); push(e.rhs); break;
      case 'aggregate': push(e.expr); push(e.param); break;
      case 'call': for (const a of e.args) push(a); break;
      case 'matrix': push(e.vs); break;
      default: break;
    }
  }
  return null;
}
