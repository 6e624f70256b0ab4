/**
 * OpenMetrics backfill, as `promtool tsdb create-blocks-from openmetrics` (2.42) does it: every sample
 * needs a timestamp (seconds, converted to ms by truncation), the input must end with `# EOF`, and the
 * samples are cut into blocks aligned to 2 h since the epoch, each with maxTime = last sample + 1 ms.
 * Within one block a series must be in time order (2.42's block writer has no out-of-order support);
 * a repeated timestamp with the same value is ignored and with a different value is an error.
 *
 * The file is streamed in line-aligned pieces so inputs larger than a JS string can be imported.
 */
import { createReadStream } from 'node:fs';
import { InvalidArgumentError } from '../errors.ts';
import type { FetchedSeries, Label } from '../tsdb/api.ts';
import { ENTRY_EOF, ENTRY_SERIES, ExpositionParser } from './exposition-parser.ts';
import { formatSeries } from './exposition.ts';

export const BLOCK_RANGE_MS = 2 * 3600 * 1000;

/** Growable sample columns of one series, in file order. */
class SeriesBuf {
  t = new Float64Array(16);
  v = new Float64Array(16);
  n = 0;
  constructor(readonly labels: Label[]) {}
  push(t: number, v: number): void {
    if (this.n === this.t.length) {
      const t2 = new Float64Array(this.n * 2); t2.set(this.t); this.t = t2;
      const v2 = new Float64Array(this.n * 2); v2.set(this.v); this.v = v2;
    }
    this.t[this.n] = t;
    this.v[this.n] = v;
    this.n++;
  }
}

export interface BackfillInput { series: SeriesBuf[]; mintMs: number; maxtMs: number; samples: number }

function fail(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

/** Reads and parses the whole file. Throws InvalidArgumentError with promtool-like messages. */
export async function readOpenMetrics(path: string, pieceBytes = 16 << 20): Promise<BackfillInput> {
  const byKey = new Map<string, SeriesBuf>();
  const out: BackfillInput = { series: [], mintMs: Infinity, maxtMs: -Infinity, samples: 0 };
  let carry = '';
  let line = 0;
  let eof = false;
  const parsePiece = (text: string): void => {
    if (eof) {
      if (text.trim() !== '') fail('next: unexpected data after # EOF');
      return;
    }
    const p = new ExpositionParser(text, { openMetrics: true, fragment: true, firstLine: line });
    try {
      for (let e = p.next(); e !== ENTRY_EOF; e = p.next()) {
        if (e !== ENTRY_SERIES) continue;
        let s = byKey.get(p.seriesKey);
        if (s === undefined) {
          s = new SeriesBuf(p.labels());
          byKey.set(p.seriesKey, s);
          out.series.push(s);
        }
        const t = p.timestampMs;
        if (Number.isNaN(t)) fail(`expected timestamp for series ${formatSeries(s.labels)}, got none`);
        s.push(t, p.value);
        if (t < out.mintMs) out.mintMs = t;
        if (t > out.maxtMs) out.maxtMs = t;
        out.samples++;
      }
    } catch (e) {
      if (e instanceof InvalidArgumentError) throw e;
      fail(`next: ${(e as Error).message}`);
    }
    line = p.line;
    eof = p.eofSeen;
  };
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: pieceBytes });
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = carry + chunk;
    const cut = text.lastIndexOf('\n');
    if (cut < 0) { carry = text; continue; }
    carry = text.slice(cut + 1);
    parsePiece(text.slice(0, cut + 1));
  }
  if (carry !== '') parsePiece(carry);
  if (!eof) fail('next: data does not end with # EOF');
  return out;
}

/** One block to write: its series (time-ordered) and its [mint, maxt) range. */
export interface PlannedBlock { mintMs: number; maxtMs: number; series: FetchedSeries[]; samples: number }

/**
 * Cuts the input into 2 h-aligned blocks, checking order within each. Blocks are produced lazily, one
 * at a time, so only one block's columns are copied at once.
 */
export function* planBlocks(input: BackfillInput, rangeMs = BLOCK_RANGE_MS): Generator<PlannedBlock> {
  if (input.samples === 0) return;
  const start = Math.floor(input.mintMs / rangeMs) * rangeMs;
  for (let from = start; from <= input.maxtMs; from += rangeMs) {
    const to = from + rangeMs;
    const series: FetchedSeries[] = [];
    let maxt = -Infinity, samples = 0;
    for (const s of input.series) {
      const picked = pickWindow(s, from, to);
      if (picked === null) continue;
      series.push(picked);
      samples += picked.t.length;
      const last = picked.t[picked.t.length - 1];
      if (last > maxt) maxt = last;
    }
    if (samples > 0) yield { mintMs: from, maxtMs: maxt + 1, series, samples };
  }
}

function pickWindow(s: SeriesBuf, from: number, to: number): FetchedSeries | null {
  let count = 0;
  for (let i = 0; i < s.n; i++) if (s.t[i] >= from && s.t[i] < to) count++;
  if (count === 0) return null;
  const t = new Float64Array(count), v = new Float64Array(count);
  let k = 0;
  for (let i = 0; i < s.n; i++) {
    const ti = s.t[i];
    if (ti < from || ti >= to) continue;
    if (k > 0 && ti <= t[k - 1]) {
      if (ti < t[k - 1]) fail(`block creation failed: add sample: out of order sample (series ${formatSeries(s.labels)}, t=${ti})`);
      if (!Object.is(s.v[i], v[k - 1])) fail(`block creation failed: add sample: duplicate sample for timestamp (series ${formatSeries(s.labels)}, t=${ti})`);
      continue;
    }
    t[k] = ti;
    v[k] = s.v[i];
    k++;
  }
  return { labels: s.labels, t: k === count ? t : t.subarray(0, k), v: k === count ? v : v.subarray(0, k) };
}
