/**
 * Label-pair postings: for every `name=value`, the roaring bitmap of series refs carrying it, in the head
 * (mutable, in memory) or read from a block's index. Matcher evaluation follows Prometheus's
 * `PostingsForMatchers`: matchers that do not match "" intersect, matchers that match "" subtract the series
 * whose value fails them, and a selector made only of the latter starts from all series.
 */
import { bitmapOf, bitmapUnion, type Bitmap } from '../codec/roaring.ts';
import type { Labels, Matcher } from './api.ts';
import { MATCH_EQUAL } from './api.ts';

export type { Bitmap };

/**
 * What matcher evaluation needs of an index, in memory (the head) or on disk (a block): the postings of one
 * label pair, the values of a name, the names, and every series.
 */
export abstract class PostingsIndex {
  /** The refs of `name=value` (the caller must not mutate it), or undefined when the pair does not occur. */
  protected abstract postings(name: string, value: string): Bitmap | undefined;
  /** Every value `name` has, in any order. */
  protected abstract valuesOf(name: string): Iterable<string>;
  /** Every label name, in any order. */
  protected abstract names(): Iterable<string>;
  /** Every series ref (the caller must not mutate it). */
  protected abstract allRefs(): Bitmap;

  /**
   * Series refs matching every matcher (a fresh bitmap the caller may mutate). Intersections start from the
   * smallest positive list and only that one is copied: cloning large native bitmaps reports external memory
   * to V8 and provokes garbage collections that cost far more than the set operations.
   */
  select(ms: readonly Matcher[]): Bitmap {
    const pos: Bitmap[] = [];
    const subtract: Bitmap[] = [];
    let fresh: Bitmap | null = null;
    for (const m of ms) {
      if (m.matches('')) { subtract.push(this.union(m.name, m, false)); continue; }
      if (m.type === MATCH_EQUAL) {
        const bm = this.postings(m.name, m.value);
        if (bm === undefined) return bitmapOf();
        pos.push(bm);
      } else {
        const bm = this.union(m.name, m, true);
        if (bm.isEmpty) return bm;
        pos.push(bm);
        fresh = bm;
      }
    }
    let out: Bitmap;
    if (pos.length === 0) out = this.allRefs().clone();
    else {
      pos.sort((a, b) => a.size - b.size);
      out = pos[0] === fresh ? pos[0] : pos[0].clone();
      for (let i = 1; i < pos.length && !out.isEmpty; i++) out.andInPlace(pos[i]);
    }
    for (const s of subtract) if (!out.isEmpty) out.andNotInPlace(s);
    return out;
  }

  /** Union of the postings of `name`'s values for which `m.matches(value) === want` (a fresh bitmap). */
  private union(name: string, m: Matcher, want: boolean): Bitmap {
    return this.unionWhere(name, (v) => m.matches(v) === want);
  }

  /**
   * Union of the postings of the values of `name` that `pick` accepts, as a fresh bitmap. Indexes override
   * it to gather the refs without a bitmap per value: a regex over a high-cardinality label (a per-series
   * id) picks thousands of one-series lists, and a native bitmap each, with the garbage collections its
   * external memory set off, cost more than reading the selected series.
   */
  protected unionWhere(name: string, pick: (value: string) => boolean): Bitmap {
    const parts: Bitmap[] = [];
    for (const v of this.valuesOf(name)) if (pick(v)) parts.push(this.postings(name, v)!);
    return parts.length === 0 ? bitmapOf() : bitmapUnion(parts);
  }

  /** Sorted label names with at least one series in `refs` (all when null). */
  labelNames(refs: Bitmap | null): string[] {
    const out: string[] = [];
    for (const name of this.names()) {
      if (refs === null) { out.push(name); continue; }
      for (const v of this.valuesOf(name)) if (this.postings(name, v)!.intersects(refs)) { out.push(name); break; }
    }
    return out.sort();
  }

