/**
 * The official Python client (elasticsearch-py 7.17 from Debian's python3-elasticsearch) through the endpoints
 * of test/es/python/client_calls.py, with compressed requests (`http_compress`). Skipped when the package is
 * not installed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '../support/server.ts';

const PY = '/usr/bin/python3';
const hasClient = spawnSync(PY, ['-c', 'import elasticsearch'], { stdio: 'ignore' }).status === 0;
const skip = hasClient ? false : 'python3-elasticsearch is not installed (Debian package python3-elasticsearch): the Python client test is skipped';
const SCRIPT = fileURLToPath(new URL('./python/client_calls.py', import.meta.url));
const SCRIPT_MORE = fileURLToPath(new URL('./python/client_calls_more.py', import.meta.url));

let s: TestServer;
before(async () => { if (hasClient) s = await startServer({ services: ['documents'], workers: 2 }); });
after(async () => { await s?.destroy(); });

test('elasticsearch-py 7.17: mget, by-query, ingest, reindex, field_caps, cluster settings, close/open, explain, validate, stats, composite paging, collapse, suggest_field', { skip }, () => {
  const r = spawnSync(PY, [SCRIPT], { env: { ...process.env, ES_URL: s.esUrl }, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out, {
    ping: true, info: '6.8.23', bulk_ok: 50, mget: [true, true, false], update_by_query: 25, delete_by_query: 25, count_after: 25,
    simulate: { a: 'X' }, reindex: 25, via: 'python',
    field_caps: { n: { long: { type: 'long', searchable: true, aggregatable: true } }, t: { keyword: { type: 'keyword', searchable: true, aggregatable: true } } },
    settings: true, close: true, open: true, explain: true, validate: false, nodes_stats: 1, stats_docs: 25,
    composite_pages: [['even', 25]], collapse: [['even']], suggest: 'even',
  });
});

test('elasticsearch-py 7.17: termvectors, mtermvectors, script query and sort, sliced scroll, slices, verbose simulate, completion', { skip }, () => {
  const r = spawnSync(PY, [SCRIPT_MORE], { env: { ...process.env, ES_URL: s.esUrl }, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), {
    // doc_freq is the shard's (doc 3's shard holds 10 of the 20 docs)
    termvectors: { '3': 1, fox: 1, quick: 1 }, termvectors_fox_df: 10, mtermvectors: [true, true, false],
    script_query: 4, script_sort: ['0', '1', '2'], sliced_scroll: true, ubq_slices: [20, 2], ubq_auto: 2, simulate_verbose: 2,
    // items 18 and 19 were deleted by the sliced delete_by_query
    completion: ['item 17', 'item 16', 'item 15'],
  });
});
