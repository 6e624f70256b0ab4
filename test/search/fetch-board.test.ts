/**
 * The fetch board (engine/search/fetch-board.ts) through the HTTP server: a search over several shards whose
 * page is small fetches, on each shard, only the hits that can still be on the merged page. Its pages must be
 * what every shard fetching everything gives: compared with the same search asked for a page large enough for
 * the two-phase path (which fetches exactly the merged page and uses no board), hit for hit — ids, scores,
 * sort values, `_source` (filtered too) — for score order with ties across shards, date and numeric sorts
 * (ascending, descending, missing values, a second key), and `from`/`size` paging. A shard that publishes its
 * hits and then fails its fetch leaves the other shard's skipped hits on the page: the search runs again and
 * they come back fetched.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

const DOCS = 240;
/** Over two shards, a page this large takes the two-phase path (2 × 40 > 64 hits fetched in one phase). */
const REFERENCE_SIZE = 40;
let s: TestServer;

const words = ['alpha', 'beta', 'gamma', 'delta'];
function doc(i: number): Record<string, unknown> {
  // Repeated bodies give equal scores on both shards (ties go to the lower shard); n repeats and is missing on some.
  const body = Array.from({ length: 1 + (i % 5) }, (_, j) => words[(i + j * j) % 4]).join(' ');
  const d: Record<string, unknown> = { body, tag: `t${i % 3}`, ts: new Date(Date.UTC(2026, 0, 1) + (i % 50) * 3_600_000).toISOString() };
  if (i % 7 !== 0) d.n = i % 11;
  return d;
}

before(async () => {
  s = await startServer({ services: ['documents'], workers: 2 });
  const r0 = await esCall(s, 'PUT', '/fb', { settings: { number_of_shards: 2 }, mappings: { _doc: { properties: {
    body: { type: 'text' }, tag: { type: 'keyword' }, ts: { type: 'date' }, n: { type: 'long' } } } } });
  assert.equal(r0.status, 200);
  // Two bulks, each refreshed: more than one segment per shard.
  for (const half of [0, 1]) {
    const lines: string[] = [];
    for (let i = half * DOCS / 2; i < (half + 1) * DOCS / 2; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify(doc(i)));
    const r = await esCall(s, 'POST', '/fb/_doc/_bulk?refresh=true', lines.join('\n') + '\n', true);
    assert.equal(r.body.errors, false);
  }
});
after(async () => { await s?.destroy(); });

const bodies: Record<string, object> = {
  'match OR, score ties across shards': { query: { match: { body: 'alpha gamma' } } },
  'match AND': { query: { match: { body: { query: 'alpha beta', operator: 'and' } } } },
  'bool + range, date descending': { query: { bool: { must: [{ match: { body: 'delta' } }], filter: [{ range: { ts: { gte: '2026-01-01T05:00:00Z', lt: '2026-01-02T12:00:00Z' } } }] } }, sort: [{ ts: 'desc' }] },
  'numeric ascending with missing values': { query: { match: { body: 'beta' } }, sort: [{ n: 'asc' }] },
  'numeric descending, ties broken by a second key': { sort: [{ n: 'desc' }, { tag: 'asc' }] },
  'keyword sort': { sort: [{ tag: 'asc' }] },
  'filtered _source': { query: { match: { body: 'gamma' } }, _source: ['n', 'tag'] },
};

for (const [name, body] of Object.entries(bodies)) {
  test(`pages fetched through the board equal the two-phase page: ${name}`, async () => {
    const ref = await esCall(s, 'POST', '/fb/_search', { ...body, size: REFERENCE_SIZE });
    assert.equal(ref.status, 200, JSON.stringify(ref.body).slice(0, 300));
    assert.ok(ref.body.hits.hits.length >= 12, 'enough hits to page through');
    for (const [from, size] of [[0, 1], [0, 3], [0, 10], [2, 3], [5, 10], [0, 32]]) {
      const r = await esCall(s, 'POST', '/fb/_search', { ...body, from, size });
      assert.equal(r.status, 200);
      const want = ref.body.hits.hits.slice(from, from + size);
      assert.deepEqual(r.body.hits.hits, want, `from ${from} size ${size}`);
      assert.equal(r.body.hits.total, ref.body.hits.total);
      assert.equal(r.body.hits.max_score, ref.body.hits.max_score);
      for (const h of r.body.hits.hits) assert.notEqual(h._id, '', 'every hit on the page was fetched');
    }
  });
}

test('a shard that fails its fetch after publishing: the other shard\'s skipped hits come back fetched', async () => {
  const t = await startServer({ services: ['documents'], workers: 1 });
  let t2: TestServer | null = null;
  try {
    assert.equal((await esCall(t, 'PUT', '/ff', { settings: { number_of_shards: 2 } })).status, 200);
    // Which routing value puts a doc on which shard.
    const routeOf: Record<number, string> = {};
    for (let i = 0; Object.keys(routeOf).length < 2; i++) {
      await esCall(t, 'PUT', `/ff/_doc/probe${i}?routing=r${i}&refresh=true`, { body: 'probe' });
      const e = await esCall(t, 'POST', '/ff/_search', { query: { ids: { values: [`probe${i}`] } }, explain: true });
      routeOf[Number(/\]\[(\d)\]$/.exec(e.body.hits.hits[0]._shard)![1])] ??= `r${i}`;
    }
    // Shard 0's docs score above shard 1's, so shard 1 (searched second on the one worker) leaves its own unfetched.
    const lines: string[] = [];
    for (let i = 0; i < 20; i++) {
      lines.push(JSON.stringify({ index: { _id: `a${i}`, routing: routeOf[0] } }), JSON.stringify({ body: 'alpha alpha alpha', i }));
      lines.push(JSON.stringify({ index: { _id: `b${i}`, routing: routeOf[1] } }), JSON.stringify({ body: 'alpha filler words of a longer body here', i }));
    }
    assert.equal((await esCall(t, 'POST', '/ff/_doc/_bulk?refresh=true', lines.join('\n') + '\n', true)).body.errors, false);
    assert.equal((await esCall(t, 'POST', '/ff/_flush')).status, 200);
    await t.stop();
    const uuid = readdirSync(join(t.dataDir, 'es', 'indices'))[0];
    const dir = join(t.dataDir, 'es', 'indices', uuid, '0', 'index');
    // Shard 0's stored fields: one block, damaged; its query phase reads none of them.
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.fdt'))) {
      const path = join(dir, name), bytes = readFileSync(path);
      bytes[16 + Math.floor((statSync(path).size - 16) / 2)] ^= 0x5a;
      writeFileSync(path, bytes);
    }
    t2 = await t.restart();
    const r = await esCall(t2, 'POST', '/ff/_search', { query: { match: { body: 'alpha' } }, size: 3 });
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
    assert.equal(r.body._shards.failed, 1);
    assert.equal(r.body.hits.hits.length, 3);
    for (const h of r.body.hits.hits) {
      assert.match(h._id, /^b\d+$/);
      assert.deepEqual(h._source, { body: 'alpha filler words of a longer body here', i: Number(h._id.slice(1)) });
    }
  } finally {
    await (t2 ?? t).destroy();
  }
});