  /** Sorted values of `name` carried by a series in `refs` (all when null). */
  labelValues(name: string, refs: Bitmap | null): string[] {
    const out = refs === null ? [...this.valuesOf(name)] : this.valuesCarriedBy(name, refs);
    return out.sort();
  }

  /**
   * The values of `name` some series in `refs` carries, in any order. Indexes override it to test a value's
   * refs without making a bitmap of them (label values with `match[]` test every value of the label).
   */
  protected valuesCarriedBy(name: string, refs: Bitmap): string[] {
    const out: string[] = [];
    for (const v of this.valuesOf(name)) if (this.postings(name, v)!.intersects(refs)) out.push(v);
    return out;
  }
}

/** The head's postings: mutable, in memory. */
export class LabelIndex extends PostingsIndex {
  /**
   * name → value → the series carrying the pair: a bare ref while there is one (most pairs of a
   * high-cardinality label, such as a per-series id, have exactly one series, and a native bitmap each
   * would cost some hundred bytes), a roaring bitmap from the second on.
   */
  readonly byName = new Map<string, Map<string, Bitmap | number>>();
  /** Made with the first series: an empty head (a fresh node) then never loads the bitmap package to start. */
  private allSeries: Bitmap | null = null;

  /** Every series of the head (the caller must not mutate it). */
  get all(): Bitmap {
    this.allSeries ??= bitmapOf();
    return this.allSeries;
  }

  protected postings(name: string, value: string): Bitmap | undefined {
    const p = this.byName.get(name)?.get(value);
    return typeof p === 'number' ? bitmapOf([p]) : p;
  }
  protected valuesOf(name: string): Iterable<string> { return this.byName.get(name)?.keys() ?? []; }
  protected names(): Iterable<string> { return this.byName.keys(); }
  protected allRefs(): Bitmap { return this.all; }

  /** Bare refs (one-series pairs) go into one bitmap together; the others are ORed with it. */
  protected override unionWhere(name: string, pick: (value: string) => boolean): Bitmap {
    const values = this.byName.get(name);
    const single: number[] = [];
    const parts: Bitmap[] = [];
    if (values) for (const [v, p] of values) if (pick(v)) { if (typeof p === 'number') single.push(p); else parts.push(p); }
    if (parts.length === 0) return bitmapOf(single);
    if (single.length > 0) parts.push(bitmapOf(single));
    return bitmapUnion(parts);
  }

  /** Whether some series carries `name=value`. */
  has(name: string, value: string): boolean { return this.byName.get(name)?.has(value) ?? false; }

  /** Some series carrying `name=value` (the lowest ref), or -1 when none does. */
  anyRef(name: string, value: string): number {
    const p = this.byName.get(name)?.get(value);
    if (p === undefined) return -1;
    return typeof p === 'number' ? p : p.isEmpty ? -1 : p.minimum();
  }

  /** How many series carry `name=value`. */
  static count(p: Bitmap | number): number { return typeof p === 'number' ? 1 : p.size; }

  add(ref: number, ls: Labels): void {
    this.all.add(ref);
    for (let i = 0; i < ls.length; i++) {
      let values = this.byName.get(ls[i].name);
      if (!values) { values = new Map(); this.byName.set(ls[i].name, values); }
      const p = values.get(ls[i].value);
      if (p === undefined) values.set(ls[i].value, ref);
      else if (typeof p === 'number') { if (p !== ref) values.set(ls[i].value, bitmapOf([p, ref])); }
      else p.add(ref);
    }
  }

  remove(ref: number, ls: Labels): void {
    this.allSeries?.remove(ref);
    for (let i = 0; i < ls.length; i++) {
      const values = this.byName.get(ls[i].name);
      const p = values?.get(ls[i].value);
      if (!values || p === undefined) continue;
      if (typeof p === 'number') { if (p === ref) values.delete(ls[i].value); }
      else {
        p.remove(ref);
        if (p.isEmpty) values.delete(ls[i].value);
      }
      if (values.size === 0) this.byName.delete(ls[i].name);
    }
  }
}
