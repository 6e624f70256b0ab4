/**
 * Parser for the subset of Go's `text/template` that alert labels and annotations use in practice:
 * text, `{{ pipeline }}` with `{{-`/`-}}` trimming and comments, variables (`$labels.x`, `$value`,
 * `$x := …`), field chains (`.Labels.x`), string/number/bool literals, function calls and `|` pipes,
 * parenthesised pipelines, and `if`/`else if`/`else`/`range`/`with`/`end`. Errors read like Go's
 * (`template: <name>:<line>: <message>`).
 */
import { InvalidArgumentError } from '../errors.ts';

export type Operand =
  | { k: 'lit'; v: unknown }
  | { k: 'var'; name: string; fields: string[] }
  | { k: 'field'; fields: string[] }            // .a.b (empty list = dot)
  | { k: 'func'; name: string }
  | { k: 'pipe'; p: Pipeline; fields: string[] };
export interface Command { args: Operand[]; line: number }
export interface Pipeline { decl: string | null; keyDecl?: string; assign: boolean; cmds: Command[]; line: number; text: string }
export type Node =
  | { k: 'text'; s: string }
  | { k: 'action'; p: Pipeline }
  | ControlNode;
export interface ControlNode { k: 'if' | 'with' | 'range'; p: Pipeline; then: Node[]; else: Node[] }

export class TemplateError extends InvalidArgumentError {
  constructor(msg: string) { super('INVALID_ARGUMENT', msg); }
}

interface Tok { t: 'var' | 'field' | 'ident' | 'str' | 'num' | 'punct'; v: string }

const NUM_RE = /^[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)/;

function lexAction(src: string, fail: (m: string) => never): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    if (c === '"' || c === '`') {
      const end = c === '`' ? src.indexOf('`', i + 1) : findQuoteEnd(src, i);
      if (end < 0) fail('unterminated quoted string');
      const raw = src.slice(i, end + 1);
      let v: string;
      try { v = c === '`' ? raw.slice(1, -1) : JSON.parse(raw.replace(/\\'/g, "'").replace(/\\a/g, '\\u0007').replace(/\\v/g, '\\u000b')); } catch { fail(`bad string syntax: ${raw}`); }
      out.push({ t: 'str', v }); i = end + 1; continue;
    }
    if (c === '$' || c === '.') {
      const m = /^[$.][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/.exec(src.slice(i))!;
      if (c === '.' && /^\.\d/.test(src.slice(i))) { /* number */ } else { out.push({ t: c === '$' ? 'var' : 'field', v: m[0] }); i += m[0].length; continue; }
    }
    if (c === ':' && src[i + 1] === '=') { out.push({ t: 'punct', v: ':=' }); i += 2; continue; }
    if ('|()=,'.includes(c)) { out.push({ t: 'punct', v: c }); i++; continue; }
    const num = NUM_RE.exec(src.slice(i));
    if (num && (/[\d.]/.test(c) || ((c === '-' || c === '+') && /[\d.]/.test(src[i + 1] ?? '')))) {
      out.push({ t: 'num', v: num[0] }); i += num[0].length; continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) { out.push({ t: 'ident', v: id[0] }); i += id[0].length; continue; }
    fail(`unexpected ${JSON.stringify(c)} in command`);
  }
  return out;
}

function findQuoteEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') { j++; continue; }
    if (s[j] === '"') return j;
    if (s[j] === '\n') return -1;
  }
  return -1;
}

export interface ParseContext { name: string; isFunc(name: string): boolean }

/** Parses a template; throws TemplateError. */
export function parseTemplate(text: string, ctx: ParseContext): Node[] {
  const p = new TemplateParser(text, ctx);
  const nodes = p.list(new Set());
  if (p.pendingEnd) p.fail(p.lastLine, `unexpected {{${p.pendingEnd}}}`);
  return nodes;
}

interface Action { kind: 'text' | 'action'; s: string; line: number }

