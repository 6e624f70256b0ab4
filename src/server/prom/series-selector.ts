/**
 * Parser for the `match[]` parameter: a PromQL series selector (`name`, `name{l="v",…}`, `{l=~"re",…}`),
 * as `parser.ParseMetricSelector` accepts it, with Prometheus's error positions (`line:col: parse error: …`).
 * Only this sub-grammar is needed by the metadata and admin endpoints; full PromQL lives in the promql area.
 */
import { MATCH_EQUAL, MATCH_NOT_EQUAL, MATCH_NOT_REGEXP, MATCH_REGEXP, newMatcher } from '../../engine/tsdb/api.ts';
import type { Matcher, MatchType } from '../../engine/tsdb/api.ts';

export class SelectorError extends Error {}

const NAME_START = /[a-zA-Z_:]/;
const NAME_CHAR = /[a-zA-Z0-9_:]/;
const LABEL_START = /[a-zA-Z_]/;
const LABEL_CHAR = /[a-zA-Z0-9_]/;

class Lexer {
  i = 0;
  constructor(readonly s: string) {}
  fail(msg: string, at = this.i): never {
    // Prometheus positions are 1-based line:column of the offending token.
    let line = 1, col = 1;
    for (let k = 0; k < at && k < this.s.length; k++) { if (this.s[k] === '\n') { line++; col = 1; } else col++; }
    throw new SelectorError(`${line}:${col}: parse error: ${msg}`);
  }
  skipWs(): void { while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++; }
  eof(): boolean { this.skipWs(); return this.i >= this.s.length; }
  ident(start: RegExp, rest: RegExp): string {
    const from = this.i;
    if (this.i < this.s.length && start.test(this.s[this.i])) { this.i++; while (this.i < this.s.length && rest.test(this.s[this.i])) this.i++; }
    return this.s.slice(from, this.i);
  }
}

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'" };

function readString(lx: Lexer): string {
  const q = lx.s[lx.i];
  const start = lx.i++;
  let out = '';
  while (lx.i < lx.s.length) {
    const c = lx.s[lx.i++];
    if (c === q) return out;
    if (q === '`') { out += c; continue; }
    if (c === '\n') lx.fail('unterminated quoted string', start);
    if (c !== '\\') { out += c; continue; }
    const e = lx.s[lx.i++];
    if (e in ESCAPES && (e !== "'" || q === "'") && (e !== '"' || q === '"')) { out += ESCAPES[e]; continue; }
    const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hex) {
      const h = lx.s.slice(lx.i, lx.i + hex);
      if (!/^[0-9a-fA-F]+$/.test(h) || h.length !== hex) lx.fail('unknown escape sequence', lx.i - 2);
      out += String.fromCodePoint(parseInt(h, 16)); lx.i += hex; continue;
    }
    if (/[0-7]/.test(e)) {
      const o = lx.s.slice(lx.i - 1, lx.i + 2);
      if (!/^[0-7]{3}$/.test(o)) lx.fail('unknown escape sequence', lx.i - 2);
      out += String.fromCharCode(parseInt(o, 8)); lx.i += 2; continue;
    }
    lx.fail('unknown escape sequence', lx.i - 2);
  }
  return lx.fail('unterminated quoted string', start);
}

function readOp(lx: Lexer): MatchType | null {
  const two = lx.s.slice(lx.i, lx.i + 2);
  if (two === '!=') { lx.i += 2; return MATCH_NOT_EQUAL; }
  if (two === '=~') { lx.i += 2; return MATCH_REGEXP; }
  if (two === '!~') { lx.i += 2; return MATCH_NOT_REGEXP; }
  if (lx.s[lx.i] === '=') { lx.i += 1; return MATCH_EQUAL; }
  return null;
}

function readMatchers(lx: Lexer, out: Matcher[]): void {
  lx.i++; // '{'
  for (;;) {
    if (lx.eof()) lx.fail('unexpected end of input inside braces');
    if (lx.s[lx.i] === '}') { lx.i++; return; }
    const at = lx.i;
    const name = lx.ident(LABEL_START, LABEL_CHAR);
    if (!name) lx.fail(`unexpected character inside braces: ${JSON.stringify(lx.s[lx.i])}`, at);
    if (lx.eof()) lx.fail('unexpected end of input inside braces');
    const op = readOp(lx);
    if (op === null) lx.fail(`unexpected character inside braces: ${JSON.stringify(lx.s[lx.i])}`);
    if (lx.eof()) lx.fail('unexpected end of input inside braces');
    const q = lx.s[lx.i];
    if (q !== '"' && q !== "'" && q !== '`') lx.fail(`unexpected character inside braces: ${JSON.stringify(q)}`);
    const value = readString(lx);
    try { out.push(newMatcher(op, name, value)); } catch (err) {
      lx.fail(`invalid regular expression ${JSON.stringify(value)}: ${(err as Error).message}`, at);
    }
    if (lx.eof()) lx.fail('unexpected end of input inside braces');
    if (lx.s[lx.i] === ',') { lx.i++; continue; }
    if (lx.s[lx.i] !== '}') lx.fail(`unexpected character inside braces: ${JSON.stringify(lx.s[lx.i])}`);
  }
}

/** Parses one selector into matchers (a metric name becomes `__name__="…"`, first). */
export function parseSeriesSelector(input: string): Matcher[] {
  const lx = new Lexer(input);
  const out: Matcher[] = [];
  if (lx.eof()) lx.fail('unexpected end of input');
  const name = lx.ident(NAME_START, NAME_CHAR);
  if (name) out.push(newMatcher(MATCH_EQUAL, '__name__', name));
  if (!lx.eof() && lx.s[lx.i] === '{') readMatchers(lx, out);
  else if (!name) lx.fail(`unexpected character: ${JSON.stringify(lx.s[lx.i])}`);
  if (!lx.eof()) lx.fail(`unexpected character: ${JSON.stringify(lx.s[lx.i])}`);
  if (name && out.some((m, i) => i > 0 && m.name === '__name__')) lx.fail(`metric name must not be set twice: ${JSON.stringify(name)} or ${JSON.stringify(out.find((m, i) => i > 0 && m.name === '__name__')!.value)}`);
  return out;
}
