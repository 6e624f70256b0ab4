/**
 * A shard answers a write batch as columns (workers/protocol.ts `WriteOutcomes`) with only the rare outcomes
 * as objects: a `_bulk` whose items mix plain results, errors, a noop, an update returning its source and a
 * new field (the batch stops, the mapping is updated and the rest is sent again) answers every item in place.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
before(async () => { s = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await s.destroy(); });

const bulk = async (lines: unknown[], query = ''): Promise<{ errors: boolean; items: Record<string, Record<string, unknown>>[] }> => {
  const res = await fetch(`${s.esUrl}/bo/_doc/_bulk${query}`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines.map((l) => JSON.stringify(l) + '\n').join('') });
  assert.equal(res.status, 200);
  return (await res.json()) as { errors: boolean; items: Record<string, Record<string, unknown>>[] };
};

test('a mixed bulk answers each item in its place, across a mapping update in the middle of the batch', async () => {
  await fetch(`${s.esUrl}/bo`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { number_of_shards: 1 }, mappings: { _doc: { properties: { a: { type: 'keyword' } } } } }) });
  await bulk([{ index: { _id: 'x' } }, { a: 'one' }]);
  const r = await bulk([
    { index: { _id: '1' } }, { a: 'b' },
    { create: { _id: 'x' } }, { a: 'taken' },
    { update: { _id: 'x' } }, { doc: { a: 'one' } },
    { update: { _id: 'x', _source: true } }, { doc: { a: 'two' } },
    { index: { _id: '2' } }, { a: 'c', fresh: 7 },
    { delete: { _id: 'none' } },
    { index: { _id: '3' } }, { a: 'd', fresh: 8 },
    { index: { _id: '4' } }, { a: 'e', fresh: 'not a number' },
  ], '?refresh=true');
  assert.equal(r.errors, true);
  const got = r.items.map((it) => {
    const [action, v] = Object.entries(it)[0];
    return [action, v._id, v.status, v.result ?? (v.error as { type: string }).type, v._version, v.forced_refresh ?? false];
  });
  assert.deepEqual(got, [
    ['index', '1', 201, 'created', 1, true],
    ['create', 'x', 409, 'version_conflict_engine_exception', undefined, false],
    ['update', 'x', 200, 'noop', 1, false],
    ['update', 'x', 200, 'updated', 2, true],
    ['index', '2', 201, 'created', 1, true],
    ['delete', 'none', 404, 'not_found', 1, true],
    ['index', '3', 201, 'created', 1, true],
    ['index', '4', 400, 'mapper_parsing_exception', undefined, false],
  ]);
  const seqNos = r.items.map((it) => Object.values(it)[0]._seq_no as number | undefined);
  assert.deepEqual(seqNos.filter((n) => n !== undefined), [1, 2, 3, 4, 5], 'seq_no follows the writes (a noop shows none)');
  assert.deepEqual((r.items[3].update.get as { _source: unknown })._source, { a: 'two' });
  const count = (await (await fetch(`${s.esUrl}/bo/_count?q=fresh:8`)).json()) as { count: number };
  assert.equal(count.count, 1, 'the item after the mapping update was written and refreshed');
});

test('a bulk response is UTF-8: ids beyond ASCII come back as sent', async () => {
  const ids = ['é', 'dé✓', '😀-x', 'q"uote\\'];
  const r = await bulk(ids.flatMap((id) => [{ index: { _id: id } }, { a: id }]));
  assert.equal(r.errors, false);
  assert.deepEqual(r.items.map((it) => it.index._id), ids);
  const got = (await (await fetch(`${s.esUrl}/bo/_doc/${encodeURIComponent('😀-x')}`)).json()) as { _source: { a: string } };
  assert.equal(got._source.a, '😀-x');
});

test('a bulk of only index and create items (sent to the shard as columns) keeps each source and outcome in place across a mapping update', async () => {
  // Every item is plain, so the batch crosses as columns; the new field stops it and the rest is rebuilt from them.
  const sources = [{ a: 'p0' }, { a: 'p1', later: 'new field' }, { a: 'p2é✓', later: 'x' }, { a: 'p3' }];
  const r = await bulk([
    { index: { _id: 'c0' } }, sources[0],
    { create: { _id: 'c1' } }, sources[1],
    { create: { _id: 'c0' } }, { a: 'taken' },
    { index: {} }, sources[2],
    { create: { _id: 'c3' } }, sources[3],
  ]);
  assert.equal(r.errors, true);
  assert.deepEqual(r.items.map((it) => { const [action, v] = Object.entries(it)[0]; return [action, v.status, v.result ?? (v.error as { type: string }).type]; }), [
    ['index', 201, 'created'], ['create', 201, 'created'], ['create', 409, 'version_conflict_engine_exception'], ['index', 201, 'created'], ['create', 201, 'created'],
  ]);
  const ids = r.items.map((it) => Object.values(it)[0]._id as string);
  assert.equal(ids[3].length, 20, 'an auto id');
  for (const [k, i] of [[0, 0], [1, 1], [2, 3], [3, 4]]) {
    const got = (await (await fetch(`${s.esUrl}/bo/_doc/${encodeURIComponent(ids[i])}`)).json()) as { _source: unknown };
    assert.deepEqual(got._source, sources[k], `item ${i}'s source`);
  }
});
