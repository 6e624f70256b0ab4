/**
 * The official Elasticsearch 6.x JavaScript client (`@elastic/elasticsearch@6`) against a running server:
 * index creation, bulk load, get, update, delete, `_cat` — real client URL/parameter choices and parsing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startServer, type TestServer } from '../support/server.ts';

const require = createRequire(import.meta.url);
const { Client } = require('@elastic/elasticsearch') as { Client: new (o: { node: string }) => any };

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 2 }); });
after(async () => { await s?.destroy(); });

test('@elastic/elasticsearch@6 round trip', async () => {
  const client = new Client({ node: s.esUrl });
  const info = await client.info();
  assert.equal(info.body.version.number, '6.8.23');
  assert.equal((await client.indices.exists({ index: 'books' })).statusCode, 404);
  const created = await client.indices.create({ index: 'books', body: { settings: { number_of_shards: 2, number_of_replicas: 0 }, mappings: { _doc: { properties: { title: { type: 'text' }, year: { type: 'integer' } } } } } });
  assert.equal(created.body.acknowledged, true);
  assert.equal((await client.indices.exists({ index: 'books' })).statusCode, 200);

  const body: unknown[] = [];
  for (let i = 1; i <= 20; i++) body.push({ index: { _index: 'books', _type: '_doc', _id: String(i) } }, { title: `Book ${i}`, year: 1990 + i });
  const bulk = await client.bulk({ body, refresh: 'true' });
  assert.equal(bulk.body.errors, false);
  assert.equal(bulk.body.items.length, 20);

  const got = await client.get({ index: 'books', type: '_doc', id: '7' });
  assert.deepEqual(got.body._source, { title: 'Book 7', year: 1997 });

  const upd = await client.update({ index: 'books', type: '_doc', id: '7', body: { script: { source: 'ctx._source.year += params.d', params: { d: 10 } } } });
  assert.equal(upd.body.result, 'updated');
  assert.equal((await client.get({ index: 'books', type: '_doc', id: '7' })).body._source.year, 2007);

  const del = await client.delete({ index: 'books', type: '_doc', id: '7', refresh: 'true' });
  assert.equal(del.body.result, 'deleted');
  await assert.rejects(client.get({ index: 'books', type: '_doc', id: '7' }), (e: any) => e.statusCode === 404 && e.body.found === false);
  await assert.rejects(client.indices.create({ index: 'books' }), (e: any) => e.statusCode === 400 && e.body.error.type === 'resource_already_exists_exception');

  const cat = await client.cat.indices({ format: 'json', h: 'index,docs.count' });
  assert.deepEqual(cat.body, [{ index: 'books', 'docs.count': '19' }]);
  const health = await client.cluster.health({ wait_for_status: 'green', timeout: '1s' });
  assert.equal(health.body.status, 'green');
});

test('@elastic/elasticsearch@6: termvectors, mtermvectors, script query, sliced scroll, slices, completion', async () => {
  const client = new Client({ node: s.esUrl });
  await client.indices.create({ index: 'js13', body: { settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { body: { type: 'text' }, n: { type: 'long' }, sug: { type: 'completion' } } } } } });
  const body: unknown[] = [];
  for (let i = 0; i < 10; i++) body.push({ index: { _index: 'js13', _type: '_doc', _id: String(i) } }, { body: `red fox ${i}`, n: i, sug: `fox ${i}` });
  await client.bulk({ body, refresh: 'true' });
  // The 6.x client builds /{index}/{type}/{id}/_termvectors and /{index}/{type}/_mtermvectors.
  const tv = await client.termvectors({ index: 'js13', type: '_doc', id: '2', fields: 'body', termStatistics: true });
  assert.deepEqual(Object.keys(tv.body.term_vectors.body.terms), ['2', 'fox', 'red']);
  assert.equal(tv.body.term_vectors.body.terms.fox.doc_freq, 10);
  const mtv = await client.mtermvectors({ index: 'js13', type: '_doc', body: { ids: ['1', '42'] }, fields: 'body' });
  assert.deepEqual(mtv.body.docs.map((d: any) => d.found), [true, false]);
  const sq = await client.count({ index: 'js13', body: { query: { script: { script: { source: "doc['n'].value >= params.min", params: { min: 7 } } } } } });
  assert.equal(sq.body.count, 3);
  let seen = 0;
  for (const id of [0, 1]) {
    const page = await client.search({ index: 'js13', scroll: '1m', size: 100, body: { slice: { id, max: 2 } } });
    seen += page.body.hits.hits.length;
  }
  assert.equal(seen, 10);
  const ubq = await client.updateByQuery({ index: 'js13', slices: 2, refresh: true, body: { script: { source: 'ctx._source.n += 1' } } });
  assert.deepEqual([ubq.body.updated, ubq.body.slices.length], [10, 2]);
  const sug = await client.search({ index: 'js13', body: { size: 0, suggest: { s: { prefix: 'fox', completion: { field: 'sug', size: 2 } } } } });
  assert.equal(sug.body.suggest.s[0].options.length, 2);
});
