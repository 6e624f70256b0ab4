/**
 * A reader written for the one message shape remote write 1.0 sends, `prompb.WriteRequest`
 * (`repeated TimeSeries timeseries = 1`; TimeSeries: `repeated Label labels = 1`, `repeated Sample samples = 2`;
 * Sample: `double value = 1`, `int64 timestamp = 2`). It decodes straight into reused flat columns, with no
 * object per series, label or sample: label strings are not made at all here. Each series instead gets the
 * byte range its label fields span, the key of `RemoteWriteSeries` (as Prometheus's scrape cache keys on the
 * raw series bytes), so a known series costs one hash lookup. Labels are decoded (`readSeriesLabels`) only
 * for a series the cache has not seen.
 *
 * Why not protobufjs: its generated decoder made an object per label and sample and a Long per timestamp;
 * walking its `Reader` by hand still paid a call per varint and an object per sample. bench/remote-write-
 * decode.bench.ts measures both.
 *
 * Errors follow gogo-protobuf's `Unmarshal` (what Prometheus 2.42 answers with in its 400 body): truncation
 * anywhere is `unexpected EOF`, including a nested message running past its parent; a known field with
 * another wire type is `proto: wrong wireType = N for field X`. Unknown fields are skipped, groups included.
 * Label fields are checked only when they are decoded: a cache hit is byte-equal to a key decoded before.
 */
import { InvalidArgumentError } from '../errors.ts';

const TWO_32 = 4294967296;
const EMPTY_BYTES = new Uint8Array(0);

function fail(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }
function eof(): never { fail('unexpected EOF'); }

/**
 * One request decoded into columns. Not re-entrant: the owner decodes a request, uses the view and
 * `clear()`s it before the next. Arrays grow by doubling and are kept; only `[0, count)` is meaningful.
 */
export class WriteRequestView {
  /** The decompressed request the byte ranges point into (held until `clear`). */
  buf: Uint8Array = EMPTY_BYTES;
  seriesCount = 0;
  /** Per series: its TimeSeries message's byte range. */
  seriesStart = new Int32Array(64);
  seriesEnd = new Int32Array(64);
  /**
   * Per series: the range its label fields span, tags included (the cache key); `keyStart` is -1 when the
   * label fields are not contiguous (interleaved with samples: legal, never sent by Prometheus; such a
   * series is decoded every time). Empty (start = end) for a series without labels.
   */
  keyStart = new Int32Array(64);
  keyEnd = new Int32Array(64);
  sampleCount = 0;
  /** Per sample: the index of its series, its timestamp (ms) and value. */
  sampleSeries = new Int32Array(512);
  ts = new Float64Array(512);
  vs = new Float64Array(512);
  /** `vs` as bytes: values are copied bit for bit, so a staleness marker's NaN payload survives. */
  vsBytes = new Uint8Array(this.vs.buffer);

  /** Drops the reference to the request buffer (the columns are kept for the next request). */
  clear(): void {
    this.buf = EMPTY_BYTES;
    this.seriesCount = 0;
    this.sampleCount = 0;
  }

  growSeries(): void {
    const n = this.seriesStart.length * 2;
    this.seriesStart = growInt32(this.seriesStart, n);
    this.seriesEnd = growInt32(this.seriesEnd, n);
    this.keyStart = growInt32(this.keyStart, n);
    this.keyEnd = growInt32(this.keyEnd, n);
  }

  growSamples(): void {
    const n = this.ts.length * 2;
    this.sampleSeries = growInt32(this.sampleSeries, n);
    const ts = new Float64Array(n), vs = new Float64Array(n);
    ts.set(this.ts);
    vs.set(this.vs);
    this.ts = ts;
    this.vs = vs;
    this.vsBytes = new Uint8Array(vs.buffer);
  }
}

function growInt32(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}

/** A position in a buffer; every read is bounded by the `end` of the message it is in. Not re-entrant. */
class ProtoCursor {
  buf: Uint8Array = EMPTY_BYTES;
  pos = 0;

