/**
 * `search.max_buckets` (issue 16 §2): set transiently or persistently it fails a search whose aggregations build
 * more buckets — on a shard (all shards failed, phase query) or in the final reduce with gap-filled histogram
 * buckets (phase fetch) — with 6.8's too_many_buckets_exception and 503; unset, 6.8's deprecation warning past
 * 10,000 buckets and this node's default bound of 65,535.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { esCall } from '../support/es-call.ts';

let s: TestServer;
before(async () => {
  s = await startServer({ services: ['documents'], workers: 1 });
  await esCall(s, 'PUT', '/mb', { settings: { number_of_shards: 1 } });
  const lines: string[] = [];
  for (let i = 0; i < 20; i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify({ k: `k${i}`, sub: [`s${i % 4}`, `s${(i + 1) % 4}`], v: i === 19 ? 70_000 : i, d: new Date(Date.UTC(2020, 0, 1 + i)).toISOString() }));
  const r = await esCall(s, 'POST', '/mb/_doc/_bulk?refresh=true', lines.join('\n') + '\n', true);
  assert.equal(r.body.errors, false);
});
after(async () => { await s.destroy(); });

const settings = (persistent: object, transient: object = {}) => esCall(s, 'PUT', '/_cluster/settings', { persistent, transient });

async function search(aggs: object, query: object = { match_all: {} }): Promise<{ status: number; body: any; warning: string | null }> {
  const res = await fetch(`${s.esUrl}/mb/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ size: 0, query, aggs }) });
  return { status: res.status, body: await res.json(), warning: res.headers.get('warning') };
}

const terms = (size: number, aggs?: object) => ({ a: { terms: { field: 'k.keyword', size }, ...(aggs ? { aggs } : {}) } });
const reason = (limit: number) => `Trying to create too many buckets. Must be less than or equal to: [${limit}] but was [${limit + 1}]. This limit can be set by changing the [search.max_buckets] cluster level setting.`;

function assertTooMany(r: { status: number; body: any }, limit: number, phase: 'query' | 'fetch'): void {
  assert.equal(r.status, 503, JSON.stringify(r.body));
  assert.equal(r.body.error.type, 'search_phase_execution_exception');
  assert.equal(r.body.error.phase, phase);
  assert.deepEqual(r.body.error.root_cause, [{ type: 'too_many_buckets_exception', reason: reason(limit), max_buckets: limit }]);
  if (phase === 'query') assert.deepEqual(r.body.error.failed_shards[0].reason, { type: 'too_many_buckets_exception', reason: reason(limit), max_buckets: limit });
  else {
    assert.deepEqual(r.body.error.failed_shards, []);
    assert.deepEqual(r.body.error.caused_by, { type: 'too_many_buckets_exception', reason: reason(limit), max_buckets: limit });
  }
}

test('a transient limit counts the shard buckets, sub-aggregations included, and the reduce with filled gaps', async () => {
  assert.equal((await settings({}, { search: { max_buckets: 10 } })).status, 200);
  assertTooMany(await search(terms(20)), 10, 'query');
  let r = await search(terms(10));
  assert.equal(r.status, 200, 'exactly the limit is allowed');
  assert.equal(r.body.aggregations.a.buckets.length, 10);
  // 4 terms buckets with 2 sub buckets each: more than 10 only with the nested ones counted.
  assertTooMany(await search(terms(4, { b: { terms: { field: 'sub.keyword' } } })), 10, 'query');
  r = await search(terms(2, { b: { terms: { field: 'sub.keyword', size: 2 } } }));
  assert.equal(r.status, 200);
  // Two docs 5 apart: the shard builds 2 buckets, the reduce fills the 4 between them, then extended_bounds more.
  const range = { terms: { 'k.keyword': ['k0', 'k5'] } };
  r = await search({ h: { histogram: { field: 'v', interval: 1 } } }, range);
  assert.equal(r.body.aggregations.h.buckets.length, 6);
  assertTooMany(await search({ h: { histogram: { field: 'v', interval: 1, extended_bounds: { min: 0, max: 10 } } } }, range), 10, 'fetch');
  r = await search({ h: { date_histogram: { field: 'd', interval: '1d' } } }, range);
  assert.equal(r.body.aggregations.h.buckets.length, 6);
  assertTooMany(await search({ h: { date_histogram: { field: 'd', interval: '1d', extended_bounds: { min: '2020-01-01', max: '2020-01-11' } } } }, range), 10, 'fetch');
  r = await search({ h: { histogram: { field: 'v', interval: 1, min_doc_count: 1, extended_bounds: { min: 0, max: 10 } } } }, range);
  assert.equal(r.body.aggregations.h.buckets.length, 2, 'min_doc_count 1 fills no gaps');
});

test('a persistent limit applies under a transient one reset to null, and null restores the default', async () => {
  await settings({ 'search.max_buckets': 15 }, { 'search.max_buckets': null });
  const got = await esCall(s, 'GET', '/_cluster/settings?flat_settings=true');
  assert.deepEqual([got.body.persistent['search.max_buckets'], got.body.transient['search.max_buckets']], ['15', undefined]);
  assertTooMany(await search(terms(20)), 15, 'query');
  assert.equal((await search(terms(15))).status, 200);
  await settings({ 'search.max_buckets': null });
  const r = await search(terms(20));
  assert.equal(r.status, 200);
  assert.equal(r.body.aggregations.a.buckets.length, 20);
  assert.equal(r.warning, null);
});

test('unset: past 10,000 buckets 6.8 warns, past 65,535 the default bound fails the search', async () => {
  const range = (max: number) => ({ range: { v: { lte: max } } });
  let r = await search({ h: { histogram: { field: 'v', interval: 1, extended_bounds: { min: 0, max: 10_000 } } } }, range(18));
  assert.equal(r.status, 200);
  assert.equal(r.body.aggregations.h.buckets.length, 10_001);
  assert.match(r.warning ?? '', /^299 Elasticsearch-6\.8\.23-4f67856 "This aggregation creates too many buckets \(10001\) and will throw an error in future versions\. You should update the \[search\.max_buckets\] cluster setting or use the \[composite\] aggregation to paginate all buckets in multiple requests\." "\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT"$/);
  r = await search({ h: { histogram: { field: 'v', interval: 1, extended_bounds: { min: 0, max: 9_999 } } } }, range(18));
  assert.equal(r.body.aggregations.h.buckets.length, 10_000);
  assert.equal(r.warning, null, 'no warning at 10,000');
  // 0 .. 70,000 at interval 1 would be 70,001 buckets.
  assertTooMany(await search({ h: { histogram: { field: 'v', interval: 1 } } }), 65_535, 'fetch');
  // With a limit set no warning: the limit is what the user chose.
  await settings({}, { 'search.max_buckets': 20_000 });
  r = await search({ h: { histogram: { field: 'v', interval: 1, extended_bounds: { min: 0, max: 10_000 } } } }, range(18));
  assert.equal(r.status, 200);
  assert.equal(r.warning, null);
  await settings({}, { 'search.max_buckets': null });
});

test('a scroll warns on its first response, which computes the aggregations; its pages carry none, as 6.8', async () => {
  const aggs = { h: { histogram: { field: 'v', interval: 1, extended_bounds: { min: 0, max: 10_000 } } } };
  const first = await fetch(`${s.esUrl}/mb/_search?scroll=1m`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ size: 5, query: { range: { v: { lte: 18 } } }, aggs }) });
  const body = await first.json() as any;
  assert.equal(first.status, 200);
  assert.equal(body.aggregations.h.buckets.length, 10_001);
  assert.match(first.headers.get('warning') ?? '', /^299 Elasticsearch-6\.8\.23-4f67856 "This aggregation creates too many buckets \(10001\)/);
  const page = await fetch(`${s.esUrl}/_search/scroll`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scroll: '1m', scroll_id: body._scroll_id }) });
  const pageBody = await page.json() as any;
  assert.equal(page.status, 200);
  assert.equal(pageBody.hits.hits.length, 5);
  assert.equal(pageBody.aggregations, undefined);
  assert.equal(page.headers.get('warning'), null);
  await esCall(s, 'DELETE', '/_search/scroll', { scroll_id: body._scroll_id });
});

test('the setting takes an int of at least -1, as Setting.intSetting', async () => {
  let r = await settings({}, { 'search.max_buckets': 'many' });
  assert.equal(r.status, 400);
  assert.deepEqual([r.body.error.type, r.body.error.reason, r.body.error.caused_by?.type], ['illegal_argument_exception', 'Failed to parse value [many] for setting [search.max_buckets]', 'number_format_exception']);
  r = await settings({ 'search.max_buckets': -2 });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.reason, 'Failed to parse value [-2] for setting [search.max_buckets] must be >= -1');
  assert.equal((await esCall(s, 'GET', '/_cluster/settings?flat_settings=true')).body.transient['search.max_buckets'], undefined, 'refused values are not stored');
});
