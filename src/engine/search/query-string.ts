/**
 * `query_string` / `simple_query_string` (and URI `q=`): the common Lucene syntax — terms, `"phrases"~slop`,
 * `field:value`, `+`/`-`/`NOT`, `AND`/`OR` (simple: `|`, `+`), parentheses, `*`/`?` wildcards, `term~N` fuzzy,
 * `^boost`, ranges `[a TO b]` / `{a TO b}` / `>=x`, `/regex/` (Lucene regexp syntax, like the `regexp` query),
 * and `_exists_:field` — rewritten into the Query AST.
 * Several default fields combine as best_fields (dis_max).
 */
import type { Query } from './query-ast.ts';
import type { CompileContext } from './weight.ts';
import { resolveFields } from './multi-match.ts';
import { parsingError } from './query-parser.ts';

type QS = Extract<Query, { type: 'query_string' }>;

interface Tok { kind: 'word' | 'phrase' | 'op' | 'lp' | 'rp' | 'range' | 'regexp'; text: string; field?: string; boost?: number; fuzzy?: string; mod: '' | '+' | '-' }

function tokenize(s: string, simple: boolean): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(' || c === ')') { out.push({ kind: c === '(' ? 'lp' : 'rp', text: c, mod: '' }); i++; continue; }
    if (simple && c === '|') { out.push({ kind: 'op', text: 'OR', mod: '' }); i++; continue; }
    let mod: '' | '+' | '-' = '';
    if ((c === '+' || c === '-') && i + 1 < s.length && !/\s/.test(s[i + 1])) { mod = c; i++; }
    let field: string | undefined;
    const fm = simple ? null : /^((?:\\.|[^\s:()"\\[\]{}])+):/.exec(s.slice(i));
    if (fm) { field = fm[1].replace(/\\(.)/g, '$1'); i += fm[0].length; }
    let tok: Tok;
    if (s[i] === '"') {
      const end = s.indexOf('"', i + 1);
      const text = s.slice(i + 1, end < 0 ? s.length : end);
      i = end < 0 ? s.length : end + 1;
      tok = { kind: 'phrase', text, field, mod };
    } else if (!simple && s[i] === '/') {
      // Lucene's query parser: a regexp runs to the next unescaped '/'.
      let j = i + 1;
      while (j < s.length && s[j] !== '/') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) throw parsingError(`Cannot parse '${s}': Lexical error: unterminated regular expression`);
      tok = { kind: 'regexp', text: s.slice(i + 1, j), field, mod };
      i = j + 1;
    } else if (!simple && (s[i] === '[' || s[i] === '{')) {
      const end = s.slice(i).search(/[\]}]/);
      const j = end < 0 ? s.length : i + end + 1;
      tok = { kind: 'range', text: s.slice(i, j), field, mod };
      i = j;
    } else if (s[i] === '(') {
      if (field) out.push({ kind: 'lp', text: '(', field, mod });
      continue;
    } else {
      const m = /^(?:\\.|[^\s()"\\^~])+/.exec(s.slice(i));
      const text = m ? m[0] : s[i];
      i += text.length;
      if (!simple && !mod && !field && (text === 'AND' || text === 'OR' || text === '&&' || text === '||')) { out.push({ kind: 'op', text: text === '&&' ? 'AND' : text === '||' ? 'OR' : text, mod: '' }); continue; }
      if (!simple && !mod && !field && (text === 'NOT' || text === '!')) { out.push({ kind: 'op', text: 'NOT', mod: '' }); continue; }
      tok = { kind: 'word', text: text.replace(/\\(.)/g, '$1'), field, mod };
    }
    while (i < s.length && (s[i] === '^' || s[i] === '~')) {
      const m = /^[\^~]([\d.]*)/.exec(s.slice(i))!;
      if (m[0][0] === '^') tok.boost = Number(m[1] || 1); else tok.fuzzy = m[1] || 'AUTO';
      i += m[0].length;
    }
    out.push(tok);
  }
  return out;
}

class QsParser {
  i = 0;
  constructor(private readonly toks: Tok[], private readonly ctx: CompileContext, private readonly q: QS, private readonly defaults: string[]) {}

  parseAll(): Query {
    const r = this.parseGroup();
    if (this.i < this.toks.length) throw parsingError(`Failed to parse query [${this.q.query}]`);
    return r;
  }

  private parseGroup(): Query {
    const clauses: { q: Query; mod: '' | '+' | '-' }[] = [];
    let pendingNot = false, lastOp = '';
    while (this.i < this.toks.length && this.toks[this.i].kind !== 'rp') {
      const t = this.toks[this.i++];
      if (t.kind === 'op') {
        if (t.text === 'NOT') pendingNot = true;
        else {
          lastOp = t.text;
          if (t.text === 'AND' && clauses.length && clauses[clauses.length - 1].mod === '') clauses[clauses.length - 1].mod = '+';
        }
        continue;
      }
      let q: Query;
      if (t.kind === 'lp') { q = this.parseGroup(); this.i++; if (t.field) q = withField(q, t.field); } else q = this.leaf(t);
      let mod = pendingNot ? '-' : t.mod;
      if (!mod && lastOp === 'AND') mod = '+';
      if (!mod && this.q.defaultOperator === 'and' && lastOp !== 'OR') mod = '+';
      clauses.push({ q, mod: mod as '' });
      pendingNot = false; lastOp = '';
    }
    if (clauses.length === 1 && clauses[0].mod !== '-') return clauses[0].q;
    return {
      type: 'bool', must: clauses.filter((c) => c.mod === '+').map((c) => c.q), should: clauses.filter((c) => c.mod === '').map((c) => c.q),
      mustNot: clauses.filter((c) => c.mod === '-').map((c) => c.q), filter: [], filterContext: false, boost: 1,
    };
  }

  private leaf(t: Tok): Query {
    const fields = t.field ? (t.field === '_exists_' ? [] : [t.field]) : this.defaults;
    const boost = t.boost ?? 1;
    if (t.field === '_exists_') return { type: 'exists', field: t.text, boost };
    const per = resolveFields(this.ctx, fields).map(({ field, boost: fb }) => this.fieldLeaf(t, field, fb));
    if (per.length === 0) return { type: 'match_none', boost: 1 };
    if (per.length === 1) return { ...per[0], boost: per[0].boost * boost } as Query;
    return { type: 'dis_max', queries: per, tieBreaker: 0, boost };
  }

  private fieldLeaf(t: Tok, field: string, boost: number): Query {
    const lenient = this.q.lenient || this.defaults.includes('*');
    if (t.kind === 'phrase') return { type: 'match_phrase', field, query: t.text, analyzer: this.q.analyzer, slop: t.fuzzy ? Number(t.fuzzy) || 0 : 0, boost, prefix: false, maxExpansions: 50 };
    if (t.kind === 'range') {
      const m = /^([[{])\s*(\S+)\s+TO\s+(\S+)\s*([\]}])$/.exec(t.text);
      if (!m) throw parsingError(`Cannot parse '${this.q.query}'`);
      const r: Query = { type: 'range', field, boost };
      if (m[2] !== '*') { if (m[1] === '[') r.gte = m[2]; else r.gt = m[2]; }
      if (m[3] !== '*') { if (m[4] === ']') r.lte = m[3]; else r.lt = m[3]; }
      return r;
    }
    const isText = this.ctx.field(field)?.type === 'text';
    // ES normalises multi-term queries with the field's analyzer: lower case for text fields.
    if (t.kind === 'regexp') return { type: 'regexp', field, value: isText ? t.text.toLowerCase() : t.text, boost };
    const cmp = /^(>=|<=|>|<)(.+)$/.exec(t.text);
    if (cmp) return { type: 'range', field, boost, [cmp[1] === '>=' ? 'gte' : cmp[1] === '<=' ? 'lte' : cmp[1] === '>' ? 'gt' : 'lt']: cmp[2] } as Query;
    if (t.text.endsWith('*') && !t.text.slice(0, -1).includes('*') && !t.text.includes('?')) {
      return { type: 'prefix', field, value: isText ? t.text.slice(0, -1).toLowerCase() : t.text.slice(0, -1), boost };
    }
    if (/[*?]/.test(t.text)) return { type: 'wildcard', field, value: isText ? t.text.toLowerCase() : t.text, boost };
    if (t.fuzzy) return { type: 'match', field, query: t.text, operator: 'or', fuzziness: t.fuzzy, prefixLength: 0, maxExpansions: 50, transpositions: true, zeroTerms: 'none', lenient, boost, analyzer: this.q.analyzer };
    return { type: 'match', field, query: t.text, operator: this.q.defaultOperator, prefixLength: 0, maxExpansions: 50, transpositions: true, zeroTerms: 'none', lenient, boost, analyzer: this.q.analyzer };
  }
}

function withField(q: Query, field: string): Query {
  if ('field' in q && q.type !== 'exists') return { ...q, field } as Query;
  if (q.type === 'bool') return { ...q, must: q.must.map((x) => withField(x, field)), should: q.should.map((x) => withField(x, field)), mustNot: q.mustNot.map((x) => withField(x, field)) };
  if (q.type === 'dis_max') return withField(q.queries[0], field);
  return q;
}

export function queryStringToQuery(ctx: CompileContext, q: QS): Query {
  if (/^\s*(\*|\*:\*)\s*$/.test(q.query)) return { type: 'match_all', boost: 1 };
  const defaults = q.fields.length ? q.fields : [q.defaultField ?? '*'];
  return new QsParser(tokenize(q.query, q.simple), ctx, q, defaults).parseAll();
}
