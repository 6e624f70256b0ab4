/**
 * Turns one source document into segment docs: walks the source with the mapping, analyses text, coerces
 * numbers/dates/booleans as ES does, and writes nested objects as hidden child docs (children first, then
 * the root, so a block is contiguous). Values the mapping cannot coerce are skipped: the document shard has
 * already validated the source against the mapping before calling the index.
 */
import { SegmentBuilder } from '../postings/segment-builder.ts';
import { TokenBuf } from '../analysis/token-buf.ts';
import type { Analyzer, AnalyzerRegistry } from '../analysis/analyzers.ts';
import { parseDate, DEFAULT_DATE_FORMAT } from '../analysis/date-format.ts';
import { type FieldInfo, type FieldInfos, INTEGER_TYPES, NUMERIC_TYPES } from './field-infos.ts';
import { completionInputs, completionKey, encodeCompletion } from './completion-terms.ts';
import { encodeLat, encodeLon, GEO_COLUMN_SUFFIX, geoColumnValues, parseGeoPoints } from './geo-point.ts';

/** Gap between the positions of consecutive values of a multi-valued text field (ES default). */
export const POSITION_INCREMENT_GAP = 100;

export function coerceNumber(v: unknown, type: string): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) n = Number(v);
  else return null;
  if (!Number.isFinite(n)) return null;
  if (INTEGER_TYPES.has(type)) return Math.trunc(n);
  if (type === 'float' || type === 'half_float') return Math.fround(n);
  return n;
}

export function coerceBoolean(v: unknown): boolean | null {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false' || v === '') return false;
  return null;
}

/** How one source path is indexed: the field itself and its multi-fields, with analyzers resolved once. */
interface FieldPlan { path: string; fi: FieldInfo; analyzer: Analyzer | null }

/** A path's text position (or geo point count) in the doc numbered `serial`: entries are reused, not rebuilt. */
interface PathPosition { serial: number; pos: number }

export class DocIndexer {
  private readonly tokens = new TokenBuf();
  /** Per path, its last position in the doc being indexed (entries of other docs have another serial). */
  private readonly positions = new Map<string, PathPosition>();
  private serial = 0;
  private lastSerial = 0;
  /** Without nested fields a document is one segment doc: its values are added as the walk meets them. */
  private readonly hasNested: boolean;
  /** The doc values go to while `collect` is given no list (documents without nested fields). */
  private direct = -1;
  /** Per source path: the field and its multi-fields ([] when the path is not a mapped leaf). */
  private readonly plans = new Map<string, FieldPlan[]>();

  constructor(private readonly infos: FieldInfos, private readonly analyzers: AnalyzerRegistry) {
    this.hasNested = [...infos.objects.values()].includes('nested');
  }

  /** Adds the block of `source` to `b`; returns the root doc. */
  index(b: SegmentBuilder, id: string, source: Record<string, unknown>): number {
    if (!this.hasNested) {
      const root = b.addDoc(id, '');
      this.serial = ++this.lastSerial;
      this.direct = root;
      this.collect(b, source, '', '', null, null);
      return root;
    }
    // Nested children come first in the block, so the root's values wait until they are added.
    const children: number[] = [];
    // Leaf values as a flat (path, value, path, value, …) list: no tuple per value.
    const pending: unknown[] = [];
    this.collect(b, source, '', '', pending, children);
    const root = b.addDoc(id, '');
    this.serial = ++this.lastSerial;
    for (let i = 0; i < pending.length; i += 2) this.addValue(b, root, pending[i] as string, pending[i + 1]);
    for (const c of children) if (c >= 0) b.setParent(c, root);
    return root;
  }

  /**
   * Gathers the leaf values of one (root or nested) object into `out`, or adds them to the doc `direct` when
   * `out` is null (no nested fields); nested objects become child docs at once.
   */
  private collect(b: SegmentBuilder, obj: Record<string, unknown>, prefix: string, scope: string, out: unknown[] | null, children: number[] | null): void {
    // for…in, not Object.keys: no keys array per indexed object.
    for (const k in obj) {
      const v = obj[k];
      if (v === null || v === undefined) continue;
      const path = prefix + k;
      const kind = this.infos.objects.get(path);
      // A geo_point value keeps its shape: [lon, lat] and {lat, lon} are one point, not an array or an object.
      if (this.infos.get(path)?.type === 'geo_point') { this.emit(b, out, path, v); continue; }
      if (!Array.isArray(v)) { this.collectItem(b, v, path, kind, scope, out, children); continue; }
      const values = v.flat(Infinity);
      for (let i = 0; i < values.length; i++) {
        const item = values[i];
        if (item !== null && item !== undefined) this.collectItem(b, item, path, kind, scope, out, children);
      }
    }
  }

  private collectItem(b: SegmentBuilder, item: unknown, path: string, kind: string | undefined, scope: string, out: unknown[] | null, children: number[] | null): void {
    if (kind === 'nested' && typeof item === 'object') {
      children!.push(this.nestedDoc(b, item as Record<string, unknown>, path));
    } else if (typeof item === 'object' && !Array.isArray(item) && this.infos.get(path)?.type !== 'completion') {
      this.collect(b, item as Record<string, unknown>, path + '.', scope, out, children);
    } else {
      this.emit(b, out, path, item);
    }
  }

