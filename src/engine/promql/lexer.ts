/**
 * PromQL lexer, shaped after Prometheus 2.x `promql/parser/lex.go`: a flat token stream with byte offsets.
 * Keywords are not decided here (they are context dependent: `sum` may be a metric name inside braces), so
 * every word comes out as IDENT and the parser decides.
 */
import { ParseError } from '../errors.ts';

export const enum T {
  EOF, IDENT, NUMBER, DURATION, STRING, LPAREN, RPAREN, LBRACE, RBRACE, LBRACKET, RBRACKET, COMMA, COLON, AT,
  ASSIGN, EQLC, NEQ, EQL_REGEX, NEQ_REGEX, LSS, LTE, GTR, GTE, ADD, SUB, MUL, DIV, MOD, POW,
}

export interface Token { readonly t: T; readonly val: string; readonly pos: number }

const OPS: Record<string, T> = {
  '==': T.EQLC, '!=': T.NEQ, '=~': T.EQL_REGEX, '!~': T.NEQ_REGEX, '<=': T.LTE, '>=': T.GTE,
  '=': T.ASSIGN, '<': T.LSS, '>': T.GTR, '+': T.ADD, '-': T.SUB, '*': T.MUL, '/': T.DIV, '%': T.MOD, '^': T.POW,
  '(': T.LPAREN, ')': T.RPAREN, '{': T.LBRACE, '}': T.RBRACE, '[': T.LBRACKET, ']': T.RBRACKET, ',': T.COMMA,
  '@': T.AT,
};

export const TOKEN_TEXT: Record<number, string> = {
  [T.EOF]: 'end of input', [T.LPAREN]: '"("', [T.RPAREN]: '")"', [T.LBRACE]: '"{"', [T.RBRACE]: '"}"',
  [T.LBRACKET]: '"["', [T.RBRACKET]: '"]"', [T.COMMA]: '","', [T.COLON]: '":"', [T.AT]: '"@"', [T.ASSIGN]: '"="',
};

export function isAlpha(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}
export function isDigit(c: string): boolean { return c >= '0' && c <= '9'; }
function isAlnum(c: string): boolean { return isAlpha(c) || isDigit(c); }

export function parseErrorAt(input: string, pos: number, msg: string): ParseError {
  let line = 1, lineStart = 0;
  for (let i = 0; i < pos && i < input.length; i++) if (input[i] === '\n') { line++; lineStart = i + 1; }
  const col = pos - lineStart + 1;
  return new ParseError('PARSE', `${line}:${col}: parse error: ${msg}`, { start: pos, end: pos, msg });
}