class TemplateParser {
  private items: Action[] = [];
  private pos = 0;
  pendingEnd: string | null = null;
  lastLine = 1;
  private vars: string[][] = [['$', '$labels', '$externalLabels', '$externalURL', '$value']];

  constructor(text: string, private readonly ctx: ParseContext) { this.split(text); }

  fail(line: number, msg: string): never { throw new TemplateError(`template: ${this.ctx.name}:${line}: ${msg}`); }

  private split(text: string): void {
    let i = 0, line = 1;
    while (i < text.length) {
      const open = text.indexOf('{{', i);
      if (open < 0) { this.items.push({ kind: 'text', s: text.slice(i), line }); break; }
      let chunk = text.slice(i, open);
      const trimLeft = text.startsWith('{{- ', open) || text.startsWith('{{-\t', open) || text.startsWith('{{-\n', open);
      if (trimLeft) chunk = chunk.replace(/\s+$/, '');
      if (chunk) this.items.push({ kind: 'text', s: chunk, line });
      line += countNl(text.slice(i, open));
      const bodyStart = open + (trimLeft ? 3 : 2);
      const close = findClose(text, bodyStart);
      if (close < 0) this.fail(line, 'unclosed action');
      const trimRight = close > bodyStart && text[close - 1] === '-' && /\s/.test(text[close - 2] ?? '');
      const body = text.slice(bodyStart, trimRight ? close - 1 : close);
      const trimmed = body.trim();
      if (!(trimmed.startsWith('/*') && trimmed.endsWith('*/'))) this.items.push({ kind: 'action', s: body, line });
      line += countNl(body);
      i = close + 2;
      if (trimRight) { while (i < text.length && /\s/.test(text[i])) { if (text[i] === '\n') line++; i++; } }
    }
    this.lastLine = line;
  }

  /** Parses items until one of `stops` (`end`, `else`) appears; leaves it in `pendingEnd`. */
  list(stops: Set<string>): Node[] {
    const out: Node[] = [];
    while (this.pos < this.items.length) {
      const it = this.items[this.pos++];
      if (it.kind === 'text') { out.push({ k: 'text', s: it.s }); continue; }
      const body = it.s.trim();
      const kw = /^(if|else|end|range|with|define|template|block|break|continue)\b/.exec(body)?.[1];
      if (kw === 'end' || kw === 'else') {
        if (!stops.has(kw)) this.fail(it.line, `unexpected {{${kw}}}`);
        this.pendingEnd = body;
        return out;
      }
      if (kw === 'if' || kw === 'with' || kw === 'range') { out.push(this.control(kw, body.slice(kw.length), it.line)); continue; }
      if (kw) this.fail(it.line, `{{${kw}}} is not supported`);
      out.push({ k: 'action', p: this.pipeline(body, it.line) });
    }
    if (stops.size) this.fail(this.lastLine, 'unexpected EOF');
    return out;
  }

  private control(kw: 'if' | 'with' | 'range', rest: string, line: number): Node {
    this.vars.push([]);
    const p = this.pipeline(rest, line);
    if (p.cmds.length === 0) this.fail(line, `missing value for ${kw}`);
    const then = this.list(new Set(['end', 'else']));
    this.vars.pop();
    const term = this.pendingEnd!;
    this.pendingEnd = null;
    let els: Node[] = [];
    if (term.startsWith('else')) {
      const elseRest = term.slice(4).trim();
      // `{{else if …}}` shares the outer `{{end}}`, so the nested node consumes it.
      if (/^if\b/.test(elseRest)) els = [this.control('if', elseRest.slice(2), line)];
      else { els = this.list(new Set(['end'])); this.pendingEnd = null; }
    }
    return { k: kw, p, then, else: els };
  }

  private isVar(name: string): boolean { return this.vars.some((s) => s.includes(name)); }