  /** An unsigned varint of up to 10 bytes, as a number (exact below 2^53: tags and lengths are far below). */
  varint(end: number): number {
    const b = this.buf;
    let p = this.pos;
    if (p >= end) eof();
    let c = b[p++];
    if (c < 0x80) { this.pos = p; return c; }
    let v = c & 0x7f, mul = 128;
    for (let i = 1; i < 10; i++) {
      if (p >= end) eof();
      c = b[p++];
      v += (c & 0x7f) * mul;
      if (c < 0x80) { this.pos = p; return v; }
      mul *= 128;
    }
    return fail('proto: integer overflow');
  }

  /**
   * A two's-complement int64 varint (a timestamp) in two 32-bit halves, stored as a number into `out[k]`
   * (stored, not returned: a returned double is boxed when the call is not inlined, one allocation a sample).
   */
  int64(end: number, out: Float64Array, k: number): void {
    const b = this.buf;
    let p = this.pos, lo = 0, hi = 0, c = 0;
    // Invariant: bytes 0-3 fill lo's bits 0-27; byte 4 splits over lo (4 bits) and hi (3 bits).
    for (let i = 0; i < 4; i++) {
      if (p >= end) eof();
      c = b[p++];
      lo |= (c & 0x7f) << (7 * i);
      if (c < 0x80) { this.pos = p; out[k] = lo >>> 0; return; }
    }
    if (p >= end) eof();
    c = b[p++];
    lo |= (c & 0x0f) << 28;
    hi = (c & 0x7f) >>> 4;
    if (c >= 0x80) {
      for (let i = 0; ; i++) {
        if (i === 5) fail('proto: integer overflow');
        if (p >= end) eof();
        c = b[p++];
        hi |= (c & 0x7f) << (7 * i + 3);
        if (c < 0x80) break;
      }
    }
    this.pos = p;
    out[k] = (hi | 0) * TWO_32 + (lo >>> 0);
  }

  /** A length prefix; the bytes it announces must lie within `end`. Returns the end of the field. */
  lengthEnd(end: number): number {
    const len = this.varint(end);
    const to = this.pos + len;
    if (to > end) eof();
    return to;
  }

  /** Skips a field of wire type `wt` whose tag was just read (`msg` names the message for errors). */
  skip(wt: number, end: number, msg: string): void {
    if (wt === 0) this.varint(end);
    else if (wt === 1) this.advance(8, end);
    else if (wt === 2) this.pos = this.lengthEnd(end);
    else if (wt === 5) this.advance(4, end);
    else if (wt === 3) this.skipGroup(end);
    else if (wt === 4) fail(`proto: ${msg}: wiretype end group for non-group`);
    else fail(`proto: illegal wireType ${wt}`);
  }

  advance(n: number, end: number): void {
    if (this.pos + n > end) eof();
    this.pos += n;
  }

  /** Skips a (deprecated) group up to its end-group tag, as gogo's `skip` does. */
  private skipGroup(end: number): void {
    for (;;) {
      const wt = this.varint(end) % 8;
      if (wt === 4) return;
      this.skip(wt, end, 'group');
    }
  }
}

const cursor = new ProtoCursor();

/** The field number of `tag` (tags can exceed 2^31, so no `>>>`). */
function fieldOf(tag: number): number { return Math.floor(tag / 8); }

function checkTag(tag: number, msg: string): void {
  if (tag < 8) fail(`proto: ${msg}: illegal tag ${fieldOf(tag)} (wire type ${tag % 8})`);
}

function wrongWire(tag: number, field: string): never {
  return fail(`proto: wrong wireType = ${tag % 8} for field ${field}`);
}

/**
 * A tag the caller's fast paths did not take in message `msg`: an illegal tag fails, a known field
 * (`fields[n - 1]` is field n's name) with another wire type fails as gogo says, anything else is skipped.
 */
function otherField(c: ProtoCursor, tag: number, end: number, msg: string, fields: readonly string[]): void {
  checkTag(tag, msg);
  const f = fieldOf(tag);
  if (f >= 1 && f <= fields.length) wrongWire(tag, fields[f - 1]);
  c.skip(tag % 8, end, msg);
}

const WRITE_REQUEST_FIELDS = ['Timeseries'] as const;
const TIME_SERIES_FIELDS = ['Labels', 'Samples'] as const;
const SAMPLE_FIELDS = ['Value', 'Timestamp'] as const;

/**
 * Decodes the WriteRequest in `buf` into `out` (cleared first), or throws InvalidArgumentError with gogo's
 * message. Metadata, exemplars and histograms are skipped. `out` refers to `buf` until cleared.
 */