/** Tokenises a whole expression. Throws ParseError with Prometheus's wording on bad input. */
export function lex(input: string): Token[] {
  const out: Token[] = [];
  let i = 0, parens = 0, braces = false, brackets = false, colon = false;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    if (c === '#') { while (i < n && input[i] !== '\n') i++; continue; }
    const start = i;
    if (c === '"' || c === "'" || c === '`') { i = scanString(input, i); out.push({ t: T.STRING, val: input.slice(start, i), pos: start }); continue; }
    if (brackets && out[out.length - 1]?.t === T.LBRACKET && !isDigit(c)) throw parseErrorAt(input, i, 'missing unit character in duration');
    if (isDigit(c) || (c === '.' && isDigit(input[i + 1] ?? ''))) {
      const r = scanNumberOrDuration(input, i, brackets);
      if (brackets && !r.dur) throw parseErrorAt(input, i, 'missing unit character in duration');
      out.push({ t: r.dur ? T.DURATION : T.NUMBER, val: input.slice(start, r.end), pos: start });
      i = r.end; continue;
    }
    if (isAlpha(c) || (c === ':' && !brackets)) {
      while (i < n && (isAlnum(input[i]) || input[i] === ':')) i++;
      out.push({ t: T.IDENT, val: input.slice(start, i), pos: start }); continue;
    }
    if (c === ':') {
      if (colon) throw parseErrorAt(input, i, "unexpected colon ':'");
      colon = true;
      out.push({ t: T.COLON, val: ':', pos: start }); i++; continue;
    }
    const two = input.slice(i, i + 2);
    let t = OPS[two] !== undefined && two.length === 2 ? OPS[two] : undefined;
    let len = 2;
    if (t === undefined) { t = OPS[c]; len = 1; }
    if (t === undefined) {
      if (c === '!') throw parseErrorAt(input, i, `unexpected character after '!'${braces ? ' inside braces' : ''}: '${input[i + 1] ?? ''}'`);
      throw parseErrorAt(input, i, `unexpected character: ${goQuoteRune(c)}`);
    }
    if (t === T.LPAREN) parens++;
    else if (t === T.RPAREN) { if (--parens < 0) throw parseErrorAt(input, i + 1, 'unexpected right parenthesis \')\''); }
    else if (t === T.LBRACE) { if (braces) throw parseErrorAt(input, i, 'unexpected left brace \'{\''); braces = true; }
    else if (t === T.RBRACE) { if (!braces) throw parseErrorAt(input, i, "unexpected character: '}'"); braces = false; }
    else if (t === T.LBRACKET) { if (brackets) throw parseErrorAt(input, i, 'unexpected left bracket \'[\''); brackets = true; colon = false; }
    else if (t === T.RBRACKET) { if (!brackets) throw parseErrorAt(input, i, 'unexpected right bracket \']\''); brackets = false; }
    out.push({ t, val: input.slice(i, i + len), pos: start });
    i += len;
  }
  if (braces) throw parseErrorAt(input, n, 'unexpected end of input inside braces');
  if (brackets) throw parseErrorAt(input, n, 'unclosed left bracket');
  if (parens > 0) throw parseErrorAt(input, n, 'unclosed left parenthesis');
  out.push({ t: T.EOF, val: '', pos: n });
  return out;
}

function goQuoteRune(c: string): string { return `'${c}'`; }

function scanString(input: string, i: number): number {
  const q = input[i];
  const start = i;
  let j = i + 1;
  while (j < input.length) {
    const c = input[j];
    if (c === '\\' && q !== '`') { j += 2; continue; }
    if (c === q) return j + 1;
    if (c === '\n' && q !== '`') break;
    j++;
  }
  throw parseErrorAt(input, start, q === '`' ? 'unterminated raw string' : 'unterminated quoted string');
}

function scanNumberOrDuration(input: string, i: number, inBrackets: boolean): { end: number; dur: boolean } {
  const start = i;
  let digits = '0123456789';
  if (input[i] === '0' && (input[i + 1] === 'x' || input[i + 1] === 'X')) { digits = '0123456789abcdefABCDEF'; i += 2; }
  const run = (set: string): void => { while (i < input.length && set.includes(input[i])) i++; };
  run(digits);
  if (input[i] === '.') { i++; run(digits); }
  if (digits.length === 10 && (input[i] === 'e' || input[i] === 'E')) {
    i++; if (input[i] === '+' || input[i] === '-') i++; run('0123456789');
  }
  if (!isAlnum(input[i] ?? '')) return { end: i, dur: false };
  // A duration: digits followed by unit letters, possibly compound (1h30m).
  let j = start;
  while (j < input.length && isDigit(input[j])) j++;
  let ok = j > start;
  while (ok && j < input.length && isAlpha(input[j])) {
    if (!'smhdwy'.includes(input[j])) { ok = false; break; }
    j++;
    if (input[j - 1] === 'm' && input[j] === 's') j++;
    if (isDigit(input[j] ?? '')) { while (j < input.length && isDigit(input[j])) j++; if (!isAlpha(input[j] ?? '')) ok = false; }
    else break;
  }
  if (ok && !isAlnum(input[j] ?? '')) return { end: j, dur: true };
  if (inBrackets) throw parseErrorAt(input, start, `bad duration syntax: ${JSON.stringify(input.slice(start, Math.max(i, j)).replace(/[^0-9].*$/, ''))}`);
  let k = i;
  while (k < input.length && isAlnum(input[k])) k++;
  throw parseErrorAt(input, start, `bad number or duration syntax: ${JSON.stringify(input.slice(start, k))}`);
}

