/**
 * Prometheus remote-read wire format (`prompb/remote.proto`): a snappy-compressed protobuf `ReadRequest` in,
 * and out either a snappy-compressed `ReadResponse` of samples or, for clients that accept
 * `STREAMED_XOR_CHUNKS`, a stream of `ChunkedReadResponse` frames (`uvarint length · u32be CRC-32C · message`)
 * whose chunks are Prometheus XOR chunks. The few messages are encoded and decoded by hand: a small protobuf
 * writer/reader is enough and keeps protobufjs behind its one adapter (remote-write-codec.ts).
 */
import { InvalidArgumentError } from '../errors.ts';
import { compress, uncompress } from '../codec/snappy.ts';
import { crc32c } from '../codec/crc32c.ts';
import type { Label } from '../tsdb/api.ts';
import { XOR_MAX_SAMPLES, XorAppender } from '../tsdb/xor-chunk.ts';

/** `LabelMatcher.Type`: EQ, NEQ, RE, NRE. */
export interface ReadMatcher { type: 0 | 1 | 2 | 3; name: string; value: string }
export interface ReadQuery { startMs: number; endMs: number; matchers: ReadMatcher[] }
export interface ReadRequest { queries: ReadQuery[]; acceptedResponseTypes: number[] }

export const RESPONSE_SAMPLES = 0;
export const RESPONSE_STREAMED_XOR_CHUNKS = 1;

/** A series as the read path returns it: samples in time order. */
export interface ReadSeries { labels: readonly Label[]; t: ArrayLike<number>; v: ArrayLike<number> }

function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

// ---- reading ----

class PbReader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  varint(): number {
    let v = 0, mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) bad('proto: unexpected end of message');
      const b = this.buf[this.pos++];
      if (i < 8) v += (b & 0x7f) * mul; // beyond 2^56 (negative int64): the value is clamped below
      if (b < 0x80) return i >= 9 ? -1 : v;
      mul *= 128;
    }
    return bad('proto: varint overflow');
  }
  bytes(): Uint8Array {
    const n = this.varint();
    if (this.pos + n > this.buf.length) bad('proto: field overruns its message');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else bad(`proto: unsupported wire type ${wire}`);
  }
}

const utf8 = new TextDecoder();

/** Decodes a compressed `ReadRequest`; throws InvalidArgumentError (→ 400) on bad input. */
export async function decodeReadRequest(body: Uint8Array): Promise<ReadRequest> {
  let raw: Uint8Array;
  try { raw = await uncompress(body); } catch { return bad('snappy: corrupt input'); }
  const r = new PbReader(raw);
  const out: ReadRequest = { queries: [], acceptedResponseTypes: [] };
  while (r.pos < raw.length) {
    const tag = r.varint();
    if (tag === 0x0a) out.queries.push(readQuery(new PbReader(r.bytes())));
    else if (tag === 0x10) out.acceptedResponseTypes.push(r.varint());
    else if (tag === 0x12) { const p = new PbReader(r.bytes()); while (p.pos < p.buf.length) out.acceptedResponseTypes.push(p.varint()); }
    else r.skip(tag & 7);
  }
  return out;
}

function readQuery(r: PbReader): ReadQuery {
  const q: ReadQuery = { startMs: 0, endMs: 0, matchers: [] };
  while (r.pos < r.buf.length) {
    const tag = r.varint();
    if (tag === 0x08) q.startMs = r.varint();
    else if (tag === 0x10) q.endMs = r.varint();
    else if (tag === 0x1a) q.matchers.push(readMatcher(new PbReader(r.bytes())));
    else r.skip(tag & 7);
  }
  return q;
}

function readMatcher(r: PbReader): ReadMatcher {
  const m: ReadMatcher = { type: 0, name: '', value: '' };
  while (r.pos < r.buf.length) {
    const tag = r.varint();
    if (tag === 0x08) { const t = r.varint(); if (t > 3) bad(`invalid matcher type ${t}`); m.type = t as ReadMatcher['type']; }
    else if (tag === 0x12) m.name = utf8.decode(r.bytes());
    else if (tag === 0x1a) m.value = utf8.decode(r.bytes());
    else r.skip(tag & 7);
  }
  return m;
}

// ---- writing ----

/** Appends protobuf fields to a growing buffer; nested messages are written to their own writer first. */
class PbWriter {
  buf = new Uint8Array(256);
  len = 0;
  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  varint(v: number): this {
    this.ensure(10);
    if (v < 0) {
      // Negative int64 (timestamps before 1970): ten-byte two's complement.
      let x = BigInt.asUintN(64, BigInt(v));
      while (x >= 0x80n) { this.buf[this.len++] = Number(x & 0x7fn) | 0x80; x >>= 7n; }
      this.buf[this.len++] = Number(x);
      return this;
    }
    while (v >= 0x80) { this.buf[this.len++] = (v % 128) | 0x80; v = Math.floor(v / 128); }
    this.buf[this.len++] = v;
    return this;
  }
  bytesField(field: number, b: Uint8Array): this {
    this.varint((field << 3) | 2).varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }
  stringField(field: number, s: string): this { return this.bytesField(field, enc.encode(s)); }
  varintField(field: number, v: number): this { return this.varint(field << 3).varint(v); }
  doubleField(field: number, v: number): this {
    this.varint((field << 3) | 1);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, v, true);
    this.len += 8;
    return this;
  }
  finish(): Uint8Array { return this.buf.subarray(0, this.len); }
}

const enc = new TextEncoder();

