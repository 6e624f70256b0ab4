/**
 * Lucene's `RegExp` syntax (Lucene 7.7, as Elasticsearch 6.8 reads the `regexp` query and `terms`
 * include/exclude strings), parsed here and run as RE2 in linear time. The syntax differs from RE2's:
 *
 * - the pattern always matches the whole term; `^` and `$` are ordinary characters;
 * - `.` matches any character, newline included; `\c` is always the literal `c` (there is no `\d` or `\w`);
 * - `"…"` is a literal string, `()` the empty string, `@` any string, `#` nothing;
 * - `<n-m>` a decimal number in [n, m]: with any leading zeros, or, when n and m are written with the same
 *   number of digits, exactly that many digits;
 * - `a&b` (both match) and `~a` (anything but a). RE2 cannot express these inside a concatenation or a
 *   repetition, so they are accepted where they combine whole sub-patterns (`~(a.*)`, `a.*&.*b`, `x|~y`) and
 *   refused elsewhere with an error, rather than read differently.
 */
import { InvalidArgumentError } from '../errors.ts';
import { compileRe2 } from './re2.ts';

type Node =
  | { k: 'lit'; s: string }
  | { k: 'any' } | { k: 'anyString' } | { k: 'none' }
  | { k: 'class'; negated: boolean; ranges: [number, number][] }
  | { k: 'cat'; xs: Node[] }
  | { k: 'alt'; xs: Node[] }
  | { k: 'and'; xs: Node[] }
  | { k: 'not'; x: Node }
  | { k: 'repeat'; x: Node; min: number; max: number } // max -1: unbounded
  | { k: 'interval'; min: number; max: number; digits: number };

/** The predicate a Lucene regexp stands for, over whole terms. Throws `InvalidArgumentError` when invalid. */
export function compileLuceneRegex(pattern: string): (term: string) => boolean {
  const p = new LuceneRegexParser(pattern);
  const node = p.parseUnion();
  if (p.more()) p.fail(`end-of-string expected at position ${p.pos}`);
  return predicate(node, pattern);
}

function predicate(n: Node, pattern: string): (term: string) => boolean {
  if (!hasBoolean(n)) {
    const re = compileRe2(toRe2(n), { dotAll: true });
    return (t) => re.matchesWhole(t);
  }
  if (n.k === 'alt') { const ps = n.xs.map((x) => predicate(x, pattern)); return (t) => ps.some((f) => f(t)); }
  if (n.k === 'and') { const ps = n.xs.map((x) => predicate(x, pattern)); return (t) => ps.every((f) => f(t)); }
  if (n.k === 'not') { const f = predicate(n.x, pattern); return (t) => !f(t); }
  throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT',
    `invalid regular expression [${pattern}]: '&' and '~' are supported only around whole sub-patterns`);
}

function hasBoolean(n: Node): boolean {
  switch (n.k) {
    case 'and': case 'not': return true;
    case 'cat': case 'alt': return n.xs.some(hasBoolean);
    case 'repeat': return hasBoolean(n.x);
    default: return false;
  }
}

function hexChar(c: number): string { return `\\x{${c.toString(16)}}`; }

function toRe2(n: Node): string {
  switch (n.k) {
    case 'lit': { let s = ''; for (const ch of n.s) s += hexChar(ch.codePointAt(0)!); return s; }
    case 'any': return '.';
    case 'anyString': return '.*';
    case 'none': return '[^\\x{0}-\\x{10ffff}]';
    case 'class': return `[${n.negated ? '^' : ''}${n.ranges.map(([a, b]) => (a === b ? hexChar(a) : `${hexChar(a)}-${hexChar(b)}`)).join('')}]`;
    case 'cat': return n.xs.map((x) => (x.k === 'alt' ? `(?:${toRe2(x)})` : toRe2(x))).join('');
    case 'alt': return n.xs.map(toRe2).join('|');
    case 'repeat': return `(?:${toRe2(n.x)}){${n.min},${n.max < 0 ? '' : n.max}}`;
    case 'interval': return `(?:${decimalInterval(n.min, n.max, n.digits)})`;
    case 'and': case 'not': throw new Error('unreachable: boolean nodes are combined by predicate()');
  }
}

/** RE2 for the decimal numbers in [min, max]: exactly `digits` digits when > 0, else any leading zeros. */
export function decimalInterval(min: number, max: number, digits: number): string {
  if (digits > 0) return sameLength(String(min).padStart(digits, '0'), String(max).padStart(digits, '0'));
  const alts: string[] = [];
  for (let len = String(min).length; len <= String(max).length; len++) {
    const lo = Math.max(min, len === 1 ? 0 : 10 ** (len - 1)), hi = Math.min(max, 10 ** len - 1);
    if (lo <= hi) alts.push(sameLength(String(lo), String(hi)));
  }
  return `0*(?:${alts.join('|')})`;
}

/** Equal-length digit strings from `lo` to `hi` (lo <= hi): O(length²) pattern size. */
function sameLength(lo: string, hi: string): string {
  if (lo.length === 0) return '';
  if (lo[0] === hi[0]) return lo[0] + sameLength(lo.slice(1), hi.slice(1));
  const rest = lo.length - 1;
  const alts = [lo[0] + sameLength(lo.slice(1), '9'.repeat(rest))];
  const a = Number(lo[0]) + 1, b = Number(hi[0]) - 1;
  if (a <= b) alts.push(`[${a}-${b}]` + (rest > 0 ? `[0-9]{${rest}}` : ''));
  alts.push(hi[0] + sameLength('0'.repeat(rest), hi.slice(1)));
  return `(?:${alts.join('|')})`;
}

