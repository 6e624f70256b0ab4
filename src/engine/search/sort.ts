/**
 * Sort specs (`sort` in the request) bound to a shard: per-doc sort keys from doc values, ES's missing-value
 * sentinels in `hit.sort`, multi-value `mode`, and the comparator (ties → shard, then doc id, applied by
 * callers). Errors follow ES: text without fielddata, unmapped without `unmapped_type`.
 */
import { stringColumn } from './fielddata.ts';
import { InvalidArgumentError } from '../errors.ts';
import type { NumericDocValues, OrdinalDocValues, Segment } from '../postings/segment.ts';
import type { FieldInfos } from '../indexing/field-infos.ts';
import { NUMERIC_TYPES } from '../indexing/field-infos.ts';
import { javaToString, type ScriptSpec } from '../documents/painless.ts';
import { DocLookup, SearchScript } from './script-doc.ts';
import { arcDistanceMeters, GEO_COLUMN_SUFFIX, planeDistanceMeters, readGeoPoints } from '../indexing/geo-point.ts';

export interface SortSpec {
  field: string;
  order: 'asc' | 'desc';
  missing?: unknown;
  mode?: 'min' | 'max' | 'sum' | 'avg' | 'median';
  unmappedType?: string;
  /** `_script` sorts: the script and whether it yields numbers or strings. */
  script?: ScriptSpec;
  scriptType?: 'number' | 'string';
  /** `_geo_distance` sorts: origins, metres per output unit, arc or plane. */
  geo?: { points: { lat: number; lon: number }[]; unitMeters: number; plane: boolean; ignoreUnmapped: boolean };
}

/** A sort value as sent to the coordinator; `{l: '…'}` carries a long that JS numbers cannot hold. */
export type SortValue = number | string | null | { l: string };

export const LONG_MAX = '9223372036854775807';
export const LONG_MIN = '-9223372036854775808';

