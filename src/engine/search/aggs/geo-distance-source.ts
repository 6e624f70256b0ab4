/**
 * The values a `geo_distance` aggregation buckets: for each point of the doc's `geo_point` field, its distance
 * from `origin` in `unit` (arc or plane, as the `_geo_distance` sort computes it). The range buckets themselves
 * are the `range` aggregation's.
 */
import { InvalidArgumentError } from '../../errors.ts';
import {
  arcDistanceMeters, DISTANCE_UNITS, GEO_COLUMN_SUFFIX, parseGeoPoint, planeDistanceMeters, readGeoPoints,
} from '../../indexing/geo-point.ts';
import type { NumericDocValues, Segment } from '../../postings/segment.ts';
import { queryShardError } from '../shard-errors.ts';
import type { AggEnv, ValuesSource } from './agg-collectors.ts';

export function geoDistanceSource(params: Record<string, unknown>, env: AggEnv, aggName: string): ValuesSource {
  const field = String(params.field);
  const fi = env.ctx.field(field);
  if (fi && fi.type !== 'geo_point') throw queryShardError(env.ctx, `Expected geo_point type on field [${field}], but got [${fi.type}]`);
  if (params.origin === undefined) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Missing [origin] in geo_distance aggregator [${aggName}]`);
  const origin = parseGeoPoint(params.origin);
  if (!origin) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `failed to parse [origin] of geo_distance aggregator [${aggName}]`);
  const unit = params.unit === undefined ? 'm' : String(params.unit);
  const perUnit = DISTANCE_UNITS[unit];
  if (perUnit === undefined) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `No distance unit match [${unit}]`);
  const plane = String(params.distance_type ?? 'arc').toLowerCase() === 'plane';
  let column: NumericDocValues | null = null;
  let lat = new Float64Array(8), lon = new Float64Array(8);
  return {
    kind: 'num', type: 'double',
    setSegment(seg: Segment): void { column = fi ? seg.numeric(field + GEO_COLUMN_SUFFIX) : null; },
    values(doc: number, out: (number | string)[]): number {
      out.length = 0;
      if (!column || column.count(doc) === 0) return 0;
      const from = column.start[doc], to = column.start[doc + 1];
      if ((to - from) / 2 > lat.length) { lat = new Float64Array((to - from) / 2); lon = new Float64Array((to - from) / 2); }
      const n = readGeoPoints(column.values, from, to, lat, lon);
      for (let i = 0; i < n; i++) {
        const m = plane ? planeDistanceMeters(origin.lat, origin.lon, lat[i], lon[i]) : arcDistanceMeters(origin.lat, origin.lon, lat[i], lon[i]);
        out.push(m / perUnit);
      }
      return n;
    },
    numericColumn: () => null,
    ordinalColumn: () => null,
  };
}
