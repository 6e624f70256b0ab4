/**
 * Prometheus's JSON encoding of query results (the `data` member of the API envelope), byte for byte:
 * points' timestamps as seconds with exactly three decimals when not whole (`jsonutil.MarshalTimestamp`),
 * values as strings (`1e+21`, `1.5e-07`, `+Inf`, `-0`), scalars' and strings' times with Go's float encoding.
 * Lives in the engine so the query worker can encode off the HTTP thread.
 */
import type { Labels } from '../tsdb/api.ts';
import { formatFloat, formatSampleValue } from './format.ts';
import type { Matrix, QueryResult } from './value.ts';

/** Go's encoding/json string escaping (HTML-safe: <, >, & become \u003c…). */
export function jsonString(s: string): string {
  // Label names and values are nearly always plain printable ASCII: no escaping, no regex pass.
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) { plain = false; break; }
  }
  if (plain) return '"' + s + '"';
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function marshalTimestamp(ms: number): string {
  let out = '';
  if (ms < 0) { out = '-'; ms = -ms; }
  out += Math.floor(ms / 1000);
  const frac = ms % 1000;
  if (frac !== 0) out += '.' + String(frac).padStart(3, '0');
  return out;
}

export function metricJson(ls: Labels): string {
  let out = '{';
  for (let i = 0; i < ls.length; i++) out += (i ? ',' : '') + jsonString(ls[i].name) + ':' + jsonString(ls[i].value);
  return out + '}';
}

function goJsonFloat(v: number): string { return String(v); }

/**
 * Appends JSON text straight into a growing byte buffer: large results are millions of tiny pieces, and
 * concatenating them as strings costs more in garbage collection than the formatting itself.
 */
class JsonWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private off = 0;
  /**
   * Filled pieces of a long text, joined once by `done` into a buffer of the text's length, which crosses to
   * the HTTP thread as it is (transferred). One buffer doubled by copy, then copied out of to be transferred,
   * touched about four times the bytes of a long range query's result (42 MB for 1,000 series over 6 h at
   * 15 s) and held two such buffers at once. (A resizable buffer grown in place avoided the copies, but byte
   * writes through views of one were several times slower in this V8: the 6 h range query took 1.8× as long.)
   */
  private full: Buffer[] = [];
  private fullBytes = 0;

  private ensure(n: number): void {
    if (this.off + n <= this.buf.length) return;
    this.full.push(this.buf.subarray(0, this.off));
    this.fullBytes += this.off;
    this.buf = Buffer.allocUnsafe(Math.max(n, Math.min(this.buf.length * 2, MAX_PIECE_BYTES)));
    this.off = 0;
  }
  /** ASCII text (numbers, punctuation). A byte loop: Buffer#write costs more than the copy for short text. */
  ascii(s: string): void {
    this.ensure(s.length);
    const b = this.buf;
    let o = this.off;
    for (let i = 0; i < s.length; i++) b[o++] = s.charCodeAt(i);
    this.off = o;
  }
  /**
   * A sample value as `formatSampleValue` prints it. Integers below 2^53 (counters, the common case) are
   * written digit by digit with no string; -0 and everything else go through the formatter.
   */
  sampleValue(v: number): void {
    if (v === 0 || v !== Math.floor(v) || v > 9007199254740991 || v < -9007199254740991) { this.ascii(formatSampleValue(v)); return; }
    this.ensure(17);
    const b = this.buf;
    if (v < 0) { b[this.off++] = 0x2d; v = -v; }
    let digits = 1;
    for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
    // Invariant: v is a positive integer below 2^53, so % and / by 10 are exact.
    let o = this.off + digits;
    this.off = o;
    do { const q = Math.floor(v / 10); b[--o] = 0x30 + (v - q * 10); v = q; } while (v > 0);
  }
  /** Any text; ASCII (label sets nearly always are) is copied by the byte loop, the rest by Buffer#write. */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    const b = this.buf;
    let o = this.off;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) { this.off += b.write(s, this.off, 'utf8'); return; }
      b[o++] = c;
    }
    this.off = o;
  }
  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    const b = this.buf;
    let o = this.off;
    for (let i = 0; i < src.length; i++) b[o++] = src[i];
    this.off = o;
  }
  byte(c: number): void { this.ensure(1); this.buf[this.off++] = c; }
  /** Bytes written so far: the offset in `done()`'s text of what is written next. */
  get position(): number { return this.fullBytes + this.off; }
  /** A label set as `metricJson` prints it, written in place (no string per series). */
  metric(ls: Labels): void {
    this.byte(0x7b); // {
    for (let i = 0; i < ls.length; i++) {
      if (i) this.byte(0x2c); // ,
      this.jsonString(ls[i].name);
      this.byte(0x3a); // :
      this.jsonString(ls[i].value);
    }
    this.byte(0x7d); // }
  }
  /** `jsonString(s)`: plain printable ASCII copied between quotes, anything else through it. */
  private jsonString(s: string): void {
    this.ensure(s.length + 2);
    const b = this.buf;
    let o = this.off;
    b[o++] = 0x22;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) { this.utf8(jsonString(s)); return; }
      b[o++] = c;
    }
    b[o++] = 0x22;
    this.off = o;
  }
  done(): Buffer {
    if (this.full.length === 0) return this.buf.subarray(0, this.off);
    // A buffer of its own (not a slice of Node's pool), so it is transferred without another copy.
    const out = Buffer.allocUnsafeSlow(this.fullBytes + this.off);
    let at = 0;
    for (const piece of this.full) { out.set(piece, at); at += piece.length; }
    out.set(this.buf.subarray(0, this.off), at);
    this.full = [];
    return out;
  }
}

