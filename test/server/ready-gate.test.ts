/**
 * While start-up recovery runs (WAL replay, block loading), the metrics API and `/federate` answer 503
 * `Service Unavailable` at once, as Prometheus's `testReady` does; `/-/healthy` and `/metrics` answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../../src/server/router.ts';
import { guardUntilReady } from '../../src/server/prom/routes.ts';

function request(path: string) {
  return { method: 'GET', path, rawQuery: '', query: new URLSearchParams(), headers: {}, body: Buffer.alloc(0), remoteAddress: '127.0.0.1', signal: new AbortController().signal };
}

test('API routes answer 503 until ready, then reach their handlers', async () => {
  let ready = false;
  const router = new Router();
  guardUntilReady(router, { isReady: () => ready });
  const ok = () => ({ status: 200, headers: {}, body: 'ok' });
  for (const p of ['/api/v1/query', '/api/v1/series', '/federate', '/-/healthy', '/metrics']) router.add('GET', p, ok);
  const call = async (p: string) => {
    const m = router.match('GET', p);
    assert.equal(m.kind, 'found');
    if (m.kind !== 'found') throw new Error('unreachable');
    return m.handler(request(p) as never, m.params);
  };
  for (const p of ['/api/v1/query', '/api/v1/series', '/federate']) {
    const r = await call(p);
    assert.deepEqual([r.status, r.body], [503, 'Service Unavailable'], p);
  }
  for (const p of ['/-/healthy', '/metrics']) assert.equal((await call(p)).status, 200, p);
  ready = true;
  for (const p of ['/api/v1/query', '/federate']) assert.equal((await call(p)).status, 200, p);
});
