/**
 * Turns one source document into segment docs: walks the source with the mapping, analyses text, coerces
 * numbers/dates/booleans as ES does, and writes nested objects as hidden child docs (children first, then
 * the root, so a block is contiguous). Values the mapping cannot coerce are skipped: the document shard has
 * already validated the source against the mapping before calling the index.
 */
import { SegmentBuilder } from '../postings/segment-builder.ts';
import { TokenBuf } from '../postings/analysis/token-buf.ts';
import type { AnalyzerRegistry } from '../postings/analysis/analyzers.ts';
import { parseDate, DEFAULT_DATE_FORMAT } from '../postings/date-format.ts';
import { type FieldInfos, INTEGER_TYPES, NUMERIC_TYPES } from './field-infos.ts';

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

export class DocIndexer {
  private readonly tokens = new TokenBuf();
  private positions = new Map<string, number>();

  constructor(private readonly infos: FieldInfos, private readonly analyzers: AnalyzerRegistry) {}

  /** Adds the block of `source` to `b`; returns the root doc. */
  index(b: SegmentBuilder, id: string, source: Record<string, unknown>): number {
    const children: number[] = [];
    const pending: Array<[string, unknown]> = [];
    this.collect(b, source, '', '', pending, children);
    const root = b.addDoc(id, '');
    this.positions = new Map();
    for (const [path, v] of pending) this.addValue(b, root, path, v);
    for (const c of children) if (c >= 0) b.setParent(c, root);
    return root;
  }

  /** Gathers the leaf values of one (root or nested) object; nested objects become child docs at once. */
  private collect(b: SegmentBuilder, obj: Record<string, unknown>, prefix: string, scope: string, out: Array<[string, unknown]>, children: number[]): void {
    for (const [k, v] of Object.entries(obj)) {
      const path = prefix + k;
      if (v === null || v === undefined) continue;
      const kind = this.infos.objects.get(path);
      const values = Array.isArray(v) ? v.flat(Infinity) : [v];
      for (const item of values) {
        if (item === null || item === undefined) continue;
        if (kind === 'nested' && typeof item === 'object') {
          children.push(this.nestedDoc(b, item as Record<string, unknown>, path));
        } else if (typeof item === 'object' && !Array.isArray(item)) {
          this.collect(b, item as Record<string, unknown>, path + '.', scope, out, children);
        } else {
          out.push([path, item]);
        }
      }
    }
  }

  private nestedDoc(b: SegmentBuilder, obj: Record<string, unknown>, path: string): number {
    const grand: number[] = [];
    const pending: Array<[string, unknown]> = [];
    this.collect(b, obj, path + '.', path, pending, grand);
    const doc = b.addDoc('', path);
    const saved = this.positions;
    this.positions = new Map();
    for (const [p, v] of pending) this.addValue(b, doc, p, v);
    this.positions = saved;
    for (const g of grand) b.setParent(g, doc);
    return doc;
  }

  private addValue(b: SegmentBuilder, doc: number, path: string, v: unknown): void {
    const fi = this.infos.get(path);
    if (!fi) return;
    this.addTyped(b, doc, path, fi.type, v, fi.analyzer, fi.ignoreAbove, fi.format, fi.indexed);
    // Multi-fields index the same value under `path.sub`.
    for (const [sub, sfi] of this.subFields(path)) {
      this.addTyped(b, doc, sub, sfi.type, v, sfi.analyzer, sfi.ignoreAbove, sfi.format, sfi.indexed);
    }
  }

  private subCache = new Map<string, Array<[string, import('./field-infos.ts').FieldInfo]>>();
  private subFields(path: string): Array<[string, import('./field-infos.ts').FieldInfo]> {
    let s = this.subCache.get(path);
    if (!s) {
      s = [];
      for (const [p, fi] of this.infos.fields) {
        if (p.startsWith(path + '.') && !p.slice(path.length + 1).includes('.') && !this.infos.objects.has(path)) s.push([p, fi]);
      }
      this.subCache.set(path, s);
    }
    return s;
  }

  private addTyped(b: SegmentBuilder, doc: number, path: string, type: string, v: unknown, analyzer: string, ignoreAbove: number, format: string | undefined, indexed: boolean): void {
    if (type === 'text') {
      if (!indexed) return;
      const a = this.analyzers.get(analyzer) ?? this.analyzers.get('standard')!;
      this.tokens.clear();
      const base = this.positions.get(path);
      a.analyze(String(v), this.tokens, base === undefined ? 0 : base + POSITION_INCREMENT_GAP + 1);
      if (this.tokens.length > 0) this.positions.set(path, this.tokens.positions[this.tokens.length - 1]);
      b.addTokens(doc, path, this.tokens, true);
      // _field_names records any present value, even one that analyses to no tokens ("").
      b.markExists(doc, path);
    } else if (type === 'keyword') {
      const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
      if (s.length > ignoreAbove) return;
      if (indexed) b.addTerm(doc, path, s);
      b.addOrdinal(doc, path, s);
      b.markExists(doc, path);
    } else if (NUMERIC_TYPES.has(type)) {
      const n = coerceNumber(v, type);
      if (n !== null) b.addNumeric(doc, path, n);
    } else if (type === 'date') {
      try { b.addNumeric(doc, path, parseDate(v, format ?? DEFAULT_DATE_FORMAT)); } catch { /* rejected upstream */ }
    } else if (type === 'boolean') {
      const x = coerceBoolean(v);
      if (x === null) return;
      b.addTerm(doc, path, x ? 'T' : 'F');
      b.addNumeric(doc, path, x ? 1 : 0);
    }
  }
}
