/**
 * Joins the answers of a range query evaluated as two parts of its steps (the earlier steps, then the later)
 * into the text the whole query gives, byte for byte: series in label order as `rangeQuery` sorts them, a
 * series present in both parts written once with the earlier part's points then the later's. The points are
 * not read again: each part's `matrixJson` text comes with its series index, and the result is spliced from
 * slices of the two texts.
 */
import { compareFlatLabels } from '../tsdb/labels.ts';
import { SERIES_INDEX_FIELDS } from './result-json.ts';

/** One part's `matrixJson` text and the index `matrixJson` filled for it. */
export interface MatrixJsonPart { json: Uint8Array; index: Float64Array }

const OPEN = Buffer.from('{"resultType":"matrix","result":[');
const FIRST_SERIES = Buffer.from('{"metric":');
const NEXT_SERIES = Buffer.from(',{"metric":');
const VALUES = Buffer.from(',"values":[');
const COMMA = Buffer.from(',');
const SERIES_END = Buffer.from(']}');
const CLOSE = Buffer.from(']');
const NONE = Buffer.alloc(0);

/**
 * The whole query's `matrixJson` text as pieces to be concatenated in order (slices of the parts' texts and
 * shared constants: the caller copies them once, into the response).
 */
export function mergeMatrixJson(earlier: MatrixJsonPart, later: MatrixJsonPart): Uint8Array[] {
  const a = new PartReader(earlier), b = new PartReader(later);
  const out: Uint8Array[] = [OPEN];
  let i = 0, j = 0;
  // Invariant: both parts list their series in label order, so this is a merge join.
  while (i < a.series || j < b.series) {
    const c = i >= a.series ? 1 : j >= b.series ? -1 : a.compare(i, b, j);
    out.push(i + j === 0 ? FIRST_SERIES : NEXT_SERIES);
    out.push(c <= 0 ? a.metric(i) : b.metric(j));
    out.push(VALUES);
    const aPoints = c <= 0 ? a.points(i) : NONE, bPoints = c >= 0 ? b.points(j) : NONE;
    if (aPoints.length > 0) out.push(aPoints);
    if (aPoints.length > 0 && bPoints.length > 0) out.push(COMMA);
    if (bPoints.length > 0) out.push(bPoints);
    out.push(SERIES_END);
    if (c <= 0) i++;
    if (c >= 0) j++;
  }
  out.push(CLOSE);
  return out;
}

/** One part's series: their `metric` and points as slices, and their label sets, decoded only when compared. */
class PartReader {
  readonly series: number;
  private readonly text: Buffer;
  private readonly index: Float64Array;
  /** `[name, value, …]` of series decoded so far (a series missing from the other part is compared more than once). */
  private readonly flat: (string[] | undefined)[] = [];

  constructor(part: MatrixJsonPart) {
    this.text = Buffer.from(part.json.buffer, part.json.byteOffset, part.json.byteLength);
    this.index = part.index;
    this.series = part.index.length / SERIES_INDEX_FIELDS;
  }

  metric(k: number): Uint8Array { return this.text.subarray(this.index[k * SERIES_INDEX_FIELDS], this.index[k * SERIES_INDEX_FIELDS + 1]); }
  points(k: number): Uint8Array { return this.text.subarray(this.index[k * SERIES_INDEX_FIELDS + 2], this.index[k * SERIES_INDEX_FIELDS + 3]); }

  /** `compareLabels` of series `k` here and series `m` of `other`. */
  compare(k: number, other: PartReader, m: number): number {
    const f = k * SERIES_INDEX_FIELDS, g = m * SERIES_INDEX_FIELDS;
    // A label set always encodes to the same text, and both parts nearly always hold the same series: equal
    // texts settle it without decoding. (Unequal texts do not order as label sets: escapes, closing quotes.)
    if (this.text.compare(other.text, other.index[g], other.index[g + 1], this.index[f], this.index[f + 1]) === 0) return 0;
    return compareFlatLabels(this.labels(k), other.labels(m));
  }

  private labels(k: number): string[] {
    let flat = this.flat[k];
    if (flat === undefined) {
      const f = k * SERIES_INDEX_FIELDS;
      // Label names are never integer-like, so the object keeps the text's (sorted) order.
      const metric = JSON.parse(this.text.toString('utf8', this.index[f], this.index[f + 1])) as Record<string, string>;
      flat = [];
      for (const name in metric) flat.push(name, metric[name]);
      this.flat[k] = flat;
    }
    return flat;
  }
}
