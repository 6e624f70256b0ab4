/**
 * Lexer and parser of the Painless subset used in update scripts: statements (`if/else`, blocks, `for`,
 * for-each, `while`, local declarations, `return`) and expressions (literals, `ctx`/`params`/locals, member
 * and index access, method calls, `new ArrayList()`/`new HashMap()`, list/map initialisers, unary/binary/
 * logical/ternary operators, assignments and `++`/`--`). Anything else is a compile error.
 */
export type Expr =
  | { k: 'lit'; v: unknown }
  | { k: 'id'; name: string }
  | { k: 'mem'; obj: Expr; name: string }
  | { k: 'idx'; obj: Expr; index: Expr }
  | { k: 'call'; obj: Expr; name: string; args: Expr[] }
  | { k: 'new'; cls: string }
  | { k: 'list'; items: Expr[] }
  | { k: 'map'; entries: [Expr, Expr][] }
  | { k: 'un'; op: string; e: Expr }
  | { k: 'bin'; op: string; l: Expr; r: Expr }
  | { k: 'cond'; c: Expr; a: Expr; b: Expr }
  | { k: 'asg'; op: string; t: Expr; v: Expr }
  | { k: 'upd'; op: '++' | '--'; prefix: boolean; t: Expr };

export type Stmt =
  | { k: 'expr'; e: Expr }
  | { k: 'if'; c: Expr; then: Stmt; else: Stmt | null }
  | { k: 'block'; body: Stmt[] }
  | { k: 'var'; type: string; name: string; init: Expr | null }
  | { k: 'ret'; e: Expr | null }
  | { k: 'for'; init: Stmt | null; c: Expr | null; step: Expr | null; body: Stmt }
  | { k: 'each'; name: string; iter: Expr; body: Stmt }
  | { k: 'while'; c: Expr; body: Stmt };

export class CompileError extends Error {
  constructor(message: string, readonly offset: number) { super(message); }
}

interface Tok { t: 'num' | 'str' | 'id' | 'op' | 'eof'; v: string; pos: number; num?: unknown }

const OPS = ['>>>=', '==', '!=', '<=', '>=', '&&', '||', '++', '--', '+=', '-=', '*=', '/=', '%=', '->', '::',
  '+', '-', '*', '/', '%', '<', '>', '!', '=', '?', ':', '.', ',', ';', '(', ')', '{', '}', '[', ']'];
export const TYPE_NAMES = new Set(['def', 'int', 'long', 'double', 'float', 'short', 'byte', 'boolean', 'String', 'Map',
  'List', 'ArrayList', 'HashMap', 'Object', 'var', 'char']);

/** Marker for a double literal (the evaluator turns it into a Java double). */
export class DoubleLit { constructor(readonly v: number) {} }

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (src.startsWith('//', i)) { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (src.startsWith('/*', i)) { const e = src.indexOf('*/', i + 2); i = e < 0 ? src.length : e + 2; continue; }
    const start = i;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(\d*\.?\d+(?:[eE][+-]?\d+)?|\d+\.)([lLdDfF]?)/.exec(src.slice(i))!;
      i += m[0].length;
      const isDouble = /[.eE]/.test(m[1]) || /[dDfF]/.test(m[2]);
      out.push({ t: 'num', v: m[0], pos: start, num: isDouble ? new DoubleLit(Number(m[1])) : Number(m[1]) });
      continue;
    }
    if (c === '"' || c === "'") {
      let s = '';
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\') { const n = src[i + 1]; s += n === 'n' ? '\n' : n === 't' ? '\t' : n; i += 2; } else s += src[i++];
      }
      if (i >= src.length) throw new CompileError('unterminated string', start);
      i++;
      out.push({ t: 'str', v: s, pos: start });
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      i += m[0].length;
      out.push({ t: 'id', v: m[0], pos: start });
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new CompileError(`unexpected character [${c}]`, i);
    i += op.length;
    out.push({ t: 'op', v: op, pos: start });
  }
  out.push({ t: 'eof', v: '<EOF>', pos: src.length });
  return out;
}

const BIN_PREC: Record<string, number> = { '||': 1, '&&': 2, '==': 3, '!=': 3, '<': 4, '<=': 4, '>': 4, '>=': 4, '+': 5, '-': 5, '*': 6, '/': 6, '%': 6 };
const ASSIGN = new Set(['=', '+=', '-=', '*=', '/=', '%=']);

