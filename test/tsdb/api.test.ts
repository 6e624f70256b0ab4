/**
 * HTTP tests of the metadata, admin and status endpoints against a real child server. Data comes from a
 * block written into the data directory before start (the import path) plus, for head data, a second
 * start after delete; responses are compared with the shapes captured from Prometheus 2.42.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeBlock } from '../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { startServer, type TestServer } from '../support/server.ts';

const T0 = 1_704_067_200_000; // 2024-01-01T00:00:00Z, 2h-aligned
let srv: TestServer;

function demoSeries() {
  const out = [];
  const t = Float64Array.from({ length: 240 }, (_, i) => T0 + i * 15_000);
  for (const inst of ['demo.promlabs.com:10000', 'demo.promlabs.com:10001', 'demo.promlabs.com:10002']) {
    out.push({ labels: labelsFromRecord({ __name__: 'demo_num_cpus', instance: inst, job: 'demo' }), t, v: new Float64Array(240).fill(4) });
    out.push({ labels: labelsFromRecord({ __name__: 'demo_disk_total_bytes', instance: inst, job: 'demo' }), t, v: new Float64Array(240).fill(1e12) });
  }
  out.push({ labels: labelsFromRecord({ __name__: 'other', code: '200', job: 'x' }), t, v: Float64Array.from(t, (_, i) => i) });
  return out;
}

before(async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-tsdb-api-'));
  await writeBlock(path.join(dataDir, 'tsdb'), demoSeries(), T0, T0 + 2 * 3_600_000);
  // No scrape jobs: the built-in self-scrape would add `up` and `scrape_*` series whenever it happens to run.
  const config = path.join(dataDir, 'prometheus.yml');
  writeFileSync(config, 'scrape_configs: []\n');
  srv = await startServer({ dataDir, services: ['metrics'], workers: 2, args: ['--web.enable-lifecycle', '--web.enable-admin-api', '--config.file', config] });
});
after(async () => { await srv?.destroy(); });

async function get(p: string, init?: RequestInit): Promise<{ status: number; body: string }> {
  const r = await fetch(srv.promUrl + p, init);
  return { status: r.status, body: await r.text() };
}

const form = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

test('series, labels and label values match the 2.42 captures', async () => {
  const cases: [string, number, string][] = [
    ['/api/v1/series?match[]=demo_num_cpus&start=1704067200&end=1704070800', 200,
      '{"status":"success","data":[{"__name__":"demo_num_cpus","instance":"demo.promlabs.com:10000","job":"demo"},{"__name__":"demo_num_cpus","instance":"demo.promlabs.com:10001","job":"demo"},{"__name__":"demo_num_cpus","instance":"demo.promlabs.com:10002","job":"demo"}]}'],
    ['/api/v1/series?match[]=demo_num_cpus%7Binstance%3D%22demo.promlabs.com%3A10000%22%7D&match[]=demo_disk_total_bytes%7Binstance%3D%22demo.promlabs.com%3A10000%22%7D', 200,
      '{"status":"success","data":[{"__name__":"demo_disk_total_bytes","instance":"demo.promlabs.com:10000","job":"demo"},{"__name__":"demo_num_cpus","instance":"demo.promlabs.com:10000","job":"demo"}]}'],
    ['/api/v1/series', 400, '{"status":"error","errorType":"bad_data","error":"no match[] parameter provided"}'],
    ['/api/v1/series?match[]=%7Bjob%3D~%22.%2A%22%7D', 400,
      '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"match[]\\": match[] must contain at least one non-empty matcher"}'],
    ['/api/v1/series?match[]=foo%7B', 400,
      '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"match[]\\": 1:5: parse error: unexpected end of input inside braces"}'],
    ['/api/v1/series?match[]=up&start=abc', 400,
      '{"status":"error","errorType":"bad_data","error":"invalid parameter \\"start\\": Invalid time value for \'start\': cannot parse \\"abc\\" to a valid timestamp"}'],
    ['/api/v1/series?match[]=demo_num_cpus&start=1704081600', 200, '{"status":"success","data":[]}'],
    ['/api/v1/labels', 200, '{"status":"success","data":["__name__","code","instance","job"]}'],
    ['/api/v1/labels?match[]=demo_num_cpus&start=1704067200&end=1704070800', 200, '{"status":"success","data":["__name__","instance","job"]}'],
    ['/api/v1/label/instance/values?match[]=demo_num_cpus', 200,
      '{"status":"success","data":["demo.promlabs.com:10000","demo.promlabs.com:10001","demo.promlabs.com:10002"]}'],
    ['/api/v1/label/__name__/values', 200, '{"status":"success","data":["demo_disk_total_bytes","demo_num_cpus","other"]}'],
    ['/api/v1/label/nonexistent/values', 200, '{"status":"success","data":[]}'],
    ['/api/v1/label/in-valid/values', 400, '{"status":"error","errorType":"bad_data","error":"invalid label name: \\"in-valid\\""}'],
  ];
  for (const [url, status, body] of cases) {
    const r = await get(url);
    assert.equal(r.status, status, url);
    assert.equal(r.body, body, url);
  }
  const post = await get('/api/v1/series', form('match[]=other'));
  assert.equal(post.body, '{"status":"success","data":[{"__name__":"other","code":"200","job":"x"}]}');
});

test('status endpoints', async () => {
  const wal = await get('/api/v1/status/walreplay');
  assert.equal(wal.body, '{"status":"success","data":{"min":0,"max":0,"current":0}}');
  const st = JSON.parse((await get('/api/v1/status/tsdb')).body);
  // A backfilled-only TSDB reports an empty head whose range is the newest block's max time (capture 58).
  assert.deepEqual(st.data.headStats, { numSeries: 0, numLabelPairs: 0, chunkCount: 0, minTime: T0 + 7_200_000, maxTime: T0 + 7_200_000 });
  assert.deepEqual(Object.keys(st.data), ['headStats', 'seriesCountByMetricName', 'labelValueCountByLabelName', 'memoryInBytesByLabelName', 'seriesCountByLabelValuePair']);
});

test('delete_series hides data at once; clean_tombstones and snapshot answer like Prometheus', async () => {
  let r = await get('/api/v1/admin/tsdb/delete_series', form('match[]=demo_num_cpus{instance="demo.promlabs.com:10001"}'));
  assert.equal(r.status, 204);
  assert.equal(r.body, '');
  r = await get('/api/v1/series?match[]=demo_num_cpus');
  assert.equal(JSON.parse(r.body).data.length, 2);
  r = await get('/api/v1/admin/tsdb/delete_series', { method: 'POST' });
  assert.equal(r.body, '{"status":"error","errorType":"bad_data","error":"no match[] parameter provided"}');
  const cleanupsTimed = async (): Promise<number> => Number(/^prometheus_tsdb_tombstone_cleanup_seconds_count (\S+)$/m.exec((await get('/metrics')).body)![1]);
  const before = await cleanupsTimed();
  r = await get('/api/v1/admin/tsdb/clean_tombstones', { method: 'POST' });
  assert.equal(r.status, 204);
  assert.equal(await cleanupsTimed(), before + 1, 'each call is timed');
  assert.equal(JSON.parse((await get('/api/v1/series?match[]=demo_num_cpus')).body).data.length, 2);
  r = await get('/api/v1/admin/tsdb/snapshot', { method: 'POST' });
  const name = JSON.parse(r.body).data.name as string;
  assert.match(name, /^\d{8}T\d{6}Z-[0-9a-f]{16}$/);
  const snapDir = path.join(srv.dataDir, 'tsdb', 'snapshots', name);
  assert.ok(existsSync(snapDir));
  assert.equal(readdirSync(snapDir).length, 1); // the (cleaned) imported block; both heads are empty
  r = await get('/api/v1/admin/tsdb/snapshot?skip_head=maybe', { method: 'POST' });
  assert.equal(r.status, 400);
});

test('PromQL reads the store through the client (instant and range)', async () => {
  const r = await get('/api/v1/query?query=demo_disk_total_bytes&time=1704070800');
  assert.equal(r.status, 200);
  const res = JSON.parse(r.body).data.result as { metric: Record<string, string>; value: [number, string] }[];
  assert.deepEqual(res.map((x) => [x.metric.instance, x.value[0], x.value[1]]), [
    ['demo.promlabs.com:10000', 1704070800, '1000000000000'],
    ['demo.promlabs.com:10001', 1704070800, '1000000000000'],
    ['demo.promlabs.com:10002', 1704070800, '1000000000000'],
  ]);
  const range = JSON.parse((await get('/api/v1/query_range?query=sum(other)&start=1704067200&end=1704067260&step=30')).body);
  assert.deepEqual(range.data.result[0].values, [[1704067200, '0'], [1704067230, '2'], [1704067260, '4']]);
});

test('a block written into the running server\'s TSDB directory is served after /-/reload', async () => {
  const t = Float64Array.from([T0 + 1000, T0 + 2000]);
  await writeBlock(path.join(srv.dataDir, 'tsdb'), [{ labels: labelsFromRecord({ __name__: 'late_import', job: 'y' }), t, v: t }], T0, T0 + 7_200_000);
  assert.equal((await get('/api/v1/series?match[]=late_import')).body, '{"status":"success","data":[]}');
  assert.equal((await get('/-/reload', { method: 'POST' })).status, 200);
  assert.equal((await get('/api/v1/series?match[]=late_import')).body, '{"status":"success","data":[{"__name__":"late_import","job":"y"}]}');
});
