/**
 * Remote-write decoding on the main thread (src/engine/remote), without network, snappy or storage.
 *
 * Measured, on one decompressed WriteRequest of 500 series with one sample each (the load test's request:
 * `rw_load{series="N",shard="N%16"}`, timestamps around 1.7e12 ms):
 *  - reader: `readWriteRequest` into reused columns (what the receiver runs);
 *  - reader + cache: the same plus `RemoteWriteSeries.resolve` per series, all hits (the receiver's steady state);
 *  - protobufjs Reader: the receiver's previous decoder, copied here as the baseline — protobufjs's `Reader`
 *    walked by hand into one `{labels, t, v}` object per sample, label strings and checks per series;
 *  - protobufjs decode: the generated `WriteRequest.decode` (a message object per label and sample, a Long
 *    per timestamp), which that decoder had replaced.
 * Reported as ns per sample and M samples/s, and heap bytes allocated per request (run with --expose-gc for
 * the allocation column). Data: deterministic.
 *
 * Run: node --expose-gc --import tsx bench/remote-write-decode.bench.ts   (about 10 s; `--quick` shortens it)
 */
import { Bench } from 'tinybench';
import protobuf from 'protobufjs';
import { encodeWriteRequest } from '../src/engine/remote/remote-write-codec.ts';
import { readWriteRequest, WriteRequestView } from '../src/engine/remote/write-request-reader.ts';
import { RemoteWriteSeries } from '../src/engine/remote/remote-write-series.ts';
import { uncompressSync } from '../src/engine/codec/snappy.ts';
import type { Label } from '../src/engine/tsdb/api.ts';
import type { IngestSample } from '../src/engine/scrape/sample-sink.ts';
import { InvalidArgumentError } from '../src/engine/errors.ts';

const SERIES = 500;
const quick = process.argv.includes('--quick');
const TASK_MS = quick ? 300 : 2000;

const samples = Array.from({ length: SERIES }, (_, i) => ({
  labels: [{ name: '__name__', value: 'rw_load' }, { name: 'series', value: String(i) }, { name: 'shard', value: String(i % 16) }],
  t: 1_700_000_000_000 + i, v: i * 1.5,
}));
const raw = uncompressSync(await encodeWriteRequest(samples));
let sink = 0;

const view = new WriteRequestView();
const cache = new RemoteWriteSeries();
readWriteRequest(raw, view);
for (let i = 0; i < view.seriesCount; i++) cache.resolve(view, i, 0);

// The previous decoder, as it was in src/engine/remote/remote-write-codec.ts (a1d8720) minus snappy.
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TWO_32 = 4294967296;

function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

/**
 * (previous) Decodes a remote-write body into samples. Throws InvalidArgumentError (→ 400) on bad input.
 *
 * Decoding walks the message with protobufjs's `Reader` instead of `WriteRequest.decode`: the generated
 * decoder builds a message object per label and sample and a Long per timestamp, which made decoding the
 * main cost of the receive path (about 3× slower, measured). Unknown fields are skipped, as protobuf does.
 */
function previousDecode(raw: Uint8Array): IngestSample[] {
  const out: IngestSample[] = [];
  const r = protobuf.Reader.create(raw);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === 0x0a) readSeries(r, r.uint32() + r.pos, out);
    else r.skipType(tag & 7);
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

const SCHEMA = `syntax = "proto3"; package p;
message WriteRequest { repeated TimeSeries timeseries = 1; }
message TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; }
message Label { string name = 1; string value = 2; }
message Sample { double value = 1; int64 timestamp = 2; }`;
const WriteRequest = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('p.WriteRequest');

const gc = (globalThis as { gc?: () => void }).gc;
/** Heap bytes allocated per call, over `n` calls (needs --expose-gc; NaN without it). */
function allocBytes(fn: () => void, n = 200): number {
  if (!gc) return NaN;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) fn();
  return (process.memoryUsage().heapUsed - before) / n;
}

const tasks: [string, () => void][] = [
  ['reader', () => { readWriteRequest(raw, view); sink += view.sampleCount; view.clear(); }],
  ['reader + cache (hits)', () => {
    readWriteRequest(raw, view);
    for (let i = 0; i < view.seriesCount; i++) sink += cache.resolve(view, i, 0);
    view.clear();
  }],
  ['protobufjs Reader (previous)', () => { sink += previousDecode(raw).length; }],
  ['protobufjs decode (generated)', () => { sink += (WriteRequest.decode(raw) as unknown as { timeseries: unknown[] }).timeseries.length; }],
];

const bench = new Bench({ time: TASK_MS, iterations: 5, warmupTime: quick ? 100 : 500, warmupIterations: 2 });
for (const [name, fn] of tasks) bench.add(name, fn);
await bench.run();
const rows = bench.tasks.map((t, k) => {
  // Median, not mean: this machine is shared and a few descheduled iterations skew the mean.
  const ms = (t.result as unknown as { latency?: { p50: number } }).latency?.p50 ?? NaN;
  return {
    task: t.name, 'µs/request (p50)': (ms * 1000).toFixed(1), 'ns/sample': (ms * 1e6 / SERIES).toFixed(0),
    'M samples/s': (SERIES / ms / 1000).toFixed(2), 'heap B/request': Math.round(allocBytes(tasks[k][1])),
  };
});
console.table(rows);
console.log(`request ${raw.length} bytes, ${SERIES} series × 1 sample; sink ${sink > 0 ? 'ok' : 'empty'}`);
