/**
 * Issue 16 §2: a terms aggregation with sub-aggregations over a field of 100,000 distinct values builds
 * sub-collectors only for the buckets that survive its shard cut (6.8's breadth_first collection mode), so it
 * answers under a bucket limit far below its cardinality. Collected depth first (`collect_mode: depth_first`, or
 * ordered by a sub-aggregation, which needs every bucket's), each bucket whose sub-collectors are built counts
 * against `search.max_buckets` as it is built, and past it the search gets 6.8's too_many_buckets_exception.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

const DISTINCT = 100_000;
let s: TestServer;

before(async () => {
  s = await startServer({ services: ['documents'], workers: 1 });
  await esCall(s, 'PUT', '/hc', { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { u: { type: 'keyword' }, g: { type: 'keyword' }, n: { type: 'long' } } } } });
  // u: one doc per value, and value uj (j = 1..10) j more docs with n 0, so the top 10 by count are u10 .. u1.
  const docs: object[] = [];
  for (let i = 0; i < DISTINCT; i++) docs.push({ u: `u${i}`, g: `g${i % 7}`, n: i });
  for (let j = 1; j <= 10; j++) for (let k = 0; k < j; k++) docs.push({ u: `u${j}`, g: `g${k % 7}`, n: 0 });
  // Four bulks, each refreshed: the replay of deferred hits crosses segments.
  for (let from = 0; from < docs.length; from += 25_000) {
    const lines: string[] = [];
    for (const d of docs.slice(from, from + 25_000)) lines.push('{"index":{}}', JSON.stringify(d));
    const r = await esCall(s, 'POST', '/hc/_doc/_bulk?refresh=true', lines.join('\n') + '\n', true);
    assert.equal(r.body.errors, false);
  }
});
after(async () => { await s?.destroy(); });

async function search(aggs: object): Promise<{ status: number; body: any }> {
  return esCall(s, 'POST', '/hc/_search', { size: 0, aggs });
}
const setLimit = (v: number | null) => esCall(s, 'PUT', '/_cluster/settings', { transient: { 'search.max_buckets': v } });

function assertTooMany(r: { status: number; body: any }, limit: number): void {
  assert.equal(r.status, 503, JSON.stringify(r.body).slice(0, 400));
  assert.equal(r.body.error.type, 'search_phase_execution_exception');
  assert.equal(r.body.error.phase, 'query');
  assert.deepEqual(r.body.error.root_cause, [{ type: 'too_many_buckets_exception', max_buckets: limit,
    reason: `Trying to create too many buckets. Must be less than or equal to: [${limit}] but was [${limit + 1}]. This limit can be set by changing the [search.max_buckets] cluster level setting.` }]);
}

const topTerms = (extra: object = {}) => ({ t: { terms: { field: 'u', size: 10, ...extra }, aggs: { m: { avg: { field: 'n' } } } } });

test('breadth first: 100,000 distinct values with a sub-aggregation answer under a limit of 1,000', async () => {
  assert.equal((await setLimit(1000)).status, 200);
  try {
    const r = await search(topTerms());
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
    const buckets = r.body.aggregations.t.buckets;
    assert.deepEqual(buckets.map((b: any) => [b.key, b.doc_count]), Array.from({ length: 10 }, (_, i) => [`u${10 - i}`, 11 - i]));
    // uj holds n = j once and n = 0 j times.
    for (const b of buckets) {
      const j = Number(b.key.slice(1));
      assert.equal(b.m.value, j / (j + 1), b.key);
    }
    assert.equal(r.body.aggregations.t.sum_other_doc_count, DISTINCT + 55 - buckets.reduce((a: number, b: any) => a + b.doc_count, 0));
  } finally {
    await setLimit(null);
  }
});

test('depth first builds a bucket\'s sub-collectors for every value: refused at the limit, set or default', async () => {
  assert.equal((await setLimit(1000)).status, 200);
  try {
    assertTooMany(await search(topTerms({ collect_mode: 'depth_first' })), 1000);
    // An order by a sub-aggregation needs every bucket's: depth first whatever the mode says.
    assertTooMany(await search(topTerms({ order: { m: 'desc' } })), 1000);
    assertTooMany(await search(topTerms({ order: { m: 'desc' }, collect_mode: 'breadth_first' })), 1000);
  } finally {
    await setLimit(null);
  }
  // Unset: 6.8 leaves this to its request circuit breaker; this node's default bound of 65,535 stands in.
  assertTooMany(await search(topTerms({ collect_mode: 'depth_first' })), 65_535);
  assert.equal((await search(topTerms())).status, 200);
});

test('collect_mode takes depth_first or breadth_first; anything else fails the field', async () => {
  const r = await search(topTerms({ collect_mode: 'widest_first' }));
  assert.equal(r.status, 400);
  assert.equal(r.body.error.root_cause[0].reason, '[terms] failed to parse field [collect_mode]');
});

test('both modes answer the same where both fit: nested terms, top_hits by score, several segments', async () => {
  const aggs = (mode: string) => ({
    g: {
      terms: { field: 'g', size: 3, collect_mode: mode },
      aggs: {
        sum: { sum: { field: 'n' } },
        inner: { terms: { field: 'u', size: 2, collect_mode: mode }, aggs: { top: { top_hits: { size: 1, _source: ['n'] } } } },
      },
    },
  });
  const breadth = await esCall(s, 'POST', '/hc/_search', { size: 0, query: { range: { n: { lte: 40 } } }, aggs: aggs('breadth_first') });
  const depth = await esCall(s, 'POST', '/hc/_search', { size: 0, query: { range: { n: { lte: 40 } } }, aggs: aggs('depth_first') });
  assert.equal(breadth.status, 200, JSON.stringify(breadth.body).slice(0, 400));
  assert.equal(breadth.body.aggregations.g.buckets.length, 3);
  assert.ok(breadth.body.aggregations.g.buckets.every((b: any) => b.inner.buckets.length === 2 && b.inner.buckets[0].top.hits.hits.length === 1));
  assert.deepEqual(breadth.body.aggregations, depth.body.aggregations);
});
