/**
 * Issue 16 §1: field patterns with `*` wildcards are user input. As `^.*a.*a…b$` RegExps they backtracked
 * exponentially: `*a*a…*b` (12 stars) against a 40-character field name ran for minutes on the shard worker and
 * every document call routed there waited. Each request below gives up after 30 s (it answers in milliseconds).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
const FIELD = 'a'.repeat(40);
const BOMB = `${'*a'.repeat(12)}*b`;

before(async () => {
  srv = await startServer({ services: ['documents'], workers: 1 });
  const put = await fetch(`${srv.esUrl}/wild/_doc/1?refresh=true`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [FIELD]: 'hello world', other: 'x' }) });
  assert.equal(put.status, 201);
});
after(async () => { await srv?.destroy(); });

async function search(body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${srv.esUrl}/wild/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return { status: r.status, json: await r.json() };
}

test('highlight, _source and query_string field patterns match without backtracking, and GETs keep answering', async () => {
  const hl = await search({ query: { match: { [FIELD]: 'hello' } }, highlight: { fields: { [BOMB]: {} } } });
  assert.equal(hl.status, 200, JSON.stringify(hl.json));
  assert.equal(hl.json.hits.hits[0].highlight, undefined);
  const src = await search({ _source: [BOMB, 'oth*'] });
  assert.equal(src.status, 200, JSON.stringify(src.json));
  assert.deepEqual(src.json.hits.hits[0]._source, { other: 'x' });
  const qs = await search({ query: { query_string: { query: 'hello', fields: [BOMB, `${'a'.repeat(39)}*`] } } });
  assert.equal(qs.status, 200, JSON.stringify(qs.json));
  assert.equal(qs.json.hits.total, 1);
  const get = await fetch(`${srv.esUrl}/wild/_doc/1`, { signal: AbortSignal.timeout(30_000) });
  assert.equal(get.status, 200);
});

// Type and setting-name patterns of the mapping and settings APIs: `*` only, other characters literal (a `[`
// used to reach a RegExp unescaped and fail as a 500).
test('_mapping type and _settings name patterns treat everything but * literally', async () => {
  const get = async (path: string): Promise<{ status: number; json: any }> => {
    const r = await fetch(`${srv.esUrl}${path}`, { signal: AbortSignal.timeout(30_000) });
    return { status: r.status, json: await r.json() };
  };
  assert.equal((await get('/wild/_mapping/_d*')).status, 200);
  assert.equal((await get('/wild/_mapping/[*')).status, 404);
  assert.equal((await get('/wild/_mapping/.doc*')).status, 404);
  const s = await get('/wild/_settings/index.number_of_*');
  assert.deepEqual(Object.keys(s.json.wild.settings.index).sort(), ['number_of_replicas', 'number_of_shards']);
  assert.deepEqual((await get('/wild/_settings/index.number.of.*')).json.wild.settings, {});
});
