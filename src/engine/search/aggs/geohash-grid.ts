/**
 * The `geohash_grid` aggregation (ES 6.8): each doc counts once in the cell of each of its points at `precision`
 * (1–12, default 5). The cell is computed from the stored 32-bit encodings as ES's `GeoHashUtils.longEncode`
 * does (the first 5 × precision bits of longitude and latitude interleaved, longitude first), so a point on a
 * cell border lands in the same cell as on a real node. The coordinator sums the shards' cells, orders them by
 * count (ties: geohash) and keeps `size` (default 10,000).
 */
import { InvalidArgumentError } from '../../errors.ts';
import { GEO_COLUMN_SUFFIX } from '../../indexing/geo-point.ts';
import type { NumericDocValues, Segment } from '../../postings/segment.ts';
import { queryShardError } from '../shard-errors.ts';
import type { AggCollector, AggEnv, AggPartial } from './agg-collectors.ts';
import type { AggSpec } from './agg-parser.ts';
import { BucketSet } from './bucket-collectors.ts';

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';
const TWO32 = 2 ** 32, TWO34 = 2 ** 34;

/** The precision of a `geohash_grid` request (ES's range check and message). */
export function geohashPrecision(v: unknown): number {
  const p = v === undefined ? 5 : Number(v);
  if (!Number.isInteger(p) || p < 1 || p > 12) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Invalid geohash aggregation precision of ${String(v)}. Must be between 1 and 12.`);
  return p;
}

/** Geohash of a point given as unsigned 32-bit longitude and latitude cells (encoding + 2^31). */
export function geohashOfCells(lonU: number, latU: number, precision: number): string {
  let out = '';
  for (let c = 0; c < precision; c++) {
    let v = 0;
    for (let j = 0; j < 5; j++) {
      const i = c * 5 + j, k = i >> 1;
      // Bit k from the top of the 32-bit cell, without 32-bit integer overflow.
      const src = (i & 1) === 0 ? lonU : latU;
      v = (v << 1) | (Math.floor(src / 2 ** (31 - k)) & 1);
    }
    out += BASE32[v];
  }
  return out;
}

export class GeohashGridCollector implements AggCollector {
  private readonly buckets: BucketSet;
  private readonly precision: number;
  private column: NumericDocValues | null = null;
  private readonly cells = new Set<string>();
  constructor(private readonly spec: AggSpec, env: AggEnv) {
    const field = String(spec.params.field);
    const fi = env.ctx.field(field);
    if (fi && fi.type !== 'geo_point') throw queryShardError(env.ctx, `Expected geo_point type on field [${field}], but got [${fi.type}]`);
    this.precision = geohashPrecision(spec.params.precision);
    this.buckets = new BucketSet(spec, env);
  }
  setSegment(ord: number, seg: Segment): void {
    this.column = seg.numeric(String(this.spec.params.field) + GEO_COLUMN_SUFFIX);
    this.buckets.setSegment(ord, seg);
  }
  collect(doc: number, score: number): void {
    const c = this.column;
    if (!c || c.count(doc) === 0) return;
    this.cells.clear();
    for (let k = c.start[doc]; k + 1 < c.start[doc + 1]; k += 2) {
      // Stored values hold encoding + 2^31: exactly ES's sign-flipped unsigned cells.
      const latU = c.values[k] % TWO34, lonU = (c.values[k + 1] % TWO34) - TWO32;
      this.cells.add(geohashOfCells(lonU, latU, this.precision));
    }
    for (const cell of this.cells) this.buckets.hit(this.buckets.bucket(cell), doc, score);
  }
  partial(): AggPartial {
    return { name: this.spec.name, type: this.spec.type, valueType: 'geo_point',
      buckets: [...this.buckets.map.values()].map((b) => ({ key: b.key, docCount: b.count, subs: this.buckets.subPartials(b) })) };
  }
}

