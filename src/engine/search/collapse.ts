/**
 * Field collapsing (`collapse`): the shard keeps the best hit of each group — the docs sharing one value of a
 * single-valued keyword or numeric doc-values field; docs without a value form one null group — and returns the
 * best `from + size` groups, as ES 6.8's CollapsingTopDocsCollector. The coordinator then keeps the first hit of
 * each group across shards and, for `inner_hits`, runs one search per group and definition (ExpandSearchPhase).
 */
import type { NumericDocValues, OrdinalDocValues, Segment } from '../postings/segment.ts';
import { InvalidArgumentError } from '../errors.ts';
import { NUMERIC_TYPES } from '../indexing/field-infos.ts';
import { locOfKey } from './json-pos.ts';
import { parsingError } from './query-parser.ts';
import { compareKeys, type SortValue } from './sort.ts';
import type { CompileContext } from './weight.ts';
import type { Query } from './query-ast.ts';
import { parseSearchBody, type SearchRequest } from './search-request.ts';

/** The collapse value of a hit: a keyword, a number, or null for docs without the field. */
export type GroupValue = string | number | null;

export interface CollapseSpec {
  field: string;
  /** `inner_hits` definitions (validated, raw otherwise): each expands every group with its own search. */
  innerHits: Record<string, unknown>[];
  maxConcurrentGroupSearches: number | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const INNER_HITS_KEYS = ['name', 'from', 'size', 'sort', '_source', 'version', 'seq_no_primary_term', 'explain', 'track_scores',
  'docvalue_fields', 'stored_fields', 'highlight', 'ignore_unmapped'];

export function parseCollapse(v: unknown): CollapseSpec {
  if (!isObj(v)) throw parsingError(`[collapse] failed to parse, expected an object`);
  const spec: CollapseSpec = { field: '', innerHits: [], maxConcurrentGroupSearches: null };
  for (const [k, x] of Object.entries(v)) {
    const loc = locOfKey(v, k);
    if (k === 'field') spec.field = String(x);
    else if (k === 'max_concurrent_group_searches') {
      const n = Number(x);
      if (!Number.isInteger(n)) throw parsingError(`[collapse] failed to parse field [max_concurrent_group_searches]`, loc);
      if (n < 1) throw parsingError(`maxConcurrentGroupRequests\` must be positive`, loc);
      spec.maxConcurrentGroupSearches = n;
    } else if (k === 'inner_hits') {
      for (const ih of [x].flat()) {
        if (!isObj(ih)) throw parsingError(`[collapse] failed to parse field [inner_hits]`, loc);
        for (const key of Object.keys(ih)) if (!INNER_HITS_KEYS.includes(key)) throw parsingError(`[inner_hits] unknown field [${key}], parser not found`, locOfKey(ih, key));
        spec.innerHits.push(ih);
      }
    } else throw parsingError(`[collapse] unknown field [${k}], parser not found`, loc);
  }
  if (!spec.field) throw parsingError(`[collapse] failed to parse: [field] is required`);
  return spec;
}

/** Reads the group value of a doc from the collapse field's doc-values column, segment by segment. */
export class GroupValues {
  private num: NumericDocValues | null = null;
  private ord: OrdinalDocValues | null = null;
  private readonly keyword: boolean;

  /** Checks the field as CollapseBuilder.build does (ES's errors, per index mapping). */
  constructor(private readonly field: string, ctx: CompileContext, hasInnerHits: boolean) {
    const fi = ctx.field(field);
    if (!fi) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `no mapping found for \`${field}\` in order to collapse on`);
    if (fi.type !== 'keyword' && !NUMERIC_TYPES.has(fi.type)) {
      throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `unknown type for collapse field \`${field}\`, only keywords and numbers are accepted`);
    }
    // Doc values are always kept here (`doc_values: false` is not modelled), so only the index check applies.
    if (!fi.indexed && hasInnerHits) {
      throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `cannot expand \`inner_hits\` for collapse field \`${field}\`, only indexed field can retrieve \`inner_hits\``);
    }
    this.keyword = fi.type === 'keyword';
  }

  setSegment(seg: Segment): void {
    this.num = this.keyword ? null : seg.numeric(this.field);
    this.ord = this.keyword ? seg.ordinals(this.field) : null;
  }

  /** The group of `doc` (segment-local); a multi-valued doc is an error, as in ES. */
  value(doc: number): GroupValue {
    const col = this.num ?? this.ord;
    if (col === null) return null;
    const n = col.start[doc + 1] - col.start[doc];
    if (n === 0) return null;
    if (n > 1) throw new InvalidArgumentError('SEARCH_ILLEGAL_STATE', `failed to collapse ${doc}, the collapse field \`${this.field}\` must be single valued`);
    return this.num ? this.num.values[this.num.start[doc]] : this.ord!.lookupOrd(this.ord!.ords[this.ord!.start[doc]]);
  }
}

export interface GroupHit { doc: number; score: number; keys: SortValue[] | null; group: GroupValue }

/**
 * The best hit per group. By score (keys null): higher score first; by sort keys: the search's comparator. Ties
 * go to the lower doc id, and docs arrive in doc order, so a tie never replaces the kept hit.
 */
export class GroupTopCollector {
  private readonly best = new Map<GroupValue, GroupHit>();
  maxScore = -Infinity;
  constructor(private readonly kinds: string[] | null, private readonly reverse: boolean[] | null, private readonly missingFirst: boolean[] | null) {}

  collect(group: GroupValue, doc: number, score: number, keys: SortValue[] | null): void {
    const f = Math.fround(score);
    if (f > this.maxScore) this.maxScore = f;
    const cur = this.best.get(group);
    if (cur === undefined) { this.best.set(group, { doc, score: f, keys, group }); return; }
    if (this.compare(doc, f, keys, cur) < 0) { cur.doc = doc; cur.score = f; cur.keys = keys; }
  }

  private compare(doc: number, score: number, keys: SortValue[] | null, h: GroupHit): number {
    const c = this.kinds === null ? h.score - score : compareKeys(this.kinds, this.reverse!, keys!, h.keys!, this.missingFirst ?? undefined);
    return c !== 0 ? c : doc - h.doc;
  }

  /** The best `n` groups' hits, best first. */
  top(n: number): GroupHit[] {
    return [...this.best.values()].sort((a, b) => this.compare(a.doc, a.score, a.keys, b)).slice(0, n);
  }
}

/** The name a collapse `inner_hits` definition answers under (the collapse field when it has none). */
export function innerHitsName(spec: CollapseSpec, ih: Obj): string {
  return ih.name === undefined ? spec.field : String(ih.name);
}

/**
 * The search that expands one group for one `inner_hits` definition (ES's ExpandSearchPhase): the original query
 * restricted to the group (docs without the field for the null group), the original post_filter, and the
 * definition's from (0), size (3), sort, _source, version, explain, highlight and docvalue fields.
 */
export function groupSearchRequest(outer: SearchRequest, spec: CollapseSpec, ih: Obj, group: GroupValue): SearchRequest {
  const { name: _n, ignore_unmapped: _i, ...body } = ih;
  const r = parseSearchBody(body);
  if (ih.size === undefined) r.size = 3;
  const groupClause: Query = group === null ? { type: 'exists', field: spec.field, boost: 1 } : { type: 'term', field: spec.field, value: group, boost: 1 };
  r.query = {
    type: 'bool', must: [outer.query ?? { type: 'match_all', boost: 1 }], should: [],
    filter: group === null ? [] : [groupClause], mustNot: group === null ? [groupClause] : [], filterContext: false, boost: 1,
  };
  r.postFilter = outer.postFilter;
  return r;
}