  pipeline(src: string, line: number): Pipeline {
    const toks = lexAction(src, (m) => this.fail(line, m));
    let i = 0;
    let decl: string | null = null, assign = false, keyDecl: string | undefined;
    if (toks.length >= 4 && toks[0].t === 'var' && toks[1].v === ',' && toks[2].t === 'var' && toks[3].v === ':=') {
      keyDecl = toks[0].v;
      this.vars[this.vars.length - 1].push(keyDecl);
      toks.splice(0, 2);
    }
    if (toks.length >= 2 && toks[0].t === 'var' && toks[1].t === 'punct' && (toks[1].v === ':=' || toks[1].v === '=')) {
      decl = toks[0].v; assign = toks[1].v === '=';
      if (assign && !this.isVar(decl)) this.fail(line, `undefined variable "${decl}"`);
      i = 2;
    }
    const { cmds, next } = this.commands(toks, i, line, false);
    if (next !== toks.length) this.fail(line, `unexpected ${JSON.stringify(toks[next].v)} in command`);
    if (decl && !assign) this.vars[this.vars.length - 1].push(decl);
    if ((decl || toks.length) && cmds.length === 0) this.fail(line, 'missing value for command');
    return { decl, keyDecl, assign, cmds, line, text: src.trim() };
  }

  private commands(toks: Tok[], i: number, line: number, inParen: boolean): { cmds: Command[]; next: number } {
    const cmds: Command[] = [];
    let args: Operand[] = [];
    for (; i < toks.length; i++) {
      const t = toks[i];
      if (t.t === 'punct' && t.v === ')') { if (!inParen) this.fail(line, 'unexpected right paren'); break; }
      if (t.t === 'punct' && t.v === '|') {
        if (args.length === 0) this.fail(line, 'missing command');
        cmds.push({ args, line }); args = []; continue;
      }
      if (t.t === 'punct' && t.v === '(') {
        const inner = this.commands(toks, i + 1, line, true);
        if (toks[inner.next]?.v !== ')') this.fail(line, 'unclosed left paren');
        i = inner.next;
        args.push({ k: 'pipe', p: { decl: null, assign: false, cmds: inner.cmds, line, text: '' }, fields: [] });
        continue;
      }
      args.push(this.operand(t, line));
    }
    if (args.length) cmds.push({ args, line });
    else if (cmds.length) this.fail(line, 'missing command');
    return { cmds, next: i };
  }

  private operand(t: Tok, line: number): Operand {
    switch (t.t) {
      case 'str': return { k: 'lit', v: t.v };
      case 'num': {
        const n = Number(t.v.replace(/_/g, ''));
        if (Number.isNaN(n)) this.fail(line, `illegal number syntax: ${JSON.stringify(t.v)}`);
        return { k: 'lit', v: n };
      }
      case 'var': {
        const [name, ...fields] = t.v.split('.');
        if (!this.isVar(name)) this.fail(line, `undefined variable "${name}"`);
        return { k: 'var', name, fields };
      }
      case 'field': return { k: 'field', fields: t.v === '.' ? [] : t.v.slice(1).split('.') };
      case 'ident':
        if (t.v === 'true' || t.v === 'false') return { k: 'lit', v: t.v === 'true' };
        if (t.v === 'nil') return { k: 'lit', v: null };
        if (!this.ctx.isFunc(t.v)) this.fail(line, `function "${t.v}" not defined`);
        return { k: 'func', name: t.v };
      default: this.fail(line, `unexpected ${JSON.stringify(t.v)} in operand`);
    }
  }
}

function countNl(s: string): number { let n = 0; for (let i = 0; i < s.length; i++) if (s[i] === '\n') n++; return n; }

/** Index of the `}}` closing the action starting at `i`, skipping quoted strings. */
function findClose(text: string, i: number): number {
  for (let j = i; j < text.length - 1; j++) {
    const c = text[j];
    if (c === '"') { const e = findQuoteEnd(text, j); if (e < 0) return -1; j = e; continue; }
    if (c === '`') { const e = text.indexOf('`', j + 1); if (e < 0) return -1; j = e; continue; }
    if (c === '}' && text[j + 1] === '}') return j;
  }
  return -1;
}
