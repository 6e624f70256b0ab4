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

  private ensure(n: number): void {
    if (this.off + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.off + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.off);
    this.buf = next;
  }
  /** ASCII text (numbers, punctuation). */
  ascii(s: string): void { this.ensure(s.length); this.off += this.buf.write(s, this.off, 'latin1'); }
  utf8(s: string): void { this.ensure(s.length * 3); this.off += this.buf.write(s, this.off, 'utf8'); }
  bytes(b: Uint8Array): void { this.ensure(b.length); this.buf.set(b, this.off); this.off += b.length; }
  byte(c: number): void { this.ensure(1); this.buf[this.off++] = c; }
  done(): Buffer { return this.buf.subarray(0, this.off); }
}

/** A matrix as the `data` object without its closing brace, UTF-8. */
export function matrixJson(m: Matrix): Buffer {
  const w = new JsonWriter();
  w.ascii('{"resultType":"matrix","result":[');
  // Range results share their step timestamps across series: encode each `[<ts>,"` once.
  const tsBytes = new Map<number, Buffer>();
  for (let k = 0; k < m.length; k++) {
    const s = m[k];
    w.utf8((k ? ',' : '') + '{"metric":' + metricJson(s.metric) + ',"values":[');
    for (let i = 0; i < s.t.length; i++) {
      const t = s.t[i];
      let tb = tsBytes.get(t);
      if (tb === undefined) { tb = Buffer.from('[' + marshalTimestamp(t) + ',"', 'latin1'); tsBytes.set(t, tb); }
      if (i) w.byte(0x2c); // ,
      w.bytes(tb);
      w.ascii(formatSampleValue(s.v[i]));
      w.byte(0x22); w.byte(0x5d); // "]
    }
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
      const ts = marshalTimestamp(r.t);
      w.ascii('{"resultType":"vector","result":[');
      for (let i = 0; i < r.vector.length; i++) {
        const s = r.vector[i];
        w.utf8((i ? ',' : '') + '{"metric":' + metricJson(s.metric) + ',"value":[' + ts + ',"');
        w.ascii(formatSampleValue(s.v) + '"]}');
      }
      w.ascii(']');
      return w.done();
    }
    case 'scalar': return Buffer.from('{"resultType":"scalar","result":[' + goJsonFloat(r.t / 1000) + ',"' + formatFloat(r.v) + '"]');
    case 'string': return Buffer.from('{"resultType":"string","result":[' + goJsonFloat(r.t / 1000) + ',' + jsonString(r.s) + ']');
    case 'matrix': return matrixJson(r.matrix);
  }
}
