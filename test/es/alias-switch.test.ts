/**
 * An alias moved between two indices with one `_aliases` call (remove + add) is never observed half-done:
 * a concurrent reader always finds exactly one index behind the alias, both in `GET /_alias/{name}` and
 * when reading a document through it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 2 }); });
after(async () => { await s?.destroy(); });

const req = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const r = await fetch(s.esUrl + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const t = await r.text();
  return { status: r.status, body: t ? JSON.parse(t) : null };
};

test('a remove+add alias switch is atomic for a concurrent reader', async () => {
  for (const i of ['blue', 'green']) {
    assert.equal((await req('PUT', `/${i}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status, 200);
    assert.equal((await req('PUT', `/${i}/_doc/1`, { side: i })).status, 201);
  }
  await req('POST', '/_aliases', { actions: [{ add: { index: 'blue', alias: 'live' } }] });
  let stop = false;
  let reads = 0;
  const seen = new Set<string>();
  const reader = (async () => {
    while (!stop) {
      const a = await req('GET', '/_alias/live');
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(Object.keys(a.body).length, 1, `alias resolved to ${JSON.stringify(a.body)}`);
      const d = await req('GET', '/live/_doc/1');
      assert.equal(d.status, 200, JSON.stringify(d.body));
      seen.add(d.body._source.side);
      reads++;
    }
  })();
  let from = 'blue';
  for (let n = 0; n < 60; n++) {
    const to = from === 'blue' ? 'green' : 'blue';
    const r = await req('POST', '/_aliases', { actions: [{ remove: { index: from, alias: 'live' } }, { add: { index: to, alias: 'live' } }] });
    assert.equal(r.status, 200);
    from = to;
  }
  stop = true;
  await reader;
  assert.ok(reads > 0);
  assert.deepEqual([...seen].sort(), ['blue', 'green'], 'the reader saw both sides of the switch');
});