/** Recursive descent over Lucene's grammar (`RegExp.parseUnionExp` … `parseCharExp`). */
class LuceneRegexParser {
  pos = 0;
  constructor(private readonly s: string) {}

  more(): boolean { return this.pos < this.s.length; }
  fail(msg: string): never { throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `invalid regular expression [${this.s}]: ${msg}`); }
  private peek(chars: string): boolean { return this.more() && chars.includes(this.s[this.pos]); }
  private match(c: string): boolean { if (this.more() && this.s[this.pos] === c) { this.pos++; return true; } return false; }
  private next(): string {
    if (!this.more()) this.fail('unexpected end-of-string');
    const c = String.fromCodePoint(this.s.codePointAt(this.pos)!);
    this.pos += c.length;
    return c;
  }

  parseUnion(): Node {
    const xs = [this.parseIntersection()];
    while (this.match('|')) xs.push(this.parseIntersection());
    return xs.length === 1 ? xs[0] : { k: 'alt', xs };
  }

  private parseIntersection(): Node {
    const xs = [this.parseConcat()];
    while (this.match('&')) xs.push(this.parseConcat());
    return xs.length === 1 ? xs[0] : { k: 'and', xs };
  }

  private parseConcat(): Node {
    // Like Lucene, a concatenation has at least one element (`a|` and `(|a)` are errors).
    const xs: Node[] = [this.parseRepeat()];
    while (this.more() && !this.peek(')|&')) xs.push(this.parseRepeat());
    return xs.length === 1 ? xs[0] : { k: 'cat', xs };
  }

  private parseRepeat(): Node {
    let x = this.parseComplement();
    while (this.peek('?*+{')) {
      if (this.match('?')) x = { k: 'repeat', x, min: 0, max: 1 };
      else if (this.match('*')) x = { k: 'repeat', x, min: 0, max: -1 };
      else if (this.match('+')) x = { k: 'repeat', x, min: 1, max: -1 };
      else {
        this.pos++; // '{'
        const min = this.number();
        let max = min;
        if (this.match(',')) max = this.peek('0123456789') ? this.number() : -1;
        if (!this.match('}')) this.fail(`expected '}' at position ${this.pos}`);
        if (max >= 0 && max < min) this.fail(`invalid repetition {${min},${max}}`);
        x = { k: 'repeat', x, min, max };
      }
    }
    return x;
  }

  private number(): number {
    const start = this.pos;
    while (this.peek('0123456789')) this.pos++;
    if (start === this.pos) this.fail(`integer expected at position ${this.pos}`);
    return Number(this.s.slice(start, this.pos));
  }

  private parseComplement(): Node {
    if (this.match('~')) return { k: 'not', x: this.parseComplement() };
    return this.parseCharClass();
  }

  private parseCharClass(): Node {
    if (!this.match('[')) return this.parseSimple();
    const negated = this.match('^');
    const ranges: [number, number][] = [];
    do {
      const lo = this.charExp();
      if (this.match('-')) {
        const hi = this.charExp();
        if (hi < lo) this.fail(`invalid range: from (${String.fromCodePoint(lo)}) cannot be > to (${String.fromCodePoint(hi)})`);
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    } while (this.more() && !this.peek(']'));
    if (!this.match(']')) this.fail(`expected ']' at position ${this.pos}`);
    return { k: 'class', negated, ranges };
  }

  private charExp(): number {
    this.match('\\');
    return this.next().codePointAt(0)!;
  }

  private parseSimple(): Node {
    if (this.match('.')) return { k: 'any' };
    if (this.match('#')) return { k: 'none' };
    if (this.match('@')) return { k: 'anyString' };
    if (this.match('"')) {
      const end = this.s.indexOf('"', this.pos);
      if (end < 0) this.fail(`expected '"' at position ${this.pos}`);
      const lit = this.s.slice(this.pos, end);
      this.pos = end + 1;
      return { k: 'lit', s: lit };
    }
    if (this.match('(')) {
      if (this.match(')')) return { k: 'lit', s: '' };
      const x = this.parseUnion();
      if (!this.match(')')) this.fail(`expected ')' at position ${this.pos}`);
      return x;
    }
    if (this.match('<')) return this.interval();
    return { k: 'lit', s: String.fromCodePoint(this.charExp()) };
  }

  private interval(): Node {
    const end = this.s.indexOf('>', this.pos);
    if (end < 0) this.fail(`expected '>' at position ${this.pos}`);
    const body = this.s.slice(this.pos, end);
    const m = /^(\d+)-(\d+)$/.exec(body);
    if (!m) this.fail(`interval syntax error at position ${this.pos - 1}`);
    this.pos = end + 1;
    let min = Number(m[1]), max = Number(m[2]);
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max)) this.fail(`interval syntax error at position ${this.pos}`);
    const digits = m[1].length === m[2].length ? m[1].length : 0;
    if (min > max) [min, max] = [max, min];
    return { k: 'interval', min, max, digits };
  }
}
