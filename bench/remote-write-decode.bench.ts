/**
 * Remote-write decoding on the main thread (src/engine/remote), without network, snappy or storage.
 *
 * Measured, on one decompressed WriteRequest of 500 series with one sample each (the load test's request:
 * `rw_load{series="N",shard="N%16"}`, timestamps around 1.7e12 ms):
 *  - reader: `readWriteRequest` into reused columns (what the receiver runs);
 *  - reader + cache: the same plus `RemoteWriteSeries.resolve` per series, all hits (the receiver's steady state);
 *  - protobufjs Reader: the receiver's previous decoder, kept here as the baseline — protobufjs's `Reader`
 *    walked by hand into one `{labels, t, v}` object per sample with label strings per series;
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
const cache = new RemoteWriteSeries(() => null);
readWriteRequest(raw, view);
for (let i = 0; i < view.seriesCount; i++) cache.resolve(view, i, 0);

// The previous decoder (src/engine/remote/remote-write-codec.ts before the hand-written reader), minus its checks.
function protobufjsReader(buf: Uint8Array): { labels: Label[]; t: number; v: number }[] {
  const out: { labels: Label[]; t: number; v: number }[] = [];
  const r = protobuf.Reader.create(buf);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag !== 0x0a) { r.skipType(tag & 7); continue; }
    const end = r.uint32() + r.pos;
    const labels: Label[] = [];
    const first = out.length;
    while (r.pos < end) {
      const t2 = r.uint32();
      if (t2 === 0x0a) {
        const le = r.uint32() + r.pos;
        let name = '', value = '';
        while (r.pos < le) { const t3 = r.uint32(); if (t3 === 0x0a) name = r.string(); else if (t3 === 0x12) value = r.string(); else r.skipType(t3 & 7); }
        labels.push({ name, value });
      } else if (t2 === 0x12) {
        const se = r.uint32() + r.pos;
        let v = 0, t = 0;
        while (r.pos < se) { const t3 = r.uint32(); if (t3 === 0x09) v = r.double(); else if (t3 === 0x10) t = Number(r.int64()); else r.skipType(t3 & 7); }
        out.push({ labels, t, v });
      } else r.skipType(t2 & 7);
    }
    labels.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (let i = first; i < out.length; i++) out[i].labels = labels;
  }
  return out;
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
    for (let i = 0; i < view.seriesCount; i++) sink += cache.resolve(view, i, 0).labels.length;
    view.clear();
  }],
  ['protobufjs Reader (previous)', () => { sink += protobufjsReader(raw).length; }],
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
