/**
 * Aggregations see a shard's matches in blocks (shard-search.ts, AggCollector.collectBlock): a segment of more
 * matches than one block, a block cut short by `terminate_after`, collectors with and without a block loop side
 * by side (terms and stats on dense columns; a multi-valued keyword and a sparse numeric column, which fall back
 * to one doc at a time), and a `post_filter` that must not hide matches from them. Values are checked against
 * sums computed here.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

const DOCS = 1_000;
let s: TestServer;

before(async () => {
  s = await startServer({ services: ['documents'], workers: 1 });
  await esCall(s, 'PUT', '/ab', { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: {
    level: { type: 'keyword' }, tags: { type: 'keyword' }, bytes: { type: 'long' }, odd: { type: 'long' }, body: { type: 'text' } } } } });
  // One bulk, one refresh: a single segment, docs in this order.
  const lines: string[] = [];
  for (let i = 0; i < DOCS; i++) {
    const d: Record<string, unknown> = { level: `l${i % 3}`, tags: [`t${i % 2}`, `t${2 + (i % 5)}`], bytes: i, body: i % 4 === 0 || i % 4 === 3 ? 'four' : 'other' };
    if (i % 2 === 1) d.odd = i;
    lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify(d));
  }
  const r = await esCall(s, 'POST', '/ab/_doc/_bulk?refresh=true', lines.join('\n') + '\n', true);
  assert.equal(r.body.errors, false);
});
after(async () => { await s?.destroy(); });

const aggs = { levels: { terms: { field: 'level' } }, tags: { terms: { field: 'tags', size: 20 } }, bytes: { stats: { field: 'bytes' } }, odd: { stats: { field: 'odd' } } };

/** What the aggregations above give over docs `ids`. */
function expected(ids: number[]): { levels: Record<string, number>; tags: Record<string, number>; bytes: object; odd: object } {
  const levels: Record<string, number> = {}, tags: Record<string, number> = {};
  for (const i of ids) {
    levels[`l${i % 3}`] = (levels[`l${i % 3}`] ?? 0) + 1;
    for (const t of [`t${i % 2}`, `t${2 + (i % 5)}`]) tags[t] = (tags[t] ?? 0) + 1;
  }
  const stats = (xs: number[]) => ({ count: xs.length, min: Math.min(...xs), max: Math.max(...xs), avg: xs.reduce((a, b) => a + b, 0) / xs.length, sum: xs.reduce((a, b) => a + b, 0) });
  return { levels, tags, bytes: stats(ids), odd: stats(ids.filter((i) => i % 2 === 1)) };
}

function actual(body: any): object {
  const counts = (b: any[]) => Object.fromEntries(b.map((x) => [x.key, x.doc_count]));
  return { levels: counts(body.aggregations.levels.buckets), tags: counts(body.aggregations.tags.buckets), bytes: body.aggregations.bytes, odd: body.aggregations.odd };
}

test('every match of a segment of several blocks reaches every collector', async () => {
  const r = await esCall(s, 'POST', '/ab/_search', { size: 0, aggs });
  assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
  assert.equal(r.body.hits.total, DOCS);
  assert.deepEqual(actual(r.body), expected(Array.from({ length: DOCS }, (_, i) => i)));
});

test('a query matching part of the segment, with a post_filter, aggregates all its matches', async () => {
  const r = await esCall(s, 'POST', '/ab/_search', { size: 0, query: { match: { body: 'four' } }, post_filter: { term: { level: 'l0' } }, aggs });
  assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
  const ids = Array.from({ length: DOCS }, (_, i) => i).filter((i) => i % 4 === 0 || i % 4 === 3);
  assert.equal(r.body.hits.total, ids.filter((i) => i % 3 === 0).length);
  assert.deepEqual(actual(r.body), expected(ids));
});

test('terminate_after stops the aggregations at the same doc as the hits, within a block', async () => {
  // 300: one full block of 256 and 44 docs of the next, which the cut leaves unflushed in the loop.
  const r = await esCall(s, 'POST', '/ab/_search', { size: 0, terminate_after: 300, aggs });
  assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 400));
  assert.equal(r.body.terminated_early, true);
  assert.equal(r.body.hits.total, 300);
  assert.deepEqual(actual(r.body), expected(Array.from({ length: 300 }, (_, i) => i)));
});