export function fielddataError(field: string): InvalidArgumentError {
  return new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Fielddata is disabled on text fields by default. Set fielddata=true on [${field}] in order to load fielddata in memory by uninverting the inverted index. Note that this can however use significant memory. Alternatively use a keyword field instead.`);
}

export class BoundSort {
  /** 'score' | 'doc' | 'id' | 'num' | 'str' per spec. */
  readonly kinds: string[] = [];
  readonly reverse: boolean[] = [];
  /** Whether numbers are longs (print integers, Long sentinels) or doubles. */
  readonly isLong: boolean[] = [];
  /** Missing values sort first (`missing: _first`). */
  readonly missingFirst: boolean[] = [];
  /** Per spec: a text field (read through its fielddata). */
  private readonly text: boolean[] = [];

  /** Per spec: the compiled `_script` (null for field sorts), and the doc lookup of the current segment. */
  private readonly scripts: (SearchScript | null)[] = [];
  private lookup: DocLookup | null = null;

  constructor(readonly specs: SortSpec[], private readonly infos: FieldInfos, index: string, private readonly typeName = '_doc') {
    for (const s of specs) {
      this.reverse.push(s.order === 'desc');
      this.missingFirst.push(s.missing === '_first');
      this.scripts.push(s.script ? new SearchScript(s.script, s.scriptType === 'string' ? 'any' : 'double') : null);
      if (s.script) { this.kinds.push(s.scriptType === 'string' ? 'str' : 'num'); this.isLong.push(false); this.text.push(false); continue; }
      if (s.geo) {
        const gi = infos.get(s.field);
        if (!gi && !s.geo.ignoreUnmapped) throw new InvalidArgumentError('SEARCH_QUERY_SHARD', `failed to find mapper for [${s.field}] for geo distance based sort`, { index });
        if (gi && gi.type !== 'geo_point') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `unable to apply geo distance sort to field [${s.field}] of type [${gi.type}]`);
        this.kinds.push('num'); this.isLong.push(false); this.text.push(false); continue;
      }
      if (s.field === '_score') { this.kinds.push('score'); this.isLong.push(false); this.text.push(false); continue; }
      if (s.field === '_doc') { this.kinds.push('doc'); this.isLong.push(true); this.text.push(false); continue; }
      // `_id` sorts as a string, read from the segment's id dictionary (ES 6 allows it through fielddata on _uid).
      if (s.field === '_id') { this.kinds.push('id'); this.isLong.push(false); this.text.push(false); continue; }
      const fi = infos.get(s.field);
      const type = fi?.type ?? s.unmappedType;
      if (!type) throw new InvalidArgumentError('SEARCH_QUERY_SHARD', `No mapping found for [${s.field}] in order to sort on`, { index });
      if (type === 'text' && !fi?.fielddata) throw fielddataError(s.field);
      this.text.push(type === 'text');
      if (type === 'keyword' || type === 'text') { this.kinds.push('str'); this.isLong.push(false); } else {
        this.kinds.push('num');
        this.isLong.push(type === 'date' || type === 'boolean' || (NUMERIC_TYPES.has(type) && !['double', 'float', 'half_float', 'scaled_float'].includes(type)));
      }
    }
  }

  get needsScores(): boolean { return this.kinds.includes('score') || this.scripts.some((x) => x !== null && x.usesScore); }

  /** The segment `columns` were resolved for, and its doc-value column per spec (resolved once per segment). */
  private columnsOf: Segment | null = null;
  private readonly columns: (NumericDocValues | OrdinalDocValues | null)[] = [];

  private resolve(seg: Segment): void {
    this.columnsOf = seg;
    this.lookup = this.scripts.some((x) => x !== null) ? new DocLookup(seg, this.infos, this.typeName) : null;
    for (let i = 0; i < this.specs.length; i++) {
      const k = this.kinds[i];
      this.columns[i] = this.specs[i].geo ? seg.numeric(this.specs[i].field + GEO_COLUMN_SUFFIX) : k === 'num' ? seg.numeric(this.specs[i].field) : k === 'str' ? stringColumn(seg, this.specs[i].field, this.text[i]) : null;
    }
  }

  /** Sort keys of one doc, missing values already substituted. */
  keys(seg: Segment, doc: number, globalDoc: number, score: number): SortValue[] {
    const out: SortValue[] = new Array(this.specs.length);
    for (let i = 0; i < this.specs.length; i++) out[i] = this.keyAt(i, seg, doc, globalDoc, score);
    return out;
  }

  /** Key i of one doc (no allocation for numbers; lets collectors reject a doc before building all keys). */
  keyAt(i: number, seg: Segment, doc: number, globalDoc: number, score: number): SortValue {
    const k = this.kinds[i], spec = this.specs[i];
    if (k === 'score') return score;
    if (k === 'doc') return globalDoc;
    if (k === 'id') return seg.id(doc);
    const mode = spec.mode ?? (spec.order === 'desc' ? 'max' : 'min');
    let v: SortValue = null;
    if (seg !== this.columnsOf) this.resolve(seg);
    const script = this.scripts[i];
    if (script) {
      const r = script.run(this.lookup!, doc, score);
      return spec.scriptType === 'string' ? (r === null || r === undefined ? null : javaToString(r)) : (r as number);
    }
    if (spec.geo) {
      const dv = this.columns[i] as NumericDocValues | null;
      // Docs without a point sort as +Infinity whatever the order (ES's missing value for distances).
      return dv && dv.count(doc) > 0 ? geoDistanceKey(spec.geo, dv.values, dv.start[doc], dv.start[doc + 1], mode) : 'Infinity';
    }
    if (k === 'num') {
      const dv = this.columns[i] as NumericDocValues | null;
      if (dv && dv.dense) return dv.values[doc];
      if (dv && dv.count(doc) > 0) v = pickNumber(dv.values, dv.start[doc], dv.start[doc + 1], mode);
    } else {
      const dv = this.columns[i] as OrdinalDocValues | null;
      if (dv && dv.count(doc) > 0) v = dv.lookupOrd(mode === 'max' ? dv.ords[dv.start[doc + 1] - 1] : dv.ords[dv.start[doc]]);
    }
    return v === null ? this.missingValue(i) : v;
  }

  /** The value ES substitutes for a missing one (and prints in `sort`). */
  missingValue(i: number): SortValue {
    const spec = this.specs[i];
    const m = spec.missing ?? '_last';
    const last = m === '_last';
    if (m !== '_last' && m !== '_first') return this.kinds[i] === 'num' ? Number(m) : String(m);
    const high = last !== this.reverse[i];
    if (this.kinds[i] === 'str') return null;
    if (this.isLong[i]) return { l: high ? LONG_MAX : LONG_MIN };
    return high ? 'Infinity' : '-Infinity';
  }
}

const geoLat = new Float64Array(64), geoLon = new Float64Array(64);

/** The doc's distance key: every (doc point, origin) distance in the sort's unit, combined by `mode`. Not re-entrant. */
function geoDistanceKey(g: NonNullable<SortSpec['geo']>, values: Float64Array, from: number, to: number, mode: string): number {
  const lat = (to - from) / 2 > geoLat.length ? new Float64Array((to - from) / 2) : geoLat;
  const lon = (to - from) / 2 > geoLon.length ? new Float64Array((to - from) / 2) : geoLon;
  const n = readGeoPoints(values, from, to, lat, lon);
  const ds: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const o of g.points) ds.push((g.plane ? planeDistanceMeters(o.lat, o.lon, lat[i], lon[i]) : arcDistanceMeters(o.lat, o.lon, lat[i], lon[i])) / g.unitMeters);
  }
  ds.sort((a, b) => a - b);
  return pickNumber(Float64Array.from(ds), 0, ds.length, mode);
}

function pickNumber(values: Float64Array, a: number, b: number, mode: string): number {
  switch (mode) {
    case 'max': return values[b - 1];
    case 'sum': { let s = 0; for (let i = a; i < b; i++) s += values[i]; return s; }
    case 'avg': { let s = 0; for (let i = a; i < b; i++) s += values[i]; return s / (b - a); }
    case 'median': { const n = b - a, m = a + (n >> 1); return n % 2 ? values[m] : (values[m - 1] + values[m]) / 2; }
    default: return values[a];
  }
}

/** Numeric view of a sort value for comparisons (sentinels compare as ±Infinity). */
function num(v: SortValue): number {
  if (typeof v === 'number') return v;
  if (v === null) return NaN;
  if (typeof v === 'string') return v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : NaN;
  return v.l.startsWith('-') ? -Infinity : Infinity;
}

/** Compares one key under its kind/order (the primary-key test of early rejection). */
export function compareOne(kind: string, reverse: boolean, missingFirst: boolean, x: SortValue, y: SortValue): number {
  let c: number;
  if (kind === 'str' || kind === 'id') {
    const a = x as string | null, b = y as string | null;
    if (a === b) c = 0; else if (a === null) c = (missingFirst ? -1 : 1) * (reverse ? -1 : 1); else if (b === null) c = (missingFirst ? 1 : -1) * (reverse ? -1 : 1); else c = a < b ? -1 : 1;
  } else {
    const a = num(x), b = num(y);
    c = a === b ? 0 : a < b ? -1 : 1;
  }
  return reverse ? -c : c;
}

/** Compares two key lists under the specs; 0 when equal on every key. */
export function compareKeys(kinds: string[], reverse: boolean[], a: SortValue[], b: SortValue[], missingFirst?: boolean[]): number {
  for (let i = 0; i < kinds.length; i++) {
    let c: number;
    if (kinds[i] === 'str' || kinds[i] === 'id') {
      const x = a[i] as string | null, y = b[i] as string | null;
      // Missing keywords (null) go last (`_last`, the default) or first (`_first`) whatever the order.
      const last = !(missingFirst && missingFirst[i]);
      if (x === y) c = 0; else if (x === null) c = (last ? 1 : -1) * (reverse[i] ? -1 : 1); else if (y === null) c = (last ? -1 : 1) * (reverse[i] ? -1 : 1); else c = x < y ? -1 : 1;
    } else {
      const x = num(a[i]), y = num(b[i]);
      c = x === y ? 0 : x < y ? -1 : 1;
    }
    if (c !== 0) return reverse[i] ? -c : c;
  }
  return 0;
}
