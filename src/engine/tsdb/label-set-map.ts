/**
 * Items keyed by their label set, without a key string per item: the set's 32-bit hash (`labelsHash`) maps
 * to the item, or to the few items sharing the hash, told apart by comparing labels. A joined key string
 * costs about 100 bytes per series and a string hash on every lookup; this costs a small integer key.
 * Used by the head (series slots, whose labels are in its columns) and by the scrape loop (per-target series
 * state objects).
 */
import type { Labels } from './api.ts';
import { flatLabelsHash, labelsEqual, labelsEqualFlat, labelsHash } from './labels.ts';

export class LabelSetMap<T> {
  private readonly m = new Map<number, T | T[]>();
  private n = 0;

  /** `labelsOf` gives an item's label set; by default its `labels` field. Items must not be arrays. */
  constructor(private readonly labelsOf: (item: T) => Labels = labelsField as (item: T) => Labels) {}

  get size(): number { return this.n; }

  /** The item labelled `ls` (sorted, non-empty values). */
  get(ls: Labels, hash = labelsHash(ls)): T | undefined {
    const e = this.m.get(hash);
    if (e === undefined) return undefined;
    if (!Array.isArray(e)) return labelsEqual(this.labelsOf(e), ls) ? e : undefined;
    for (const x of e) if (labelsEqual(this.labelsOf(x), ls)) return x;
    return undefined;
  }

  /** The item labelled with the flat set `[name, value, …]`. */
  getFlat(flat: readonly string[]): T | undefined {
    const e = this.m.get(flatLabelsHash(flat));
    if (e === undefined) return undefined;
    if (!Array.isArray(e)) return labelsEqualFlat(this.labelsOf(e), flat) ? e : undefined;
    for (const x of e) if (labelsEqualFlat(this.labelsOf(x), flat)) return x;
    return undefined;
  }

  /** Adds `item`, whose label set is not present yet. */
  add(item: T, hash = labelsHash(this.labelsOf(item))): void {
    const e = this.m.get(hash);
    if (e === undefined) this.m.set(hash, item);
    else if (Array.isArray(e)) e.push(item);
    else this.m.set(hash, [e, item]);
    this.n++;
  }

  delete(item: T, hash = labelsHash(this.labelsOf(item))): void {
    const e = this.m.get(hash);
    if (e === item) { this.m.delete(hash); this.n--; return; }
    if (!Array.isArray(e) || !e.includes(item)) return;
    const rest = e.filter((x) => x !== item);
    this.m.set(hash, rest.length === 1 ? rest[0] : rest);
    this.n--;
  }

  /** Every item (deleting the one just visited is allowed). */
  *values(): Generator<T> {
    for (const e of this.m.values()) {
      if (!Array.isArray(e)) yield e;
      else for (const x of e.slice()) yield x;
    }
  }
}

function labelsField(item: { readonly labels: Labels }): Labels { return item.labels; }