  private emit(b: SegmentBuilder, out: unknown[] | null, path: string, v: unknown): void {
    if (out === null) this.addValue(b, this.direct, path, v);
    else out.push(path, v);
  }

  private nestedDoc(b: SegmentBuilder, obj: Record<string, unknown>, path: string): number {
    const grand: number[] = [];
    const pending: unknown[] = [];
    this.collect(b, obj, path + '.', path, pending, grand);
    const doc = b.addDoc('', path);
    const saved = this.serial;
    this.serial = ++this.lastSerial;
    for (let i = 0; i < pending.length; i += 2) this.addValue(b, doc, pending[i] as string, pending[i + 1]);
    this.serial = saved;
    for (const g of grand) b.setParent(g, doc);
    return doc;
  }

  /** The last position recorded for `path` in the current doc, or undefined. */
  private position(path: string): number | undefined {
    const e = this.positions.get(path);
    return e !== undefined && e.serial === this.serial ? e.pos : undefined;
  }

  private setPosition(path: string, pos: number): void {
    const e = this.positions.get(path);
    if (e === undefined) this.positions.set(path, { serial: this.serial, pos });
    else { e.serial = this.serial; e.pos = pos; }
  }

  private addValue(b: SegmentBuilder, doc: number, path: string, v: unknown): void {
    const plan = this.plans.get(path) ?? this.plan(path);
    // plan[0] is the field itself; multi-fields index the same value under `path.sub`.
    for (let i = 0; i < plan.length; i++) this.addTyped(b, doc, plan[i], v);
  }

  private plan(path: string): FieldPlan[] {
    const out: FieldPlan[] = [];
    const fi = this.infos.get(path);
    if (fi) {
      out.push(this.planOf(path, fi));
      for (const [p, sfi] of this.infos.fields) {
        if (p.startsWith(path + '.') && !p.slice(path.length + 1).includes('.') && !this.infos.objects.has(path)) out.push(this.planOf(p, sfi));
      }
    }
    this.plans.set(path, out);
    return out;
  }

  private planOf(path: string, fi: FieldInfo): FieldPlan {
    const analyzer = fi.type === 'text' || fi.type === 'completion' ? this.analyzers.get(fi.analyzer) ?? this.analyzers.get('standard')! : null;
    return { path, fi, analyzer };
  }

  private addTyped(b: SegmentBuilder, doc: number, plan: FieldPlan, v: unknown): void {
    const { path, fi } = plan;
    const type = fi.type;
    if (type === 'text') {
      if (!fi.indexed) return;
      this.tokens.clear();
      const base = this.position(path);
      const pos = base === undefined ? 0 : base + POSITION_INCREMENT_GAP + 1;
      const text = String(v), analyzer = plan.analyzer!;
      if (analyzer.lowercaseSpans) analyzer.analyzeLowerSpans(text, this.tokens, pos);
      else analyzer.analyze(text, this.tokens, pos);
      if (this.tokens.length > 0) this.setPosition(path, this.tokens.positions[this.tokens.length - 1]);
      if (analyzer.lowercaseSpans) b.addLowerSpans(doc, path, text, this.tokens);
      else b.addTokens(doc, path, this.tokens, true);
      // _field_names records any present value, even one that analyses to no tokens ("").
      b.markExists(doc, path);
    } else if (type === 'keyword') {
      const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
      if (s.length > fi.ignoreAbove) return;
      if (fi.indexed) b.addTerm(doc, path, s);
      b.addOrdinal(doc, path, s);
      b.markExists(doc, path);
    } else if (type === 'geo_point') {
      const points = parseGeoPoints(v);
      // The doc's point counter lives beside its text positions (both restart with each doc).
      const col = path + GEO_COLUMN_SUFFIX;
      const first = this.position(col) ?? 0;
      this.setPosition(col, first + points.length);
      for (let i = 0; i < points.length; i++) {
        const [a, c] = geoColumnValues(first + i, encodeLat(points[i].lat), encodeLon(points[i].lon));
        b.addNumeric(doc, path + GEO_COLUMN_SUFFIX, a);
        b.addNumeric(doc, path + GEO_COLUMN_SUFFIX, c);
      }
      if (points.length) b.markExists(doc, path);
    } else if (type === 'completion') {
      const inputs = completionInputs(v);
      for (let i = 0; i < inputs.inputs.length; i++) {
        const key = completionKey(plan.analyzer!, inputs.inputs[i], fi.completion);
        if (key !== '') b.addTerm(doc, path, encodeCompletion(key, inputs.weight, inputs.inputs[i]));
      }
    } else if (NUMERIC_TYPES.has(type)) {
      const n = coerceNumber(v, type);
      if (n !== null) b.addNumeric(doc, path, n);
    } else if (type === 'date') {
      try { b.addNumeric(doc, path, parseDate(v, fi.format ?? DEFAULT_DATE_FORMAT)); } catch { /* rejected upstream */ }
    } else if (type === 'boolean') {
      const x = coerceBoolean(v);
      if (x === null) return;
      b.addTerm(doc, path, x ? 'T' : 'F');
      b.addNumeric(doc, path, x ? 1 : 0);
    }
  }
}
