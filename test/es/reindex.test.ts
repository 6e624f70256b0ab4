/**
 * `_reindex` within a node (query, size, op_type create, external versions, routing, scripts, conflicts) and
 * from a second Tessera node over HTTP (`source.remote`), which must copy an index exactly; remote hosts must
 * be whitelisted.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let a: TestServer, b: TestServer;
before(async () => {
  a = await startServer({ services: ['documents'], workers: 1 });
  b = await startServer({ services: ['documents'], workers: 1, args: ['-E', `reindex.remote.whitelist=127.0.0.1:${new URL(a.esUrl).port}`] });
});
after(async () => { await a.destroy(); await b.destroy(); });

async function call(s: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const nd = typeof body === 'string';
  const res = await fetch(s.esUrl + path, { method, body: body === undefined ? undefined : nd ? body as string : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': nd ? 'application/x-ndjson' : 'application/json' } });
  const text = await res.text();
  try { return { status: res.status, body: JSON.parse(text) }; } catch { return { status: res.status, body: text }; }
}

async function load(s: TestServer, index: string, n: number): Promise<void> {
  let nd = '';
  for (let i = 0; i < n; i++) nd += `{"index":{"_index":"${index}","_type":"_doc","_id":"d${i}"${i % 10 === 0 ? ',"routing":"r1"' : ''}}}\n{"n":${i},"k":"${i % 3 === 0 ? 'x' : 'y'}","nested":{"a":[${i},${i + 1}],"s":"s${i}"}}\n`;
  const r = await call(s, 'POST', '/_bulk?refresh=true', nd);
  assert.equal(r.body.errors, false);
}

const docs = async (s: TestServer, index: string): Promise<Map<string, unknown>> => {
  const r = await call(s, 'POST', `/${index}/_search?size=10000`, { query: { match_all: {} } });
  return new Map(r.body.hits.hits.map((h: any) => [h._id, { source: h._source, routing: h._routing }]));
};

test('local reindex: all documents, a query with size, op_type create conflicts, routing kept', async () => {
  await load(a, 'src', 250);
  let r = await call(a, 'POST', '/_reindex?refresh=true', { source: { index: 'src', size: 100 }, dest: { index: 'dst' } });
  assert.equal(r.status, 200);
  assert.deepEqual({ total: r.body.total, created: r.body.created, updated: r.body.updated, batches: r.body.batches, failures: r.body.failures },
    { total: 250, created: 250, updated: 0, batches: 3, failures: [] });
  assert.deepEqual(await docs(a, 'dst'), await docs(a, 'src'), 'sources and routing copied');
  r = await call(a, 'POST', '/_reindex?refresh=true', { size: 10, source: { index: 'src', query: { term: { k: 'x' } } }, dest: { index: 'dst2' } });
  assert.equal(r.body.created, 10);
  r = await call(a, 'POST', '/_reindex', { source: { index: 'src' }, dest: { index: 'dst', op_type: 'create' } });
  assert.equal(r.status, 409);
  assert.equal(r.body.version_conflicts, 250, 'the first batch of 1,000 holds all 250, and all conflict');
  assert.equal(r.body.failures[0].cause.type, 'version_conflict_engine_exception');
  r = await call(a, 'POST', '/_reindex', { conflicts: 'proceed', source: { index: 'src' }, dest: { index: 'dst', op_type: 'create' } });
  assert.deepEqual([r.status, r.body.created, r.body.version_conflicts, r.body.failures], [200, 0, 250, []]);
});

test('local reindex: external versions, a script that edits, skips and deletes, discarded routing', async () => {
  await call(a, 'PUT', '/ver/_doc/1?version=7&version_type=external&refresh=true', { v: 1 });
  let r = await call(a, 'POST', '/_reindex?refresh=true', { source: { index: 'ver' }, dest: { index: 'ver2', version_type: 'external' } });
  assert.equal(r.body.created, 1);
  assert.equal((await call(a, 'GET', '/ver2/_doc/1')).body._version, 7);
  r = await call(a, 'POST', '/_reindex', { source: { index: 'ver' }, dest: { index: 'ver2', version_type: 'external' } });
  assert.equal(r.body.version_conflicts, 1, 'same external version is a conflict');

  await load(a, 'sc', 30);
  r = await call(a, 'POST', '/_reindex?refresh=true', {
    source: { index: 'sc' }, dest: { index: 'sc2', routing: 'discard' },
    script: { source: "if (ctx._source.n % 3 == 0) { ctx.op = 'noop' } else { ctx._source.doubled = ctx._source.n * 2; ctx._id = 'c-' + ctx._id }" },
  });
  assert.deepEqual([r.body.created, r.body.noops], [20, 10]);
  const got = await call(a, 'GET', '/sc2/_doc/c-d4');
  assert.deepEqual(got.body._source.doubled, 8);
  assert.equal(got.body._routing, undefined);
  assert.equal((await call(a, 'GET', '/sc2/_count')).body.count, 20);
});

test('reindex errors: missing source or dest, reading into itself, unknown fields, remote not whitelisted', async () => {
  let r = await call(a, 'POST', '/_reindex', { source: {}, dest: {} });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.reason, 'Validation Failed: 1: use _all if you really want to copy from all existing indexes;2: index must be specified;');
  await call(a, 'PUT', '/self');
  r = await call(a, 'POST', '/_reindex', { source: { index: 'self' }, dest: { index: 'self' } });
  assert.equal(r.status, 400);
  r = await call(a, 'POST', '/_reindex', { source: { index: 'self' }, dest: { index: 'x' }, bogus: 1 });
  assert.equal(r.status, 400);
  r = await call(a, 'POST', '/_reindex', { source: { index: 'src', remote: { host: 'http://127.0.0.1:1' } }, dest: { index: 'x' } });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.reason, '[127.0.0.1:1] not whitelisted in reindex.remote.whitelist');
  assert.equal((await call(a, 'HEAD', '/x')).status, 404, 'nothing created');
});

test('reindex from a second node over HTTP copies an index exactly', async () => {
  await load(a, 'remote-src', 1200);
  const r = await call(b, 'POST', '/_reindex?refresh=true', { source: { index: 'remote-src', size: 500, remote: { host: a.esUrl } }, dest: { index: 'copy' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual([r.body.total, r.body.created, r.body.batches], [1200, 1200, 3]);
  assert.deepEqual(await docs(b, 'copy'), await docs(a, 'remote-src'));
  const missing = await call(b, 'POST', '/_reindex', { source: { index: 'nope', remote: { host: a.esUrl } }, dest: { index: 'copy2' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.type, 'index_not_found_exception');
  const scrolls = await call(a, 'DELETE', '/_search/scroll/_all');
  assert.equal(scrolls.body.num_freed, 0, 'the remote scroll was cleared');
});
