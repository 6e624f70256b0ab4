/** `_cache/clear` empties the shard workers' segment block caches (seen in `/metrics`). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents', 'metrics'], workers: 1 }); });
after(async () => { await s.destroy(); });

async function cacheBytes(): Promise<number> {
  const text = await (await fetch(`${s.promUrl}/metrics`)).text();
  return [...text.matchAll(/^tessera_segment_cache_bytes(?:\{[^}]*\})? (\S+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
}

test('_cache/clear empties the block cache, and searches refill it', async () => {
  let nd = '';
  for (let i = 0; i < 500; i++) nd += `{"index":{"_index":"cc","_type":"_doc","_id":"${i}"}}\n{"t":"word${i % 17} other","n":${i}}\n`;
  await fetch(`${s.esUrl}/_bulk?refresh=true`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: nd });
  await fetch(`${s.esUrl}/cc/_flush`, { method: 'POST' });
  const search = async (): Promise<number> => ((await (await fetch(`${s.esUrl}/cc/_search`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: { match: { t: 'word3' } }, sort: [{ n: 'desc' }] }) })).json()) as { hits: { total: number } }).hits.total;
  assert.equal(await search(), 30);
  assert.ok(await cacheBytes() > 0, 'a search over flushed segments caches blocks');
  const r = await fetch(`${s.esUrl}/cc/_cache/clear`, { method: 'POST' });
  assert.equal(((await r.json()) as { _shards: { failed: number } })._shards.failed, 0);
  assert.equal(await cacheBytes(), 0);
  assert.equal(await search(), 30);
  assert.ok(await cacheBytes() > 0);
  assert.equal((await fetch(`${s.esUrl}/nope/_cache/clear`, { method: 'POST' })).status, 404);
});