export function readWriteRequest(buf: Uint8Array, out: WriteRequestView): void {
  out.clear();
  out.buf = buf;
  const c = cursor;
  c.buf = buf;
  c.pos = 0;
  const end = buf.length;
  try {
    while (c.pos < end) {
      const tag = c.varint(end);
      if (tag === 0x0a) { const to = c.lengthEnd(end); readSeries(c, to, out); continue; }
      otherField(c, tag, end, 'WriteRequest', WRITE_REQUEST_FIELDS);
    }
  } catch (e) {
    out.clear();
    throw e;
  } finally {
    c.buf = EMPTY_BYTES;
  }
}

/** One TimeSeries ending at `end`: its label key range, then its samples into the columns. */
function readSeries(c: ProtoCursor, end: number, out: WriteRequestView): void {
  const i = out.seriesCount;
  if (i === out.seriesStart.length) out.growSeries();
  out.seriesCount = i + 1;
  out.seriesStart[i] = c.pos;
  out.seriesEnd[i] = end;
  let keyStart = -2, keyEnd = -2; // -2: no label yet
  let contiguous = true;
  while (c.pos < end) {
    const at = c.pos;
    const tag = c.varint(end);
    if (tag === 0x0a) { // label: its bytes are checked when decoded (readSeriesLabels)
      c.pos = c.lengthEnd(end);
      if (keyStart === -2) keyStart = at;
      else if (keyEnd !== at) contiguous = false;
      keyEnd = c.pos;
    } else if (tag === 0x12) {
      const to = c.lengthEnd(end);
      readSample(c, to, out, i);
    } else {
      otherField(c, tag, end, 'TimeSeries', TIME_SERIES_FIELDS);
    }
  }
  if (keyStart === -2) keyStart = keyEnd = end;
  out.keyStart[i] = contiguous ? keyStart : -1;
  out.keyEnd[i] = keyEnd;
}

function readSample(c: ProtoCursor, end: number, out: WriteRequestView, series: number): void {
  const k = out.sampleCount;
  if (k === out.ts.length) out.growSamples();
  out.sampleCount = k + 1;
  out.sampleSeries[k] = series;
  out.ts[k] = 0;
  out.vs[k] = 0;
  while (c.pos < end) {
    const tag = c.varint(end);
    if (tag === 0x09) { // value: fixed64, copied as bytes (the host is little-endian, as protobuf's wire)
      const p = c.pos;
      c.advance(8, end);
      const b = c.buf, vb = out.vsBytes, o = k * 8;
      for (let j = 0; j < 8; j++) vb[o + j] = b[p + j];
    } else if (tag === 0x10) {
      c.int64(end, out.ts, k);
    } else {
      otherField(c, tag, end, 'Sample', SAMPLE_FIELDS);
    }
  }
}

/**
 * The labels of series `i` of a decoded view, in wire order, as flat `[name, value, …]` pairs pushed onto
 * `out` (emptied first). For a series the cache has not seen: it checks the label messages the reader
 * skipped, and throws InvalidArgumentError as `readWriteRequest` does.
 */
export function readSeriesLabels(view: WriteRequestView, i: number, out: string[]): void {
  out.length = 0;
  const c = cursor, buf = view.buf;
  c.buf = buf;
  c.pos = view.seriesStart[i];
  const end = view.seriesEnd[i];
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  try {
    while (c.pos < end) {
      const tag = c.varint(end);
      if (tag !== 0x0a) { c.skip(tag % 8, end, 'TimeSeries'); continue; }
      const to = c.lengthEnd(end);
      let name = '', value = '';
      while (c.pos < to) {
        const t = c.varint(to);
        if (t === 0x0a || t === 0x12) {
          const e = c.lengthEnd(to), s = c.pos;
          c.pos = e;
          if (t === 0x0a) name = text.toString('utf8', s, e); else value = text.toString('utf8', s, e);
        } else {
          checkTag(t, 'Label');
          const f = fieldOf(t);
          if (f === 1) wrongWire(t, 'Name');
          if (f === 2) wrongWire(t, 'Value');
          c.skip(t % 8, to, 'Label');
        }
      }
      out.push(name, value);
    }
  } finally {
    c.buf = EMPTY_BYTES;
  }
}
