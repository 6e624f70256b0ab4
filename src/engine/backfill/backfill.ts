/**
 * OpenMetrics backfill, as `promtool tsdb create-blocks-from openmetrics` (2.42) does it: every sample
 * needs a timestamp (seconds, converted to ms by truncation), the input must end with `# EOF`, and the
 * samples are cut into windows aligned to 2 h since the epoch; each block's minTime is its first sample
 * and maxTime its last sample + 1 ms (checked against the real promtool).
 *
 * Order within a series follows promtool's appender exactly: samples are appended in file order and
 * committed every 5000; a sample older than the series' last *committed* sample fails the import
 * (`out of order sample`, or `duplicate sample for timestamp` for the same time with another value),
 * while one that is out of order only within the current uncommitted batch is silently dropped.
 *
 * The file is streamed in line-aligned pieces so inputs larger than a JS string can be imported.
 */
import { createReadStream } from 'node:fs';
import { InvalidArgumentError } from '../errors.ts';
import type { FetchedSeries, Label } from '../tsdb/api.ts';
import { ENTRY_EOF, ENTRY_SERIES, ExpositionParser } from '../exposition/exposition-parser.ts';
import { formatSeries } from '../exposition/exposition.ts';

export const BLOCK_RANGE_MS = 2 * 3600 * 1000;

/** Growable sample columns of one series, in file order. */
class SeriesBuf {
  t = new Float64Array(16);
  v = new Float64Array(16);
  /** Position of each sample in the file (0-based over all samples). */
  seq = new Float64Array(16);
  n = 0;
  constructor(readonly labels: Label[]) {}
  push(t: number, v: number, seq: number): void {
    if (this.n === this.t.length) {
      this.t = grow(this.t);
      this.v = grow(this.v);
      this.seq = grow(this.seq);
    }
    this.t[this.n] = t;
    this.v[this.n] = v;
    this.seq[this.n] = seq;
    this.n++;
  }
}

function grow(a: Float64Array) {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** Samples per appender commit in promtool's backfill (`maxSamplesInAppender`). */
const COMMIT_SAMPLES = 5000;

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
      if (text.trim() !== '') fail('getting min and max timestamp: next: unexpected data after # EOF');
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
        if (Number.isNaN(t)) fail('getting min and max timestamp: expected timestamp for series got none');
        s.push(t, p.value, out.samples);
        if (t < out.mintMs) out.mintMs = t;
        if (t > out.maxtMs) out.maxtMs = t;
        out.samples++;
      }
    } catch (e) {
      if (e instanceof InvalidArgumentError) throw e;
      fail(`getting min and max timestamp: next: ${(e as Error).message}`);
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
  if (!eof) fail('getting min and max timestamp: next: data does not end with # EOF');
  return out;
}

/** One block to write: its series (time-ordered) and its [mint, maxt) range. */
export interface PlannedBlock { mintMs: number; maxtMs: number; series: FetchedSeries[]; samples: number }

/**
 * Cuts the input into 2 h-aligned blocks, applying promtool's append/commit order rules. Blocks are
 * produced lazily, one at a time, so only one block's columns are copied at once.
 */
export function* planBlocks(input: BackfillInput, rangeMs = BLOCK_RANGE_MS): Generator<PlannedBlock> {
  if (input.samples === 0) return;
  const start = Math.floor(input.mintMs / rangeMs) * rangeMs;
  for (let from = start; from <= input.maxtMs; from += rangeMs) {
    const b = appendWindow(input.series, from, from + rangeMs);
    if (b !== null) yield b;
  }
}

/** Replays the samples of one window in file order through promtool's appender rules. */
function appendWindow(all: readonly SeriesBuf[], from: number, to: number): PlannedBlock | null {
  const order: number[] = []; // packed (series index, sample index) pairs, sorted by file position below
  const seqs: number[] = [];
  for (let si = 0; si < all.length; si++) {
    const s = all[si];
    for (let i = 0; i < s.n; i++) if (s.t[i] >= from && s.t[i] < to) { order.push(si, i); seqs.push(s.seq[i]); }
  }
  if (seqs.length === 0) return null;
  const idx = Array.from(seqs.keys()).sort((a, b) => seqs[a] - seqs[b]);
  const kept = new Map<number, { t: number[]; v: number[]; committedT: number; committedV: number; batchT: number }>();
  let mint = Infinity, maxt = -Infinity, samples = 0;
  for (let k = 0; k < idx.length; k++) {
    if (k % COMMIT_SAMPLES === 0) for (const st of kept.values()) { st.committedT = st.batchT; st.committedV = st.v[st.v.length - 1]; }
    const si = order[2 * idx[k]], i = order[2 * idx[k] + 1];
    const s = all[si];
    const t = s.t[i], v = s.v[i];
    let st = kept.get(si);
    if (st === undefined) { st = { t: [], v: [], committedT: -Infinity, committedV: NaN, batchT: -Infinity }; kept.set(si, st); }
    if (t < st.committedT) fail(`block creation failed: add sample: out of order sample (series ${formatSeries(s.labels)}, t=${t})`);
    if (t === st.committedT && !sameBits(v, st.committedV)) fail(`block creation failed: add sample: duplicate sample for timestamp (series ${formatSeries(s.labels)}, t=${t})`);
    if (t <= st.batchT) continue; // dropped at commit, as the head appender does
    st.t.push(t);
    st.v.push(v);
    st.batchT = t;
    samples++;
    if (t < mint) mint = t;
    if (t > maxt) maxt = t;
  }
  const series: FetchedSeries[] = [];
  for (const [si, st] of kept) series.push({ labels: all[si].labels, t: Float64Array.from(st.t), v: Float64Array.from(st.v) });
  return { mintMs: mint, maxtMs: maxt + 1, series, samples };
}

const f64 = new Float64Array(2);
const u32 = new Uint32Array(f64.buffer);
function sameBits(a: number, b: number): boolean {
  f64[0] = a; f64[1] = b;
  return u32[0] === u32[2] && u32[1] === u32[3];
}
