/** The official @elastic/elasticsearch 6.x client against the server: bulk, search with query + aggs, count, scroll. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let client: Client;
before(async () => {
  s = await startServer({ services: ['documents'], workers: 2 });
  client = new Client({ node: s.esUrl });
});
after(async () => { await client?.close(); await s?.destroy(); });

test('official 6.x client: bulk, search with aggregations, count, scroll', async () => {
  await client.indices.create({ index: 'books', body: { mappings: { _doc: { properties: { title: { type: 'text' }, genre: { type: 'keyword' }, pages: { type: 'integer' } } } } } });
  const body = [
    { title: 'The Go Programming Language', genre: 'tech', pages: 380 },
    { title: 'Programming Rust', genre: 'tech', pages: 620 },
    { title: 'Dune', genre: 'scifi', pages: 412 },
    { title: 'Rust and Dust', genre: 'scifi', pages: 200 },
  ].flatMap((d, i) => [{ index: { _index: 'books', _type: '_doc', _id: String(i + 1) } }, d]);
  const bulk = await client.bulk({ refresh: 'true', body });
  assert.equal(bulk.body.errors, false);
  const r = await client.search({ index: 'books', body: { query: { match: { title: 'rust programming' } }, aggs: { by_genre: { terms: { field: 'genre' }, aggs: { avg_pages: { avg: { field: 'pages' } } } } } } });
  assert.equal(r.statusCode, 200);
  assert.equal(r.body.hits.total, 3);
  assert.equal(r.body.hits.hits[0]._id, '2');
  assert.deepEqual(r.body.aggregations.by_genre.buckets, [
    { key: 'tech', doc_count: 2, avg_pages: { value: 500 } },
    { key: 'scifi', doc_count: 1, avg_pages: { value: 200 } },
  ]);
  const c = await client.count({ index: 'books', body: { query: { term: { genre: 'scifi' } } } });
  assert.equal(c.body.count, 2);
  const first = await client.search({ index: 'books', scroll: '30s', size: 3, body: { sort: ['pages'] } });
  assert.deepEqual(first.body.hits.hits.map((h: { _id: string }) => h._id), ['4', '1', '3']);
  const next = await client.scroll({ scroll_id: first.body._scroll_id, scroll: '30s' });
  assert.deepEqual(next.body.hits.hits.map((h: { _id: string }) => h._id), ['2']);
  const cleared = await client.clearScroll({ body: { scroll_id: [first.body._scroll_id] } });
  assert.equal(cleared.body.succeeded, true);
  await assert.rejects(client.search({ index: 'books', body: { query: { bogus: {} } } }), (e: { meta: { statusCode: number; body: { error: { type: string } } } }) => {
    assert.equal(e.meta.statusCode, 400);
    assert.equal(e.meta.body.error.type, 'parsing_exception');
    return true;
  });
});
