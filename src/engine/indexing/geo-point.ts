/**
 * `geo_point` values: ES 6.8's input forms (`{lat, lon}`, `"lat,lon"`, a geohash, `[lon, lat]`, arrays of any of
 * them), Lucene's 32-bit encodings (`GeoEncodingUtils`: what LatLonDocValuesField keeps, so a
 * point reads back exactly as on a real node), and where points live in a segment.
 *
 * Storage (docs/format.md, "geo_point doc values"): the numeric doc-values column `<field>` + GEO_COLUMN_SUFFIX, two
 * values per point — `i·2^34 + (lat + 2^31)` and `i·2^34 + 2^32 + (lon + 2^31)` for the doc's i-th point — so the
 * per-doc ascending order of a numeric column keeps each point's latitude right before its longitude, every value
 * is an integer below 2^53 (exact in a double), and segments of format 1 need no change to hold them.
 */

export { GEO_COLUMN_SUFFIX } from '../codec/format-ids.ts';
const LAT_DECODE = 180 / 2 ** 32;
const LON_DECODE = 360 / 2 ** 32;
const TWO31 = 2 ** 31, TWO32 = 2 ** 32, TWO34 = 2 ** 34;

/** Lucene's `encodeLatitude`: floor to the 32-bit grid (90 itself maps to the last cell). */
export function encodeLat(lat: number): number { return Math.floor((lat === 90 ? 89.99999999999999 : lat) / LAT_DECODE); }
export function encodeLon(lon: number): number { return Math.floor((lon === 180 ? 179.99999999999997 : lon) / LON_DECODE); }
/** Lucene's `encodeLatitudeCeil`/`encodeLongitudeCeil` (box query lower bounds). */
export function encodeLatCeil(lat: number): number { return Math.ceil((lat === 90 ? 89.99999999999999 : lat) / LAT_DECODE); }
export function encodeLonCeil(lon: number): number { return Math.ceil((lon === 180 ? 179.99999999999997 : lon) / LON_DECODE); }
export const decodeLat = (e: number): number => e * LAT_DECODE;
export const decodeLon = (e: number): number => e * LON_DECODE;

/** The column values of point `i` (see the file header). */
export function geoColumnValues(i: number, latEnc: number, lonEnc: number): [number, number] {
  return [i * TWO34 + latEnc + TWO31, i * TWO34 + TWO32 + lonEnc + TWO31];
}

/**
 * Decodes the points of one doc from its column values `values[from..to)` into `lat`/`lon` (decoded degrees);
 * returns the count. `lat`/`lon` must hold (to − from) / 2 entries.
 */
export function readGeoPoints(values: Float64Array, from: number, to: number, lat: Float64Array, lon: Float64Array): number {
  let n = 0;
  for (let k = from; k + 1 < to; k += 2) {
    // Invariant: values[k] is point n's latitude entry, values[k + 1] its longitude entry.
    const a = values[k] % TWO34, b = values[k + 1] % TWO34;
    lat[n] = decodeLat(a - TWO31);
    lon[n] = decodeLon(b - TWO32 - TWO31);
    n++;
  }
  return n;
}

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** A geohash's cell centre; null for an empty hash or a character outside the geohash alphabet. */
export function geohashCenter(hash: string): { lat: number; lon: number } | null {
  if (hash.length === 0) return null;
  let latLo = -90, latHi = 90, lonLo = -180, lonHi = 180, even = true;
  for (const ch of hash) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return null;
    for (let bit = 4; bit >= 0; bit--) {
      const on = (v >> bit) & 1;
      if (even) { const mid = (lonLo + lonHi) / 2; if (on) lonLo = mid; else lonHi = mid; }
      else { const mid = (latLo + latHi) / 2; if (on) latLo = mid; else latHi = mid; }
      even = !even;
    }
  }
  return { lat: (latLo + latHi) / 2, lon: (lonLo + lonHi) / 2 };
}

const num = (v: unknown): number => Number(typeof v === 'object' && v !== null ? String(v) : v);

