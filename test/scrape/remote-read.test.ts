/**
 * `POST /api/v1/read` on a real Tessera: samples responses, streamed XOR-chunk responses (frames checked
 * with CRC-32C and decoded with an independent protobuf schema), external labels added and matched; and
 * the real Prometheus 2.42 reading Tessera through `remote_read` (skipped without Debian's prometheus).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';
import { NO_PROMETHEUS, startPrometheus } from '../support/real-prometheus.ts';
import { encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import { decodeReadResponse, encodeReadRequest, RESPONSE_SAMPLES, RESPONSE_STREAMED_XOR_CHUNKS, type ReadMatcher } from '../../src/engine/remote/remote-read-codec.ts';
import { decodeXor } from '../../src/engine/tsdb/xor-chunk.ts';
import { crc32c } from '../../src/engine/codec/crc32c.ts';
import type { Label } from '../../src/engine/tsdb/api.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';

const dir = mkdtempSync(join(tmpdir(), 'tessera-remote-read-'));
const cfg = join(dir, 'prometheus.yml');
writeFileSync(cfg, 'global: {external_labels: {dc: eu}}\n');
const server = await startServer({ services: ['metrics'], args: ['--config.file', cfg, '--web.enable-remote-write-receiver'] });
after(async () => { await server.destroy(); rmSync(dir, { recursive: true, force: true }); });

const lbl = (o: Record<string, string>): Label[] => Object.entries(o).map(([name, value]) => ({ name, value })).sort((a, b) => (a.name < b.name ? -1 : 1));
const T0 = Date.now() - 3_600_000;
const a = lbl({ __name__: 'rr_metric', job: 'app', instance: 'h:1' });
const b = lbl({ __name__: 'rr_metric', job: 'db' });
const samples: IngestSample[] = [];
for (let i = 0; i < 300; i++) samples.push({ labels: a, t: T0 + i * 10_000, v: i });
samples.push({ labels: b, t: T0, v: 42 });
const w = await fetch(`${server.promUrl}/api/v1/write`, {
  method: 'POST', body: await encodeWriteRequest(samples),
  headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
});
assert.equal(w.status, 204);

const EQ = (name: string, value: string): ReadMatcher => ({ type: 0, name, value });

async function read(matchers: ReadMatcher[], types: number[], start = T0, end = T0 + 3_000_000): Promise<Response> {
  return fetch(`${server.promUrl}/api/v1/read`, {
    method: 'POST', body: await encodeReadRequest({ queries: [{ startMs: start, endMs: end, matchers }], acceptedResponseTypes: types }),
    headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Read-Version': '0.1.0' },
  });
}

test('samples response: matching series with external labels; an equality matcher on an external label is dropped', async () => {
  const r = await read([EQ('__name__', 'rr_metric'), EQ('dc', 'eu')], [RESPONSE_SAMPLES]);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/x-protobuf');
  assert.equal(r.headers.get('content-encoding'), 'snappy');
  const [series] = await decodeReadResponse(new Uint8Array(await r.arrayBuffer()));
  assert.deepEqual(series.map((s) => s.labels), [
    lbl({ __name__: 'rr_metric', dc: 'eu', instance: 'h:1', job: 'app' }), lbl({ __name__: 'rr_metric', dc: 'eu', job: 'db' }),
  ]);
  assert.equal(series[0].t.length, 300);
  assert.deepEqual([series[0].t[299], series[0].v[299]], [T0 + 2_990_000, 299]);
  const none = await decodeReadResponse(new Uint8Array(await (await read([EQ('__name__', 'rr_metric'), EQ('dc', 'us')], [])).arrayBuffer()));
  assert.deepEqual(none, [[]], 'dc="us" matches no series: the external label is dc="eu"');
});

const CHUNKED = protobuf.parse(`syntax = "proto3"; package prometheus;
message Label { string name = 1; string value = 2; }
message Chunk { int64 min_time_ms = 1; int64 max_time_ms = 2; enum Encoding { UNKNOWN = 0; XOR = 1; } Encoding type = 3; bytes data = 4; }
message ChunkedSeries { repeated Label labels = 1; repeated Chunk chunks = 2; }
message ChunkedReadResponse { repeated ChunkedSeries chunked_series = 1; int64 query_index = 2; }`, { keepCase: true }).root.lookupType('prometheus.ChunkedReadResponse');

test('streamed response: CRC-checked frames of XOR chunks of at most 120 samples', async () => {
  const r = await read([EQ('job', 'app')], [RESPONSE_STREAMED_XOR_CHUNKS, RESPONSE_SAMPLES]);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse');
  const buf = new Uint8Array(await r.arrayBuffer());
  const frames: protobuf.Message[] = [];
  for (let pos = 0; pos < buf.length;) {
    let len = 0, shift = 0, byte;
    do { byte = buf[pos++]; len |= (byte & 0x7f) << shift; shift += 7; } while (byte & 0x80);
    const crc = new DataView(buf.buffer, buf.byteOffset + pos, 4).getUint32(0, false);
    const data = buf.subarray(pos + 4, pos + 4 + len);
    assert.equal(crc32c(data) >>> 0, crc, 'frame checksum');
    frames.push(CHUNKED.decode(data));
    pos += 4 + len;
  }
  assert.equal(frames.length, 1);
  const obj = CHUNKED.toObject(frames[0], { longs: Number }) as { chunked_series: { labels: Label[]; chunks: { min_time_ms: number; max_time_ms: number; type: number; data: Uint8Array }[] }[] };
  const [s] = obj.chunked_series;
  assert.deepEqual(s.labels, lbl({ __name__: 'rr_metric', dc: 'eu', instance: 'h:1', job: 'app' }));
  assert.deepEqual(s.chunks.map((c) => [c.min_time_ms, c.max_time_ms, c.type]), [
    [T0, T0 + 1_190_000, 1], [T0 + 1_200_000, T0 + 2_390_000, 1], [T0 + 2_400_000, T0 + 2_990_000, 1],
  ]);
  const t = new Float64Array(120), v = new Float64Array(120);
  assert.equal(decodeXor(s.chunks[2].data, t, v), 60);
  assert.deepEqual([t[59], v[59]], [T0 + 2_990_000, 299]);
});

test('a body that is not a snappy ReadRequest is a 400', async () => {
  const r = await fetch(`${server.promUrl}/api/v1/read`, { method: 'POST', body: 'nonsense' });
  assert.equal(r.status, 400);
});

test('the real Prometheus reads Tessera through remote_read', { skip: NO_PROMETHEUS }, async () => {
  const prom = await startPrometheus(`remote_read:\n  - url: ${server.promUrl}/api/v1/read\n    read_recent: true\n`);
  try {
    const at = (T0 + 2_990_000) / 1000;
    const body = await waitFor('rr_metric through remote read', async () => {
      const r = await (await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent('rr_metric{job="app"}')}&time=${at}`)).json() as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      return r.data.result.length ? r.data : null;
    }, 60_000);
    assert.deepEqual(body.result[0].metric, { __name__: 'rr_metric', dc: 'eu', instance: 'h:1', job: 'app' });
    assert.equal(body.result[0].value[1], '299');
    const sum = await (await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent('sum_over_time(rr_metric{job="app"}[1h])')}&time=${at}`)).json() as { data: { result: { value: [number, string] }[] } };
    assert.equal(sum.data.result[0].value[1], String((299 * 300) / 2));
  } finally {
    await prom.stop();
  }
});

test('remote_read in the config: PromQL on Tessera reads another store, honouring required_matchers', async () => {
  const aCfg = join(dir, 'reader.yml');
  const write = (extra: string): void => writeFileSync(aCfg, `global: {external_labels: {dc: eu}}
remote_read:
  - url: ${server.promUrl}/api/v1/read
    read_recent: true
${extra}`);
  write('');
  const reader = await startServer({ services: ['metrics'], args: ['--config.file', aCfg, '--web.enable-lifecycle'] });
  try {
    const query = async (expr: string) => {
      const r = await (await fetch(`${reader.promUrl}/api/v1/query?query=${encodeURIComponent(expr)}&time=${T0 / 1000}`)).json() as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      assert.equal(r.status, 'success', JSON.stringify(r));
      return r.data.result;
    };
    // dc="eu" is sent as a matcher (filter_external_labels) and taken off the series that come back.
    assert.deepEqual(await query('rr_metric{job="db"}'), [{ metric: { __name__: 'rr_metric', job: 'db' }, value: [T0 / 1000, '42'] }]);
    write('    required_matchers: {job: app}\n');
    assert.equal((await fetch(`${reader.promUrl}/-/reload`, { method: 'POST' })).status, 200);
    assert.deepEqual(await query('rr_metric{job="db"}'), [], 'job="app" is required for this endpoint to be asked');
    assert.equal((await query('rr_metric{job="app"}')).length, 1);
  } finally {
    await reader.destroy();
  }
});