export function parseScript(src: string): Stmt[] {
  const toks = lex(src);
  let p = 0;
  const peek = (o = 0): Tok => toks[Math.min(p + o, toks.length - 1)];
  const fail = (t: Tok): never => { throw new CompileError(`unexpected token ['${t.v}'] was expecting one of [<EOF>, ';'].`, t.pos); };
  const isOp = (v: string, o = 0): boolean => peek(o).t === 'op' && peek(o).v === v;
  const expect = (v: string): void => { if (!isOp(v)) fail(peek()); p++; };
  const semi = (): void => { if (isOp(';')) p++; else if (!isOp('}') && peek().t !== 'eof') fail(peek()); };

  function statement(): Stmt {
    const t = peek();
    if (t.t === 'op' && t.v === '{') { p++; const body: Stmt[] = []; while (!isOp('}')) { if (peek().t === 'eof') fail(peek()); body.push(statement()); } p++; return { k: 'block', body }; }
    if (t.t === 'op' && t.v === ';') { p++; return { k: 'block', body: [] }; }
    if (t.t === 'id') {
      if (t.v === 'if') { p++; expect('('); const c = expr(); expect(')'); const then = statement(); let els: Stmt | null = null; if (peek().t === 'id' && peek().v === 'else') { p++; els = statement(); } return { k: 'if', c, then, else: els }; }
      if (t.v === 'return') { p++; const e = isOp(';') || isOp('}') || peek().t === 'eof' ? null : expr(); semi(); return { k: 'ret', e }; }
      if (t.v === 'while') { p++; expect('('); const c = expr(); expect(')'); return { k: 'while', c, body: statement() }; }
      if (t.v === 'for') return forStatement();
      if (isDecl()) { const d = decl(); semi(); return d; }
    }
    const e = expr();
    semi();
    return { k: 'expr', e };
  }

  function isDecl(): boolean {
    return peek().t === 'id' && TYPE_NAMES.has(peek().v) && peek(1).t === 'id';
  }

  function decl(): Stmt {
    const type = peek().v; p++;
    const name = peek().v; p++;
    let init: Expr | null = null;
    if (isOp('=')) { p++; init = expr(); }
    return { k: 'var', type, name, init };
  }

  function forStatement(): Stmt {
    p++; expect('(');
    if (peek().t === 'id' && TYPE_NAMES.has(peek().v) && peek(1).t === 'id' && peek(2).t === 'op' && (peek(2).v === ':')) {
      p++; const name = peek().v; p += 2; const iter = expr(); expect(')');
      return { k: 'each', name, iter, body: statement() };
    }
    const init = isOp(';') ? null : isDecl() ? decl() : { k: 'expr' as const, e: expr() };
    expect(';');
    const c = isOp(';') ? null : expr();
    expect(';');
    const step = isOp(')') ? null : expr();
    expect(')');
    return { k: 'for', init, c, step, body: statement() };
  }

  function expr(): Expr {
    const left = ternary();
    if (peek().t === 'op' && ASSIGN.has(peek().v)) {
      const op = peek().v; p++;
      if (left.k !== 'id' && left.k !== 'mem' && left.k !== 'idx') throw new CompileError('invalid assignment target', peek().pos);
      return { k: 'asg', op, t: left, v: expr() };
    }
    return left;
  }

  function ternary(): Expr {
    const c = binary(1);
    if (!isOp('?')) return c;
    p++;
    const a = expr(); expect(':'); const b = expr();
    return { k: 'cond', c, a, b };
  }

  function binary(min: number): Expr {
    let l = unary();
    for (;;) {
      const t = peek();
      const prec = t.t === 'op' ? BIN_PREC[t.v] : undefined;
      if (prec === undefined || prec < min) return l;
      p++;
      l = { k: 'bin', op: t.v, l, r: binary(prec + 1) };
    }
  }

  function unary(): Expr {
    const t = peek();
    if (t.t === 'op' && (t.v === '!' || t.v === '-' || t.v === '+')) { p++; return { k: 'un', op: t.v, e: unary() }; }
    if (t.t === 'op' && (t.v === '++' || t.v === '--')) { p++; return { k: 'upd', op: t.v, prefix: true, t: unary() }; }
    if (t.t === 'op' && t.v === '(' && peek(1).t === 'id' && TYPE_NAMES.has(peek(1).v) && peek(2).t === 'op' && peek(2).v === ')') {
      p += 3; return { k: 'call', obj: unary(), name: `(cast)${t.v}`, args: [] };
    }
    return postfix(primary());
  }

  function postfix(e: Expr): Expr {
    for (;;) {
      if (isOp('.')) {
        p++;
        const name = peek(); if (name.t !== 'id') fail(name); p++;
        if (isOp('(')) e = { k: 'call', obj: e, name: name.v, args: args() };
        else e = { k: 'mem', obj: e, name: name.v };
      } else if (isOp('[')) { p++; const index = expr(); expect(']'); e = { k: 'idx', obj: e, index }; }
      else if (isOp('++') || isOp('--')) { const op = peek().v as '++' | '--'; p++; e = { k: 'upd', op, prefix: false, t: e }; }
      else return e;
    }
  }

  function args(): Expr[] {
    expect('(');
    const out: Expr[] = [];
    while (!isOp(')')) { out.push(expr()); if (!isOp(')')) expect(','); }
    p++;
    return out;
  }

  function primary(): Expr {
    const t = peek();
    if (t.t === 'num') { p++; return { k: 'lit', v: t.num }; }
    if (t.t === 'str') { p++; return { k: 'lit', v: t.v }; }
    if (t.t === 'op' && t.v === '(') { p++; const e = expr(); expect(')'); return e; }
    if (t.t === 'op' && t.v === '[') return initializer();
    if (t.t === 'id') {
      p++;
      if (t.v === 'true' || t.v === 'false') return { k: 'lit', v: t.v === 'true' };
      if (t.v === 'null') return { k: 'lit', v: null };
      if (t.v === 'new') {
        const cls = peek(); if (cls.t !== 'id') fail(cls); p++;
        args();
        if (!/^(ArrayList|HashMap|LinkedHashMap|LinkedList|HashSet)$/.test(cls.v)) throw new CompileError(`invalid type [${cls.v}]`, cls.pos);
        return { k: 'new', cls: cls.v };
      }
      return { k: 'id', name: t.v };
    }
    return fail(t);
  }

  function initializer(): Expr {
    p++;
    if (isOp(':')) { p++; expect(']'); return { k: 'map', entries: [] }; }
    if (isOp(']')) { p++; return { k: 'list', items: [] }; }
    const first = expr();
    if (isOp(':')) {
      p++;
      const entries: [Expr, Expr][] = [[first, expr()]];
      while (isOp(',')) { p++; const key = expr(); expect(':'); entries.push([key, expr()]); }
      expect(']');
      return { k: 'map', entries };
    }
    const items = [first];
    while (isOp(',')) { p++; items.push(expr()); }
    expect(']');
    return { k: 'list', items };
  }

  const body: Stmt[] = [];
  while (peek().t !== 'eof') body.push(statement());
  return body;
}
