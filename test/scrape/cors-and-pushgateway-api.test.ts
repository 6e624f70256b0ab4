/**
 * On a real Tessera's metrics port: CORS as Prometheus 2.42 sets it (`--web.cors.origin`, default `.*`
 * answering `*`; a specific pattern echoing matching origins only; 204 preflights), and the built-in push
 * gateway's own API, `GET /api/v1/metrics` and `/api/v1/status`, shaped as Pushgateway 1.5's.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.ts';

const open = await startServer({ services: ['metrics'] });
const strict = await startServer({ services: ['metrics'], args: ['--web.cors.origin', 'https?://ok\\.example'] });
after(async () => { await open.destroy(); await strict.destroy(); });

test('default --web.cors.origin: API replies to a cross-origin request carry Allow-Origin *', async () => {
  const r = await fetch(`${open.promUrl}/api/v1/query?query=1`, { headers: { Origin: 'http://anywhere.example' } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.equal(r.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
  assert.equal(r.headers.get('access-control-allow-headers'), 'Accept, Authorization, Content-Type, Origin');
  assert.equal(r.headers.get('access-control-expose-headers'), 'Date');
  assert.equal(r.headers.get('vary'), 'Origin');
  const same = await fetch(`${open.promUrl}/api/v1/query?query=1`);
  assert.equal(same.headers.get('access-control-allow-origin'), null, 'no Origin, no CORS headers');
});

test('preflight OPTIONS on any API path is 204 with the CORS headers', async () => {
  for (const path of ['/api/v1/query', '/api/v1/labels', '/api/v1/no-such-endpoint']) {
    const r = await fetch(`${open.promUrl}${path}`, { method: 'OPTIONS', headers: { Origin: 'http://a.example', 'Access-Control-Request-Method': 'POST' } });
    assert.equal(r.status, 204, path);
    assert.equal(r.headers.get('access-control-allow-origin'), '*', path);
  }
});

test('a specific --web.cors.origin echoes matching origins only (fully anchored)', async () => {
  const ok = await fetch(`${strict.promUrl}/api/v1/labels`, { headers: { Origin: 'https://ok.example' } });
  assert.equal(ok.headers.get('access-control-allow-origin'), 'https://ok.example');
  const no = await fetch(`${strict.promUrl}/api/v1/labels`, { headers: { Origin: 'https://ok.example.evil' } });
  assert.equal(no.headers.get('access-control-allow-origin'), null);
  assert.equal(no.headers.get('vary'), 'Origin');
});

test('push gateway API: /api/v1/metrics lists groups with their families, /api/v1/status answers', async () => {
  const push = await fetch(`${open.promUrl}/metrics/job/batch/instance/i1`, {
    method: 'PUT', body: '# TYPE jobs_done counter\n# HELP jobs_done Done.\njobs_done{kind="a"} 3\n# TYPE lat histogram\nlat_bucket{le="1"} 2\nlat_bucket{le="+Inf"} 3\nlat_sum 4.5\nlat_count 3\n',
  });
  assert.equal(push.status, 200);
  const body = await (await fetch(`${open.promUrl}/api/v1/metrics`)).json() as { status: string; data: Record<string, any>[] };
  assert.equal(body.status, 'success');
  const g = body.data.find((x) => x.labels.job === 'batch')!;
  assert.deepEqual(g.labels, { instance: 'i1', job: 'batch' });
  assert.equal(g.last_push_successful, true);
  assert.equal(g.jobs_done.type, 'COUNTER');
  assert.equal(g.jobs_done.help, 'Done.');
  assert.match(g.jobs_done.time_stamp, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(g.jobs_done.metrics, [{ labels: { instance: 'i1', job: 'batch', kind: 'a' }, value: '3' }]);
  assert.deepEqual(g.lat.metrics, [{ labels: { instance: 'i1', job: 'batch' }, buckets: { 1: '2' }, count: '3', sum: '4.5' }]);
  assert.equal(g.push_time_seconds.type, 'GAUGE');
  const status = await (await fetch(`${open.promUrl}/api/v1/status`)).json() as { data: Record<string, unknown> };
  assert.deepEqual(Object.keys(status.data), ['flags', 'start_time', 'build_information']);
});