/** One point in any of ES's forms; null when it is not one. */
export function parseGeoPoint(v: unknown): { lat: number; lon: number } | null {
  if (Array.isArray(v)) {
    if (v.length < 2 || v.some((x) => typeof x === 'object' && x !== null && !('value' in (x as object)))) return null;
    return { lon: num(v[0]), lat: num(v[1]) };
  }
  if (typeof v === 'object' && v !== null && !('value' in (v as object))) {
    const o = v as Record<string, unknown>;
    if (o.lat === undefined || o.lon === undefined) return null;
    return { lat: num(o.lat), lon: num(o.lon) };
  }
  const s = String(v).trim();
  const parts = s.split(',');
  if (parts.length === 2) return { lat: Number(parts[0]), lon: Number(parts[1]) };
  return geohashCenter(s);
}

/** Every point of a field value: one point, or an array of points (an array of two numbers is one point). */
export function parseGeoPoints(v: unknown): { lat: number; lon: number }[] {
  if (Array.isArray(v) && !(v.length >= 2 && v.every((x) => typeof x === 'number' || (typeof x === 'object' && x !== null && 'value' in (x as object))))) {
    return v.flatMap((x) => parseGeoPoints(x));
  }
  const p = parseGeoPoint(v);
  return p && Math.abs(p.lat) <= 90 && Math.abs(p.lon) <= 180 ? [p] : [];
}

const sortKeyF64 = new Float64Array(1);
const sortKeyU32 = new Uint32Array(sortKeyF64.buffer);

/**
 * ES 6's `GeoUtils.arcDistance`, i.e. Lucene's `SloppyMath.haversinMeters`: the haversine sort key (its three
 * lowest mantissa bits cleared, as Lucene does against ties) turned into metres on a sphere of the mean earth
 * radius. Lucene's table-driven cos/asin are replaced by Math.cos/Math.asin (they agree to about 1e-15).
 */
export function arcDistanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const toRad = Math.PI / 180;
  const x1 = lat1 * toRad, x2 = lat2 * toRad;
  const h1 = 1 - Math.cos(x1 - x2);
  const h2 = 1 - Math.cos((lon1 - lon2) * toRad);
  sortKeyF64[0] = h1 + Math.cos(x1) * Math.cos(x2) * h2;
  sortKeyU32[0] &= 0xfffffff8; // little-endian: word 0 holds the low mantissa bits
  return 6371008.7714 * 2 * Math.asin(Math.min(1, Math.sqrt(sortKeyF64[0] * 0.5)));
}

/** ES's `GeoUtils.planeDistance`: equirectangular approximation on the same sphere, in metres. */
export function planeDistanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const R = 6371008.7714;
  const toRad = Math.PI / 180;
  const x = (lon2 - lon1) * toRad * Math.cos(((lat2 + lat1) / 2) * toRad);
  const y = (lat2 - lat1) * toRad;
  return Math.sqrt(x * x + y * y) * R;
}

/** Metres per ES distance unit. */
export const DISTANCE_UNITS: Record<string, number> = {
  mi: 1609.344, miles: 1609.344, yd: 0.9144, yards: 0.9144, ft: 0.3048, feet: 0.3048, in: 0.0254, inch: 0.0254,
  km: 1000, kilometers: 1000, m: 1, meters: 1, cm: 0.01, centimeters: 0.01, mm: 0.001, millimeters: 0.001,
  nmi: 1852, NM: 1852, nauticalmiles: 1852,
};

/** A distance such as `12km` or `200` (metres by default) in metres; NaN when malformed. */
export function parseDistanceMeters(v: unknown, defaultUnit = 'm'): number {
  const s = String(v).trim();
  const m = /^([+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?\d+)?)\s*([a-zA-Z]*)$/.exec(s);
  if (!m) return NaN;
  const unit = m[2] === '' ? defaultUnit : m[2];
  const f = DISTANCE_UNITS[unit];
  return f === undefined ? NaN : Number(m[1]) * f;
}
