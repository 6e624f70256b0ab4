/**
 * Crash safety of acknowledged writes: a client streams 50,000 documents as 500-document `_bulk` requests
 * (4 in flight) while the server is killed with SIGKILL part-way. After a restart on the same data
 * directory, every item the client saw acknowledged is there with its content, and `_cat/indices`
 * counts exactly the documents that survived.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../support/server.ts';

const TOTAL = 50_000;
const PER_BULK = 500;
const MGET_BATCH = 1000;

const doc = (i: number): string => JSON.stringify({ n: i, title: `document number ${i}`, tags: ['crash', `t${i % 7}`], body: 'x'.repeat(200) });

test('kill -9 during a 50k-document bulk loses no acknowledged item', { timeout: 120_000 }, async () => {
  const s = await startServer({ services: ['documents'], workers: 2 });
  const put = await fetch(`${s.esUrl}/crash`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 3, number_of_replicas: 0 } }) });
  assert.equal(put.status, 200);
  const acked: number[] = [];
  let next = 0;
  let killed = false;
  // The kill comes when 30% are acknowledged, as a client learns it, not after polling on a timer.
  let reachedKillPoint!: () => void;
  const killPoint = new Promise<void>((r) => { reachedKillPoint = r; });
  const worker = async (): Promise<void> => {
    while (next < TOTAL && !killed) {
      const start = next;
      next += PER_BULK;
      let body = '';
      for (let i = start; i < start + PER_BULK; i++) body += `{"index":{"_id":"${i}"}}\n${doc(i)}\n`;
      try {
        const r = await fetch(`${s.esUrl}/crash/_doc/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
        const j = (await r.json()) as { items: { index: { _id: string; status: number } }[] };
        for (const it of j.items) if (it.index.status === 201) acked.push(Number(it.index._id));
        if (acked.length >= TOTAL * 0.3) reachedKillPoint();
      } catch {
        return; // the server died under this request: nothing in it was acknowledged
      }
    }
  };
  const clients = [worker(), worker(), worker(), worker()];
  await killPoint;
  killed = true;
  await s.kill9();
  await Promise.all(clients);
  assert.ok(acked.length > 0 && acked.length < TOTAL, `acked ${acked.length}`);

  const started = Date.now();
  const s2 = await s.restart();
  const restartMs = Date.now() - started;
  try {
    await fetch(`${s2.esUrl}/crash/_refresh`, { method: 'POST' });
    const ackedSet = new Set(acked);
    let found = 0;
    // Every id a client sent, read back in _mget batches (one GET per id made the check most of the test's time).
    let i = 0;
    const check = async (): Promise<void> => {
      while (i < next) {
        const ids = Array.from({ length: Math.min(MGET_BATCH, next - i) }, () => String(i++));
        const r = await fetch(`${s2.esUrl}/crash/_doc/_mget`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids }) });
        assert.equal(r.status, 200);
        const j = (await r.json()) as { docs: { _id: string; found: boolean; _source?: unknown }[] };
        assert.deepEqual(j.docs.map((d) => d._id), ids);
        for (const d of j.docs) {
          const id = Number(d._id);
          if (d.found) {
            assert.equal(JSON.stringify(d._source), doc(id), `content of ${id}`);
            found++;
          } else {
            assert.ok(!ackedSet.has(id), `acknowledged document ${id} is missing after restart`);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, check));
    assert.ok(found >= acked.length);
    const cat = await (await fetch(`${s2.esUrl}/_cat/indices/crash?h=docs.count`)).text();
    assert.equal(Number(cat.trim()), found, '_cat/indices docs.count equals the documents found');
    console.log(`# acked ${acked.length}, recovered ${found}, restart ${restartMs} ms`);
  } finally {
    await s2.destroy();
  }
});
