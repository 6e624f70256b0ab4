/** The dispatcher's request metrics: counts, latencies and response sizes land in the series of their route pattern and status. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatcher } from '../../src/server/dispatch.ts';
import { Router } from '../../src/server/router.ts';
import { SelfMetrics } from '../../src/server/self-metrics.ts';
import type { HttpRequest, HttpResponse } from '../../src/server/http.ts';

const req = (method: string, path: string): HttpRequest =>
  ({ method, path, rawQuery: '', query: new URLSearchParams(), headers: {}, body: Buffer.alloc(0), signal: new AbortController().signal });

test('each (route, status) pair is counted in its own series, across repeated requests', async () => {
  const reg = new SelfMetrics();
  const m = {
    requests: reg.counter('t_requests_total', 'h', ['api', 'route', 'code']),
    latency: reg.histogram('t_request_duration_seconds', 'h', ['api', 'route']),
    byHandler: {
      requests: reg.counter('t_handler_requests_total', 'h', ['code', 'handler']), latency: reg.histogram('t_handler_duration_seconds', 'h', ['handler']),
      size: reg.histogram('t_handler_response_size_bytes', 'h', ['handler'], [100, 1000]),
    },
  };
  const router = new Router()
    .add('GET', '/a/:id', (_r, p) => ({ status: p.id === 'x' ? 404 : 200 }))
    .add('POST', '/b', async () => ({ status: 201, body: 'é'.repeat(100) }))
    .add('GET', '/c', () => ({ status: 200, body: [new Uint8Array(10), new Uint8Array(5)] }));
  const fallbacks = { notFound: (): HttpResponse => ({ status: 404 }), methodNotAllowed: (): HttpResponse => ({ status: 405 }), error: (): HttpResponse => ({ status: 500 }) };
  const handle = dispatcher('api1', router, fallbacks, m);
  for (const path of ['/a/1', '/a/2', '/a/x', '/a/3', '/a/x']) await handle(req('GET', path));
  for (let i = 0; i < 3; i++) await handle(req('POST', '/b'));
  await handle(req('GET', '/c'));
  await handle(req('GET', '/nowhere'));

  const count = (labels: string[]) => m.requests.seriesOf(labels).value;
  assert.equal(count(['api1', '/a/:id', '200']), 3);
  assert.equal(count(['api1', '/a/:id', '404']), 2);
  assert.equal(count(['api1', '/b', '201']), 3);
  assert.equal(count(['api1', '(unmatched)', '404']), 1);
  assert.equal(m.latency.seriesOf(['api1', '/a/:id']).count, 5);
  assert.equal(m.latency.seriesOf(['api1', '/b']).count, 3);
  assert.equal(m.byHandler.requests.seriesOf(['404', '/a/:id']).value, 2);
  assert.equal(m.byHandler.latency.seriesOf(['/a/:id']).count, 5);
  // Bytes, not characters: 'é' is two in UTF-8. Bodiless replies are 0 bytes; a body in pieces counts them all.
  const size = (route: string) => { const s = m.byHandler.size.seriesOf([route]); return [s.count, s.sum, s.counts[0], s.counts[1]]; };
  assert.deepEqual(size('/b'), [3, 600, 0, 3]);
  assert.deepEqual(size('/a/:id'), [5, 0, 5, 5]);
  assert.deepEqual(size('/c'), [1, 15, 1, 1]);
  const text = reg.render();
  assert.match(text, /t_requests_total\{api="api1",route="\/a\/:id",code="200"\} 3\n/);
  assert.match(text, /t_request_duration_seconds_count\{api="api1",route="\/b"\} 3\n/);
});