function labelsMessage(w: PbWriter, field: number, labels: readonly Label[]): void {
  for (const l of labels) w.bytesField(field, new PbWriter().stringField(1, l.name).stringField(2, l.value).finish());
}

/** A compressed `ReadResponse`: one `QueryResult` per query, each series with its samples. */
export async function encodeReadResponse(results: readonly (readonly ReadSeries[])[]): Promise<Buffer> {
  const w = new PbWriter();
  for (const series of results) {
    const qr = new PbWriter();
    for (const s of series) {
      const ts = new PbWriter();
      labelsMessage(ts, 1, s.labels);
      for (let i = 0; i < s.t.length; i++) ts.bytesField(2, new PbWriter().doubleField(1, s.v[i]).varintField(2, s.t[i]).finish());
      qr.bytesField(1, ts.finish());
    }
    w.bytesField(1, qr.finish());
  }
  return compress(w.finish());
}

/** XOR chunks of at most 120 samples, as Prometheus cuts them, with their time ranges. */
export function xorChunks(t: ArrayLike<number>, v: ArrayLike<number>): { minMs: number; maxMs: number; data: Uint8Array }[] {
  const out: { minMs: number; maxMs: number; data: Uint8Array }[] = [];
  for (let i = 0; i < t.length; i += XOR_MAX_SAMPLES) {
    const app = new XorAppender();
    const end = Math.min(t.length, i + XOR_MAX_SAMPLES);
    for (let j = i; j < end; j++) app.append(t[j], v[j]);
    out.push({ minMs: t[i], maxMs: t[end - 1], data: app.bytes().slice() });
  }
  return out;
}

/** One stream frame: a `ChunkedReadResponse` holding `series` for query `queryIndex`. */
export function encodeChunkedFrame(queryIndex: number, series: readonly ReadSeries[]): Uint8Array {
  const msg = new PbWriter();
  for (const s of series) {
    const cs = new PbWriter();
    labelsMessage(cs, 1, s.labels);
    for (const c of xorChunks(s.t, s.v)) {
      cs.bytesField(2, new PbWriter().varintField(1, c.minMs).varintField(2, c.maxMs).varintField(3, 1).bytesField(4, c.data).finish());
    }
    msg.bytesField(1, cs.finish());
  }
  if (queryIndex !== 0) msg.varintField(2, queryIndex);
  const data = msg.finish();
  const frame = new PbWriter().varint(data.length);
  const crc = new Uint8Array(4);
  new DataView(crc.buffer).setUint32(0, crc32c(data) >>> 0, false);
  const head = frame.finish();
  const out = new Uint8Array(head.length + 4 + data.length);
  out.set(head, 0);
  out.set(crc, head.length);
  out.set(data, head.length + 4);
  return out;
}

/** Encodes a compressed `ReadRequest` (Tessera as a remote-read client, and tests). */
export async function encodeReadRequest(req: ReadRequest): Promise<Buffer> {
  const w = new PbWriter();
  for (const q of req.queries) {
    const qw = new PbWriter().varintField(1, q.startMs).varintField(2, q.endMs);
    for (const m of q.matchers) qw.bytesField(3, new PbWriter().varintField(1, m.type).stringField(2, m.name).stringField(3, m.value).finish());
    w.bytesField(1, qw.finish());
  }
  for (const t of req.acceptedResponseTypes) w.varintField(2, t);
  return compress(w.finish());
}

/** Decodes a compressed samples `ReadResponse` into one series list per query. */
export async function decodeReadResponse(body: Uint8Array): Promise<{ labels: Label[]; t: number[]; v: number[] }[][]> {
  let raw: Uint8Array;
  try { raw = await uncompress(body); } catch { return bad('snappy: corrupt input'); }
  const r = new PbReader(raw);
  const out: { labels: Label[]; t: number[]; v: number[] }[][] = [];
  while (r.pos < raw.length) {
    const tag = r.varint();
    if (tag !== 0x0a) { r.skip(tag & 7); continue; }
    const qr = new PbReader(r.bytes());
    const series: { labels: Label[]; t: number[]; v: number[] }[] = [];
    while (qr.pos < qr.buf.length) {
      const qt = qr.varint();
      if (qt !== 0x0a) { qr.skip(qt & 7); continue; }
      series.push(readTimeSeries(new PbReader(qr.bytes())));
    }
    out.push(series);
  }
  return out;
}

function readTimeSeries(r: PbReader): { labels: Label[]; t: number[]; v: number[] } {
  const s = { labels: [] as Label[], t: [] as number[], v: [] as number[] };
  while (r.pos < r.buf.length) {
    const tag = r.varint();
    if (tag === 0x0a) {
      const lr = new PbReader(r.bytes());
      const l = { name: '', value: '' };
      while (lr.pos < lr.buf.length) {
        const lt = lr.varint();
        if (lt === 0x0a) l.name = utf8.decode(lr.bytes()); else if (lt === 0x12) l.value = utf8.decode(lr.bytes()); else lr.skip(lt & 7);
      }
      s.labels.push(l);
    } else if (tag === 0x12) {
      const sr = new PbReader(r.bytes());
      let t = 0, v = 0;
      while (sr.pos < sr.buf.length) {
        const st = sr.varint();
        if (st === 0x09) { v = new DataView(sr.buf.buffer, sr.buf.byteOffset + sr.pos, 8).getFloat64(0, true); sr.pos += 8; }
        else if (st === 0x10) t = sr.varint();
        else sr.skip(st & 7);
      }
      s.t.push(t); s.v.push(v);
    } else r.skip(tag & 7);
  }
  return s;
}
