/**
 * Prometheus remote-write 1.0 wire format: a snappy (block format) compressed protobuf `WriteRequest`.
 * The schema below is the subset of `prompb/remote.proto` + `types.proto` that 1.0 senders use for float
 * samples; exemplars, native histograms and metadata fields are declared so they decode, and are ignored.
 */
import protobuf from 'protobufjs';
import { InvalidArgumentError } from '../errors.ts';
import { compress, uncompress } from '../codec/snappy.ts';
import type { Label } from '../tsdb/api.ts';
import type { IngestSample } from '../scrape/sample-sink.ts';

const SCHEMA = `
syntax = "proto3";
package prometheus;
message WriteRequest {
  repeated TimeSeries timeseries = 1;
  repeated MetricMetadata metadata = 3;
}
message MetricMetadata {
  int32 type = 1;
  string metric_family_name = 2;
  string help = 4;
  string unit = 5;
}
message Sample {
  double value = 1;
  int64 timestamp = 2;
}
message Exemplar {
  repeated Label labels = 1;
  double value = 2;
  int64 timestamp = 3;
}
message TimeSeries {
  repeated Label labels = 1;
  repeated Sample samples = 2;
  repeated Exemplar exemplars = 3;
}
message Label {
  string name = 1;
  string value = 2;
}
`;

const WriteRequest = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('prometheus.WriteRequest');

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TWO_32 = 4294967296;

function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

/**
 * Decodes a remote-write body into samples. Throws InvalidArgumentError (→ 400) on bad input.
 *
 * Decoding walks the message with protobufjs's `Reader` instead of `WriteRequest.decode`: the generated
 * decoder builds a message object per label and sample and a Long per timestamp, which made decoding the
 * main cost of the receive path (about 3× slower, measured). Unknown fields are skipped, as protobuf does.
 */
export async function decodeWriteRequest(body: Uint8Array): Promise<IngestSample[]> {
  let raw: Buffer;
  try {
    raw = await uncompress(body);
  } catch {
    bad('snappy: corrupt input');
  }
  const out: IngestSample[] = [];
  try {
    const r = protobuf.Reader.create(raw);
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === 0x0a) readSeries(r, r.uint32() + r.pos, out); // field 1, length-delimited: TimeSeries
      else r.skipType(tag & 7);
    }
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw e;
    bad(`proto: ${(e as Error).message}`);
  }
  return out;
}

function readSeries(r: protobuf.Reader, end: number, out: IngestSample[]): void {
  const labels: Label[] = [];
  const first = out.length;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0x0a) labels.push(readLabel(r, r.uint32() + r.pos));
    else if (tag === 0x12) readSample(r, r.uint32() + r.pos, out);
    else r.skipType(tag & 7); // exemplars, histograms
  }
  if (r.pos !== end) bad('proto: field overruns its message');
  const norm = normaliseLabels(labels);
  for (let i = first; i < out.length; i++) out[i].labels = norm;
}

function readLabel(r: protobuf.Reader, end: number): Label {
  let name = '', value = '';
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0x0a) name = r.string();
    else if (tag === 0x12) value = r.string();
    else r.skipType(tag & 7);
  }
  return { name, value };
}

const NO_LABELS: Label[] = [];

function readSample(r: protobuf.Reader, end: number, out: IngestSample[]): void {
  let v = 0, t = 0;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 0x09) v = r.double(); // field 1, fixed64
    else if (tag === 0x10) t = readInt64(r); // field 2, varint
    else r.skipType(tag & 7);
  }
  out.push({ labels: NO_LABELS, t, v });
}

/** An int64 varint as a JS number (exact below 2^53); negative values take protobufjs's Long path. */
function readInt64(r: protobuf.Reader): number {
  const buf = r.buf;
  let pos = r.pos;
  let value = 0, mul = 1;
  for (let i = 0; i < 8; i++) {
    const b = buf[pos++];
    value += (b & 0x7f) * mul;
    if (b < 0x80) { r.pos = pos; return value; }
    mul *= 128;
  }
  const l = r.int64() as unknown as number | { low: number; high: number };
  return typeof l === 'number' ? l : l.high * TWO_32 + (l.low >>> 0);
}

/** Sorted, validated, empty values dropped; the same label set object is shared by the series' samples. */
function normaliseLabels(input: Label[]): Label[] {
  let sorted = true;
  let labels = input;
  for (let i = 0; i < input.length; i++) {
    const l = input[i];
    if (!LABEL_NAME_RE.test(l.name)) bad(`invalid label name: "${l.name}"`);
    if (l.value === '') { labels = input.filter((x) => x.value !== ''); }
    if (i > 0 && input[i - 1].name >= l.name) sorted = false;
  }
  if (!sorted) {
    labels = labels === input ? input.slice() : labels;
    labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (let i = 1; i < labels.length; i++) if (labels[i].name === labels[i - 1].name) bad(`duplicate label with name: ${labels[i].name}`);
  }
  let hasName = false;
  for (let i = 0; i < labels.length; i++) if (labels[i].name === '__name__') { hasName = true; break; }
  if (!hasName) bad('invalid metric name: missing __name__ label');
  return labels;
}

/** Encodes samples as a compressed WriteRequest, grouping consecutive samples of the same label set. */
export async function encodeWriteRequest(samples: readonly IngestSample[]): Promise<Buffer> {
  const series: { labels: Label[]; samples: { value: number; timestamp: number }[] }[] = [];
  const index = new Map<readonly Label[], number>();
  for (const s of samples) {
    let i = index.get(s.labels);
    if (i === undefined) {
      i = series.length;
      index.set(s.labels, i);
      series.push({ labels: s.labels.map((l) => ({ name: l.name, value: l.value })), samples: [] });
    }
    series[i].samples.push({ value: s.v, timestamp: s.t });
  }
  for (const ts of series) ts.samples.sort((a, b) => a.timestamp - b.timestamp);
  const bytes = WriteRequest.encode({ timeseries: series }).finish();
  return compress(bytes);
}
