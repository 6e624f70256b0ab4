/**
 * `geo_distance` and `geo_bounding_box` on `geo_point` fields (ES 6.8): both scan the field's points
 * (`indexing/geo-point.ts`) and score a constant boost. A box compares Lucene's 32-bit encodings, as
 * LatLonPoint.newBoxQuery does (lower bounds rounded up, a box whose left is east of its right crosses the
 * dateline); a distance compares the haversine distance of the decoded point with the radius.
 */
import { ParseError } from '../errors.ts';
import { javaDouble } from '../documents/source.ts';
import {
  arcDistanceMeters, decodeLat, decodeLon, encodeLat, encodeLatCeil, encodeLon, encodeLonCeil, GEO_COLUMN_SUFFIX, parseDistanceMeters, parseGeoPoint,
} from '../indexing/geo-point.ts';
import { ArrayCursor } from '../postings/cursor.ts';
import type { Segment } from '../postings/segment.ts';
import type { Query } from './query-ast.ts';
import { ConstScorer, type Scorer } from './scorers.ts';
import { queryShardError } from './shard-errors.ts';
import { NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';

export type GeoDistanceQuery = { type: 'geo_distance'; field: string; lat: number; lon: number; meters: number; ignoreUnmapped: boolean; boost: number; name?: string };
export type GeoBoxQuery = { type: 'geo_bounding_box'; field: string; top: number; left: number; bottom: number; right: number; ignoreUnmapped: boolean; boost: number; name?: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const parseErr = (msg: string): ParseError => new ParseError('SEARCH_PARSING', msg, { line: 1, col: 1 });
const COMMON = new Set(['boost', '_name', 'ignore_unmapped', 'validation_method', 'coerce', 'ignore_malformed']);

/** The one field key of a geo query body (ES refuses a second one). */
function fieldKey(kind: string, b: Obj, own: Set<string>): string {
  const keys = Object.keys(b).filter((k) => !COMMON.has(k) && !own.has(k));
  if (keys.length > 1) throw parseErr(`[${kind}] query doesn't support multiple fields, found [${keys[0]}] and [${keys[1]}]`);
  if (keys.length === 0) throw parseErr(`[${kind}] query requires a field`);
  return keys[0];
}

function point(kind: string, v: unknown): { lat: number; lon: number } {
  const p = parseGeoPoint(v);
  if (!p || Number.isNaN(p.lat) || Number.isNaN(p.lon)) throw parseErr(`[${kind}] failed to parse point [${JSON.stringify(v)}]`);
  if (!(Math.abs(p.lat) <= 90)) throw parseErr(`illegal latitude value [${p.lat}] for [${kind}]`);
  if (!(Math.abs(p.lon) <= 180)) throw parseErr(`illegal longitude value [${p.lon}] for [${kind}]`);
  return p;
}

export function parseGeoDistance(b: Obj): Query {
  if (b.distance === undefined) throw parseErr('geo_distance requires \'distance\' to be specified');
  const field = fieldKey('geo_distance', b, new Set(['distance', 'distance_type', 'unit', 'optimize_bbox']));
  const meters = parseDistanceMeters(b.distance, b.unit === undefined ? 'm' : String(b.unit));
  if (Number.isNaN(meters)) throw parseErr(`failed to parse [${String(b.distance)}] as a distance`);
  const p = point('geo_distance', b[field]);
  return { type: 'geo_distance', field, lat: p.lat, lon: p.lon, meters, ignoreUnmapped: b.ignore_unmapped === true,
    boost: b.boost === undefined ? 1 : Number(b.boost), name: typeof b._name === 'string' ? b._name : undefined } as Query;
}

export function parseGeoBox(b: Obj): Query {
  const field = fieldKey('geo_bounding_box', b, new Set(['type']));
  const box = b[field];
  if (!isObj(box)) throw parseErr(`failed to parse bounding box. Expected START_OBJECT but found [${JSON.stringify(box)}]`);
  let top = NaN, left = NaN, bottom = NaN, right = NaN;
  for (const [k, v] of Object.entries(box)) {
    switch (k) {
      case 'top': top = Number(v); break;
      case 'bottom': bottom = Number(v); break;
      case 'left': left = Number(v); break;
      case 'right': right = Number(v); break;
      case 'top_left': case 'topLeft': { const p = point('geo_bounding_box', v); top = p.lat; left = p.lon; break; }
      case 'bottom_right': case 'bottomRight': { const p = point('geo_bounding_box', v); bottom = p.lat; right = p.lon; break; }
      case 'top_right': case 'topRight': { const p = point('geo_bounding_box', v); top = p.lat; right = p.lon; break; }
      case 'bottom_left': case 'bottomLeft': { const p = point('geo_bounding_box', v); bottom = p.lat; left = p.lon; break; }
      default: throw parseErr(`failed to parse bounding box. unexpected field [${k}]`);
    }
  }
  if ([top, left, bottom, right].some(Number.isNaN)) throw parseErr('failed to parse bounding box. Missing coordinates');
  if (top < bottom) throw new ParseError('SEARCH_PARSING', `top is below bottom corner: ${javaDouble(top)} vs. ${javaDouble(bottom)}`, { line: 1, col: 1 });
  return { type: 'geo_bounding_box', field, top, left, bottom, right, ignoreUnmapped: b.ignore_unmapped === true,
    boost: b.boost === undefined ? 1 : Number(b.boost), name: typeof b._name === 'string' ? b._name : undefined } as Query;
}

/** The field's geo column name, or null (unmapped with ignore_unmapped); ES's errors otherwise. */
function geoColumn(ctx: CompileContext, field: string, ignoreUnmapped: boolean): string | null {
  const fi = ctx.field(field);
  if (!fi) { if (ignoreUnmapped) return null; throw queryShardError(ctx, `failed to find geo_point field [${field}]`); }
  if (fi.type !== 'geo_point') throw queryShardError(ctx, `field [${field}] is not a geo_point field`);
  return field + GEO_COLUMN_SUFFIX;
}

const TWO31 = 2 ** 31, TWO32 = 2 ** 32, TWO34 = 2 ** 34;

/** Root docs of a segment having a point that `accept(latEnc, lonEnc)` takes. */
function pointScan(column: string, boost: number, accept: (latEnc: number, lonEnc: number) => boolean): Weight {
  return {
    scorer(_ord: number, seg: Segment): Scorer | null {
      const dv = seg.numeric(column);
      if (!dv) return null;
      const docs: number[] = [];
      for (let d = 0; d < seg.maxDoc; d++) {
        for (let k = dv.start[d]; k + 1 < dv.start[d + 1]; k += 2) {
          if (accept((dv.values[k] % TWO34) - TWO31, (dv.values[k + 1] % TWO34) - TWO32 - TWO31)) { docs.push(d); break; }
        }
      }
      return docs.length ? new ConstScorer(new ArrayCursor(Uint32Array.from(docs)), boost) : null;
    },
  };
}

export function geoDistanceWeight(ctx: CompileContext, q: GeoDistanceQuery, boost: number): Weight {
  const col = geoColumn(ctx, q.field, q.ignoreUnmapped);
  if (!col) return NULL_WEIGHT;
  return pointScan(col, boost, (la, lo) => arcDistanceMeters(q.lat, q.lon, decodeLat(la), decodeLon(lo)) <= q.meters);
}

export function geoBoxWeight(ctx: CompileContext, q: GeoBoxQuery, boost: number): Weight {
  const col = geoColumn(ctx, q.field, q.ignoreUnmapped);
  if (!col) return NULL_WEIGHT;
  const minLat = encodeLatCeil(q.bottom), maxLat = encodeLat(q.top);
  const minLon = encodeLonCeil(q.left), maxLon = encodeLon(q.right);
  const crosses = q.left > q.right;
  return pointScan(col, boost, (la, lo) => la >= minLat && la <= maxLat && (crosses ? lo >= minLon || lo <= maxLon : lo >= minLon && lo <= maxLon));
}
