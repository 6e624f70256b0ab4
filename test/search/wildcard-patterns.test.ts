/**
 * Issue 16 §1: field patterns with `*` wildcards are user input. As `^.*a.*a…b$` RegExps they backtracked
 * exponentially: `*a*a…*b` (12 stars) against a 40-character field name ran for minutes on the shard worker and
 * every document call routed there waited. Each request below gives up after 30 s (it answers in milliseconds).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
before(async () => { srv = await startServer({ services: ['documents'], workers: 1 }); });
after(async () => { await srv?.destroy(); });

const FIELD = 'a'.repeat(40);
const BOMB = `${'*a'.repeat(12)}*b`;

async function search(body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${srv.esUrl}/wild/_search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  return { status: r.status, json: await r.json() };
}

test('highlight, _source and query_string field patterns match without backtracking, and GETs keep answering', async () => {
  const put = await fetch(`${srv.esUrl}/wild/_doc/1?refresh=true`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [FIELD]: 'hello world', other: 'x' }) });
  assert.equal(put.status, 201);
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
