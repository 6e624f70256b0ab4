/**
 * A JSON parser that remembers where every value starts (1-based line and column, as Jackson reports
 * token locations), so DSL errors can carry ES's `line`/`col`. Syntax errors are thrown as ParseError with
 * a Jackson-like reason (ES 6.8 answers those with a 500 `json_parse_exception`).
 */
import { ParseError } from '../errors.ts';
import { MAX_JSON_DEPTH } from '../codec/json-structure.ts';

export interface Loc { line: number; col: number }

/** Locations of the values under each key of an object / each element of an array, and of the container. */
const keyLocs = new WeakMap<object, Map<string, Loc>>();
const selfLocs = new WeakMap<object, Loc>();

export function locOfKey(obj: object, key: string): Loc | undefined { return keyLocs.get(obj)?.get(key); }
export function locOf(obj: object): Loc | undefined { return selfLocs.get(obj); }

export function parseJsonWithPos(text: string): unknown {
  const p = new PosParser(text);
  p.ws();
  if (p.i >= text.length) return undefined;
  const v = p.value();
  p.ws();
  if (p.i < text.length) p.fail(`Unexpected character ('${text[p.i]}' (code ${text.charCodeAt(p.i)})): expected end-of-input`);
  return v;
}

class PosParser {
  i = 0;
  /** Open objects and arrays: the parser and every DSL walk after it recurse once per level. */
  depth = 0;
  line = 1;
  lineStart = 0;
  constructor(readonly s: string) {}

  loc(): Loc { return { line: this.line, col: this.i - this.lineStart + 1 }; }

  fail(msg: string): never {
    const l = this.loc();
    throw new ParseError('PARSE', `${msg}\n at [Source: org.elasticsearch.common.bytes.BytesReference$MarkSupportingStreamInputWrapper; line: ${l.line}, column: ${l.col}]`,
      { jsonParse: true, line: l.line, col: l.col });
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 10) { this.i++; this.line++; this.lineStart = this.i; } else if (c === 32 || c === 9 || c === 13) this.i++;
      else break;
    }
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === 't' && this.s.startsWith('true', this.i)) { this.i += 4; return true; }
    if (c === 'f' && this.s.startsWith('false', this.i)) { this.i += 5; return false; }
    if (c === 'n' && this.s.startsWith('null', this.i)) { this.i += 4; return null; }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (m) { this.i += m[0].length; return Number(m[0]); }
    if (c === undefined) this.fail('Unexpected end-of-input');
    if ('}],:'.includes(c)) this.fail(`Unexpected character ('${c}' (code ${c.charCodeAt(0)})): expected a value`);
    return this.fail(`Unrecognized token '${this.s.slice(this.i).split(/[\s,}\]]/)[0]}': was expecting ('true', 'false' or 'null')`);
  }

  /** Deeper input is refused as a request error (400 `parse_exception`), not left to overflow the stack. */
  enter(): void {
    if (++this.depth <= MAX_JSON_DEPTH) return;
    const l = this.loc();
    throw new ParseError('PARSE', `request body nesting depth exceeds the maximum allowed (${MAX_JSON_DEPTH}) at line: ${l.line}, column: ${l.col}`, { line: l.line, col: l.col });
  }

  object(): Record<string, unknown> {
    this.enter();
    const o: Record<string, unknown> = {};
    const locs = new Map<string, Loc>();
    selfLocs.set(o, this.loc());
    keyLocs.set(o, locs);
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') { this.i++; this.depth--; return o; }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail(`Unexpected character ('${this.s[this.i] ?? 'EOF'}' (code ${this.s.charCodeAt(this.i)})): was expecting double-quote to start field name`);
      const keyStart = this.i;
      const k = this.string();
      if (locs.has(k)) { this.i = keyStart; this.fail(`Duplicate field '${k}'`); }
      this.ws();
      if (this.s[this.i] !== ':') this.fail(`Unexpected character ('${this.s[this.i]}' (code ${this.s.charCodeAt(this.i)})): was expecting a colon to separate field name and value`);
      this.i++;
      this.ws();
      locs.set(k, this.loc());
      o[k] = this.value();
      this.ws();
      const c = this.s[this.i];
      if (c === ',') { this.i++; continue; }
      if (c === '}') { this.i++; this.depth--; return o; }
      this.fail(`Unexpected character ('${c ?? 'EOF'}' (code ${this.s.charCodeAt(this.i)})): was expecting comma to separate Object entries`);
    }
  }

  array(): unknown[] {
    this.enter();
    const a: unknown[] = [];
    const locs = new Map<string, Loc>();
    selfLocs.set(a, this.loc());
    keyLocs.set(a, locs);
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') { this.i++; this.depth--; return a; }
    for (;;) {
      this.ws();
      locs.set(String(a.length), this.loc());
      a.push(this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ',') { this.i++; continue; }
      if (c === ']') { this.i++; this.depth--; return a; }
      this.fail(`Unexpected character ('${c ?? 'EOF'}' (code ${this.s.charCodeAt(this.i)})): was expecting comma to separate Array entries`);
    }
  }

  string(): string {
    const s = this.s;
    let i = this.i + 1;
    let out = '';
    let from = i;
    for (;;) {
      if (i >= s.length) { this.i = i; this.fail('Unexpected end-of-input: was expecting closing quote for a string value'); }
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        out += s.slice(from, i);
        const e = s[i + 1];
        if (e === 'u') { out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16)); i += 6; } else {
          out += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === 'b' ? '\b' : e === 'f' ? '\f' : e;
          i += 2;
        }
        from = i;
        continue;
      }
      i++;
    }
    out += s.slice(from, i);
    this.i = i + 1;
    return out;
  }
}
