/**
 * A data directory written by the format-1 documents engine (`test/fixtures/format/documents-v1`: an index of
 * 2 shards, flushed to `shard.snap` files, with writes after the flush left in the translogs) opens with the
 * segment engine: every answer equals what the format-1 server gave on the same data (recorded when the fixture
 * was made), the snapshots are replaced by commits, and a second restart answers the same again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '../support/server.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/format/documents-v1', import.meta.url));

async function count(s: TestServer, query?: unknown): Promise<number> {
  const r = await fetch(`${s.esUrl}/legacy/_count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(query ? { query } : {}) });
  return ((await r.json()) as { count: number }).count;
}

async function get(s: TestServer, path: string): Promise<any> {
  return (await fetch(`${s.esUrl}/legacy/_doc/${path}`)).json();
}

async function expectFormat1Answers(s: TestServer): Promise<void> {
  assert.equal(await count(s), 30);
  assert.equal(await count(s, { match: { title: 'quick' } }), 13);
  assert.equal(await count(s, { nested: { path: 'kids', query: { term: { 'kids.c': 'x' } } } }), 5);
  assert.equal(await count(s, { term: { tag: 't1' } }), 10);
  assert.equal(await count(s, { range: { n: { gte: 10, lt: 20 } } }), 10);
  const routed = await get(s, '4?routing=r1');
  assert.deepEqual([routed._version, routed._seq_no, routed._routing, routed._source], [1, 16, 'r1', { title: 'routed', n: 4 }]);
  const six = await get(s, '6');
  assert.deepEqual([six._version, six._source], [2, { title: 'six updated', n: 60 }]);
  assert.equal((await get(s, '5')).found, false);
  assert.deepEqual((await get(s, '100'))._source, { title: 'after flush one', n: 100 });
}

test('a format-1 data directory is converted on first open and answers as before', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-upgrade-'));
  cpSync(FIXTURE, dataDir, { recursive: true });
  let s = await startServer({ services: ['documents'], dataDir });
  try {
    await expectFormat1Answers(s);
    const indices = join(dataDir, 'es', 'indices');
    for (const uuid of readdirSync(indices)) for (const shard of ['0', '1']) {
      const dir = join(indices, uuid, shard);
      assert.equal(existsSync(join(dir, 'shard.snap')), false, `shard ${shard}: the format-1 snapshot is gone`);
      assert.ok(readdirSync(join(dir, 'index')).some((f) => f.startsWith('segments_')), `shard ${shard}: a commit point`);
    }
    await s.stop();
    s = await s.restart();
    await expectFormat1Answers(s);
  } finally {
    await s.destroy();
  }
});