/** The largest piece a long text is written in (pieces double from 64 KB up to this). */
const MAX_PIECE_BYTES = 8 * 1024 * 1024;

/**
 * Where series `k` of `matrixJson`'s text lies, as four offsets from `index[k * SERIES_INDEX_FIELDS]`: its
 * `metric` object `[start, end)`, then its points between the brackets of `values` `[start, end)`.
 */
export const SERIES_INDEX_FIELDS = 4;

/**
 * A matrix as the `data` object without its closing brace, UTF-8. `startMs`/`stepMs` (a range query's grid)
 * let point timestamps be looked up by step index instead of in a map keyed by boxed doubles. `index`, when
 * given (`m.length * SERIES_INDEX_FIELDS` long), is filled with where each series lies in the text.
 */
export function matrixJson(m: Matrix, startMs = 0, stepMs = 0, index: Float64Array | null = null): Buffer {
  const w = new JsonWriter();
  w.ascii('{"resultType":"matrix","result":[');
  // Range results share their step timestamps across series: encode each `[<ts>,"` once.
  const tsBytes = new Map<number, Buffer>();
  const byStep: (Buffer | undefined)[] = [];
  for (let k = 0; k < m.length; k++) {
    const s = m[k];
    w.ascii(k ? ',{"metric":' : '{"metric":');
    if (index !== null) index[k * SERIES_INDEX_FIELDS] = w.position;
    w.metric(s.metric);
    if (index !== null) index[k * SERIES_INDEX_FIELDS + 1] = w.position;
    w.ascii(',"values":[');
    if (index !== null) index[k * SERIES_INDEX_FIELDS + 2] = w.position;
    for (let i = 0; i < s.t.length; i++) {
      const t = s.t[i];
      const step = stepMs > 0 ? (t - startMs) / stepMs : -1;
      let tb: Buffer | undefined;
      if (step >= 0 && step === Math.floor(step) && step < 1e6) {
        tb = byStep[step];
        if (tb === undefined) { tb = Buffer.from('[' + marshalTimestamp(t) + ',"', 'latin1'); byStep[step] = tb; }
      } else {
        tb = tsBytes.get(t);
        if (tb === undefined) { tb = Buffer.from('[' + marshalTimestamp(t) + ',"', 'latin1'); tsBytes.set(t, tb); }
      }
      if (i) w.byte(0x2c); // ,
      w.bytes(tb);
      w.sampleValue(s.v[i]);
      w.byte(0x22); w.byte(0x5d); // "]
    }
    if (index !== null) index[k * SERIES_INDEX_FIELDS + 3] = w.position;
    w.ascii(']}');
  }
  w.ascii(']');
  return w.done();
}

/** The `data` object, without its closing brace so that `stats` can be appended; UTF-8. */
export function resultJsonOpen(r: QueryResult): Buffer {
  switch (r.type) {
    case 'vector': {
      const w = new JsonWriter();
      const value = ',"value":[' + marshalTimestamp(r.t) + ',"';
      w.ascii('{"resultType":"vector","result":[');
      for (let i = 0; i < r.vector.length; i++) {
        const s = r.vector[i];
        w.ascii(i ? ',{"metric":' : '{"metric":');
        w.metric(s.metric);
        w.ascii(value);
        w.sampleValue(s.v);
        w.ascii('"]}');
      }
      w.ascii(']');
      return w.done();
    }
    case 'scalar': return Buffer.from('{"resultType":"scalar","result":[' + goJsonFloat(r.t / 1000) + ',"' + formatFloat(r.v) + '"]');
    case 'string': return Buffer.from('{"resultType":"string","result":[' + goJsonFloat(r.t / 1000) + ',' + jsonString(r.s) + ']');
    case 'matrix': return matrixJson(r.matrix);
  }
}
