/**
 * Issue 16 §2: bodies that used to overflow the stack (500 "Maximum call stack size exceeded") or be stored
 * wrongly get each API's 400 parse error, and leave stored data untouched: 10,000-level JSON on every API,
 * duplicate keys in a document (ES 6.8: `Duplicate field`), objects past ES's mapping depth limit (20), and
 * `_bulk` with a malformed action line.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
before(async () => { srv = await startServer({ workers: 2 }); });
after(async () => { await srv?.destroy(); });

const deepObj = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepArr = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;

async function es(method: string, path: string, body?: string, type = 'application/json'): Promise<{ status: number; json: any }> {
  const r = await fetch(srv.esUrl + path, { method, body, headers: { 'content-type': type } });
  return { status: r.status, json: await r.json() };
}

const reason = (j: any): string => JSON.stringify(j.error);

test('a 10,000-level document, search body, update or index body is a 400 parse error and nothing is stored', async () => {
  assert.equal((await es('PUT', '/deep')).status, 200);
  const doc = await es('PUT', '/deep/_doc/1', deepObj(10_000));
  assert.equal(doc.status, 400, reason(doc.json));
  assert.equal(doc.json.error.type, 'mapper_parsing_exception');
  const arr = await es('PUT', '/deep/_doc/2', `{"a":${deepArr(10_000)}}`);
  assert.equal(arr.status, 400, reason(arr.json));
  assert.match(arr.json.error.caused_by.reason, /nesting depth \(1001\) exceeds the maximum allowed \(1000/);
  assert.equal((await es('GET', '/deep/_doc/1')).status, 404);
  assert.equal((await es('GET', '/deep/_doc/2')).status, 404);

  const search = await es('POST', '/deep/_search', `{"query":${'{"bool":{"must":'.repeat(5000)}{"match_all":{}}${'}}'.repeat(5000)}}`);
  assert.equal(search.status, 400, reason(search.json));
  assert.equal(search.json.error.type, 'parse_exception');

  assert.equal((await es('PUT', '/deep/_doc/3?refresh=true', '{"n":1}')).status, 201);
  const upd = await es('POST', '/deep/_doc/3/_update', `{"doc":${deepObj(10_000)}}`);
  assert.equal(upd.status, 400, reason(upd.json));
  assert.deepEqual((await es('GET', '/deep/_doc/3')).json._source, { n: 1 });

  const idx = await es('PUT', '/deep2', `{"mappings":{"_doc":{"properties":${deepObj(10_000)}}}}`);
  assert.equal(idx.status, 400, reason(idx.json));
  assert.equal((await es('GET', '/deep2')).status, 404);
});

test('objects past the mapping depth limit (20) are refused as ES does; 20 levels are indexed', async () => {
  // deepObj(21): the top-level object and 20 object fields `a` … `a.a…a` (depth 20), the last holding a number.
  const ok = await es('PUT', '/depth20/_doc/1', deepObj(21));
  assert.equal(ok.status, 201, reason(ok.json));
  const over = await es('PUT', '/depth21/_doc/1', deepObj(22));
  assert.equal(over.status, 400);
  assert.equal(over.json.error.caused_by.type, 'illegal_argument_exception');
  assert.equal(over.json.error.caused_by.reason, `Limit of mapping depth [20] in index [depth21] has been exceeded due to object field [${Array(21).fill('a').join('.')}]`);
  assert.equal((await es('GET', '/depth21/_doc/1')).status, 404);
});

test('a document with a duplicate key is refused (ES 6.8: Duplicate field) and later updates keep working', async () => {
  const dup = await es('PUT', '/dups/_doc/1', '{"title":{"dup":1},"title":"x"}');
  assert.equal(dup.status, 400, reason(dup.json));
  assert.equal(dup.json.error.type, 'mapper_parsing_exception');
  assert.equal(dup.json.error.caused_by.type, 'json_parse_exception');
  assert.match(dup.json.error.caused_by.reason, /^Duplicate field 'title'\n at \[Source: .*line: 1, column: 20\]$/);
  assert.equal((await es('GET', '/dups/_doc/1')).status, 404);
  assert.equal((await es('PUT', '/dups/_doc/1', '{"title":"x","t":{"a":1,"b":{"a":2}}}')).status, 201);
  const upd = await es('POST', '/dups/_doc/1/_update', '{"doc":{"title":"y"}}');
  assert.equal(upd.status, 200, reason(upd.json));
  const search = await es('POST', '/dups/_search', '{"query":{"match_all":{}},"query":{"match_all":{}}}');
  assert.equal(search.json.error.type, 'json_parse_exception');
  assert.match(search.json.error.reason, /^Duplicate field 'query'/);
});

test('_bulk with a malformed action line is a 400 and runs none of its items', async () => {
  const body = '{"index":{"_index":"bulkbad","_type":"_doc","_id":"1"}}\n{"a":1}\nnot json\n{"a":2}\n';
  const r = await es('POST', '/_bulk', body, 'application/x-ndjson');
  assert.equal(r.status, 400, reason(r.json));
  assert.equal(r.json.error.type, 'json_parse_exception');
  assert.match(r.json.error.reason, /^Malformed action\/metadata line \[3\]/);
  assert.equal((await es('GET', '/bulkbad/_doc/1')).status, 404);
});

test('10,000-level PromQL and workflow bodies are 400 parse errors', async () => {
  for (const q of [`${'('.repeat(10_000)}1${')'.repeat(10_000)}`, `${'-'.repeat(10_000)}1`, `1${'+1'.repeat(10_000)}`, `${'abs('.repeat(10_000)}1${')'.repeat(10_000)}`]) {
    const r = await fetch(`${srv.promUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
    const j = await r.json() as { errorType: string; error: string };
    assert.equal(r.status, 400, j.error);
    assert.equal(j.errorType, 'bad_data');
    assert.match(j.error, /parse error: expression nested too deeply/);
  }
  const r = await fetch(`${srv.flowUrl}/workflow/manage/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deepObj(10_000) });
  const j = await r.json() as { success: boolean; error: string };
  assert.equal(r.status, 400, j.error);
  assert.match(j.error, /nested deeper than 1000 levels/);
});
