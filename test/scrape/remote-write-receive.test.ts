/**
 * The remote-write receiver on the wire, through a real Tessera child process and, in the same test, the
 * real Prometheus 2.42 (skipped when it is not installed): each body below goes to both, and Tessera must
 * answer with Prometheus's status and body. Refused requests store nothing (Prometheus rolls them back;
 * Tessera refuses them before appending), accepted ones store their series as Prometheus does.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { NO_PROMETHEUS, startPrometheus, type RealPrometheus } from '../support/real-prometheus.ts';
import { compressSync } from '../../src/engine/codec/snappy.ts';
import { bytesField, doubleField, label, series, strField, tag, varintField, writeRequest } from '../support/proto-bytes.ts';

let tessera: TestServer;
let prom: RealPrometheus | null = null;
before(async () => {
  tessera = await startServer({ services: ['metrics'], args: ['--web.enable-remote-write-receiver'] });
  if (!NO_PROMETHEUS) prom = await startPrometheus('global: {scrape_interval: 1m}\n', ['--web.enable-remote-write-receiver']);
});
after(async () => {
  await tessera?.destroy();
  await prom?.stop();
});

const NOW = Date.now();

interface Case { name: string; body: Uint8Array; status: number; text: string; snappy?: boolean }

const unknownFields = [...varintField(15, 7), ...tag(16, 5), 1, 2, 3, 4, ...strField(18, 'x')];
const CASES: Case[] = [
  { name: 'not snappy', body: Buffer.from('not snappy'), snappy: false, status: 400, text: 'snappy: corrupt input\n' },
  { name: 'truncated varint', body: Uint8Array.from([0x0a, 0x80]), status: 400, text: 'unexpected EOF\n' },
  { name: 'length past the end', body: Uint8Array.from([0x0a, 0x05, 0x0a]), status: 400, text: 'unexpected EOF\n' },
  {
    name: 'a good series, then a truncated one',
    body: Uint8Array.from([...writeRequest(series([['__name__', 'rw_trunc']], [[1, NOW]])), 0x0a, 0x09, 0x0a, 0x01]),
    status: 400, text: 'unexpected EOF\n',
  },
  { name: 'timeseries as a varint', body: Uint8Array.from([...tag(1, 0), 1]), status: 400, text: 'proto: wrong wireType = 0 for field Timeseries\n' },
  {
    name: 'a good series, then a repeated label name',
    body: writeRequest(series([['__name__', 'rw_dup_ok']], [[1, NOW]]), series([['__name__', 'rw_dup'], ['a', '1'], ['a', '2']], [[1, NOW]])),
    status: 500, text: 'label name "a" is not unique: invalid sample\n',
  },
  { name: 'an empty label set', body: writeRequest(series([['a', '']], [[1, NOW]])), status: 500, text: 'empty labelset: invalid sample\n' },
  {
    name: 'a repeated label name in a series without samples (never built)',
    body: writeRequest(series([['__name__', 'rw_nosamples'], ['a', '1'], ['a', '2']], []), series([['__name__', 'rw_beside']], [[3, NOW]])),
    status: 204, text: '',
  },
  { name: 'labels out of order', body: writeRequest(series([['z', '1'], ['__name__', 'rw_unsorted'], ['a', '2']], [[1, NOW]])), status: 204, text: '' },
  {
    name: 'unknown fields at every level',
    body: Uint8Array.from([...unknownFields, ...bytesField(1, [
      ...bytesField(1, [...label('__name__', 'rw_unknown'), ...unknownFields]), ...unknownFields,
      ...bytesField(2, [...unknownFields, ...doubleField(1, 7), ...varintField(2, NOW)]), ...bytesField(3, [...bytesField(1, label('trace_id', 'abc')), ...doubleField(2, 1), ...varintField(3, NOW)]), // an exemplar
    ])]),
    status: 204, text: '',
  },
];

async function send(base: string, c: Case): Promise<{ status: number; text: string }> {
  const body = c.snappy === false ? c.body : compressSync(c.body);
  const r = await fetch(`${base}/api/v1/write`, { method: 'POST', body, headers: { 'content-encoding': 'snappy', 'content-type': 'application/x-protobuf' } });
  return { status: r.status, text: await r.text() };
}

async function seriesOf(base: string, match: string): Promise<Record<string, string>[]> {
  const r = await (await fetch(`${base}/api/v1/series?match[]=${encodeURIComponent(match)}`)).json() as { data: Record<string, string>[] };
  return r.data;
}

test('each body gets Prometheus 2.42\'s status and text', async () => {
  for (const c of CASES) assert.deepEqual(await send(tessera.promUrl, c), { status: c.status, text: c.text }, c.name);
});

test('the real Prometheus 2.42 answers each body so', { skip: NO_PROMETHEUS }, async () => {
  for (const c of CASES) assert.deepEqual(await send(prom!.url, c), { status: c.status, text: c.text }, c.name);
});

test('refused requests stored nothing; accepted ones stored their series sorted and their values', async () => {
  const servers = [tessera.promUrl, ...(prom ? [prom.url] : [])];
  for (const base of servers) {
    assert.deepEqual(await seriesOf(base, '{__name__=~"rw_trunc|rw_dup_ok|rw_dup"}'), [], base);
    assert.deepEqual(await seriesOf(base, '{__name__=~"rw_unsorted|rw_unknown|rw_nosamples|rw_beside"}'), [
      { __name__: 'rw_beside' }, { __name__: 'rw_unknown' }, { __name__: 'rw_unsorted', a: '2', z: '1' },
    ], base);
    const q = await (await fetch(`${base}/api/v1/query?query=rw_unknown&time=${NOW / 1000}`)).json() as { data: { result: { value: [number, string] }[] } };
    assert.equal(q.data.result[0]?.value[1], '7', base);
  }
});

test('a series sent again (the cache) and a series encoded in another label order land on the same series', async () => {
  for (let i = 1; i <= 3; i++) {
    const r = await send(tessera.promUrl, { name: 'again', body: writeRequest(series([['__name__', 'rw_again'], ['b', '1'], ['a', '1']], [[i, NOW + i * 1000]])), status: 204, text: '' });
    assert.equal(r.status, 204);
  }
  const other = await send(tessera.promUrl, { name: 'sorted', body: writeRequest(series([['__name__', 'rw_again'], ['a', '1'], ['b', '1']], [[4, NOW + 4000]])), status: 204, text: '' });
  assert.equal(other.status, 204);
  assert.deepEqual(await seriesOf(tessera.promUrl, 'rw_again'), [{ __name__: 'rw_again', a: '1', b: '1' }]);
  const q = await (await fetch(`${tessera.promUrl}/api/v1/query?query=${encodeURIComponent('count_over_time(rw_again[1m])')}&time=${(NOW + 4000) / 1000}`)).json() as { data: { result: { value: [number, string] }[] } };
  assert.equal(q.data.result[0]?.value[1], '4');
  // A sample at an existing timestamp with another value: refused as Prometheus does (400, so not retried).
  const dup = await send(tessera.promUrl, { name: 'dup ts', body: writeRequest(series([['__name__', 'rw_again'], ['b', '1'], ['a', '1']], [[9, NOW + 4000]])), status: 400, text: '' });
  assert.deepEqual(dup, { status: 400, text: 'duplicate sample for timestamp\n' });
});
