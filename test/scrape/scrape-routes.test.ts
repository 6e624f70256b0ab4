/**
 * The ingestion routes driven through the router with an in-memory sample sink (no child server):
 * targets and metadata shapes, status endpoints, push gateway semantics, remote-write receive and the
 * remote-write sender's retries, and config reload refusing a bad file.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../../src/server/router.ts';
import { defaultFlags } from '../../src/server/flags.ts';
import { SelfMetrics } from '../../src/server/self-metrics.ts';
import type { ServerContext } from '../../src/server/context.ts';
import { promErrorFrom } from '../../src/server/prom/respond.ts';
import { registerScrapeRoutes } from '../../src/server/prom/scrape-routes.ts';
import { decodeWriteRequest, encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import type { IngestSample, RefusedSamples } from '../../src/engine/scrape/sample-sink.ts';
import { isStaleNaN, STALE_NAN } from '../../src/engine/tsdb/api.ts';
import { waitFor } from '../support/wait-for.ts';
import { bodyBytes } from '../../src/server/reply-body.ts';

const dir = mkdtempSync(join(tmpdir(), 'tessera-scrape-routes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// A target served by the test, and a remote-write endpoint that fails twice before accepting.
let received: IngestSample[] = [];
let failuresLeft = 2;
const srv = createServer((req, res) => {
  if (req.url === '/metrics') {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
    res.end('# HELP app_requests_total Requests.\n# TYPE app_requests_total counter\napp_requests_total{code="200"} 7\n');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    if (failuresLeft-- > 0) { res.writeHead(503); res.end('busy'); return; }
    received.push(...await decodeWriteRequest(Buffer.concat(chunks)));
    res.writeHead(204); res.end();
  });
});
await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
const port = (srv.address() as { port: number }).port;
after(() => srv.close());

const cfgFile = join(dir, 'prometheus.yml');
writeFileSync(cfgFile, `
global: {scrape_interval: 1s, external_labels: {cluster: c1}}
scrape_configs:
  - job_name: app
    static_configs: [{targets: ["127.0.0.1:${port}"]}]
    relabel_configs: [{source_labels: [__address__], regex: "nomatch.*", action: drop}]
  - job_name: gone
    static_configs: [{targets: ["nomatch:1"]}]
    relabel_configs: [{source_labels: [__address__], regex: "nomatch.*", action: drop}]
remote_write:
  - url: http://127.0.0.1:${port}/receive
    queue_config: {max_samples_per_send: 10, batch_send_deadline: 50ms, min_backoff: 10ms, max_backoff: 20ms}
`);

const appended: IngestSample[][] = [];
let appendResult: (RefusedSamples & { added: number; firstError: string }) | void;
const client = { async append(s: IngestSample[]) { appended.push([...s]); return appendResult; } };
const flags = { ...defaultFlags(), 'config.file': cfgFile, workers: 2, 'web.enable-remote-write-receiver': true };
const logs: string[] = [];
const ctx = {
  flags, dataDir: dir, pool: null as never, metrics: new SelfMetrics(), now: () => Date.now(),
  log: { debug() {}, info() {}, warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) },
} as unknown as ServerContext;
const router = new Router();
const hooks = registerScrapeRoutes(router, ctx, client);
await hooks.start!();
after(() => hooks.stop!());

async function call(method: string, url: string, body: string | Buffer = '', headers: Record<string, string> = {}) {
  const [path, qs = ''] = url.split('?');
  const m = router.match(method, path);
  assert.equal(m.kind, 'found', `${method} ${path} not routed`);
  if (m.kind !== 'found') throw new Error('unreachable');
  const req = { method, path, rawQuery: qs, query: new URLSearchParams(qs), headers, body: Buffer.from(body), remoteAddress: '127.0.0.1', signal: new AbortController().signal };
  // As the dispatcher does: anything thrown goes through the Prometheus error mapper.
  const res = await Promise.resolve().then(() => m.handler(req, m.params)).catch(promErrorFrom);
  const text = bodyBytes(res.body ?? '').toString();
  return { status: res.status, text, json: () => JSON.parse(text) };
}

test('targets: active with Prometheus fields, dropped, state filter', async () => {
  await waitFor('the target up', async () => (await call('GET', '/api/v1/targets')).json().data.activeTargets[0]?.health === 'up');
  const all = (await call('GET', '/api/v1/targets')).json();
  assert.equal(all.status, 'success');
  const t = all.data.activeTargets[0];
  assert.deepEqual(Object.keys(t), ['discoveredLabels', 'labels', 'scrapePool', 'scrapeUrl', 'globalUrl', 'lastError',
    'lastScrape', 'lastScrapeDuration', 'health', 'scrapeInterval', 'scrapeTimeout']);
  assert.deepEqual(t.labels, { instance: `127.0.0.1:${port}`, job: 'app' });
  assert.deepEqual(t.discoveredLabels, { __address__: `127.0.0.1:${port}`, __metrics_path__: '/metrics', __scheme__: 'http',
    __scrape_interval__: '1s', __scrape_timeout__: '1s', job: 'app' });
  assert.equal(t.scrapeUrl, `http://127.0.0.1:${port}/metrics`);
  assert.equal(t.lastError, '');
  assert.match(t.lastScrape, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.deepEqual(all.data.droppedTargets, [{ discoveredLabels: { __address__: 'nomatch:1', __metrics_path__: '/metrics',
    __scheme__: 'http', __scrape_interval__: '1s', __scrape_timeout__: '1s', job: 'gone' } }]);
  const active = (await call('GET', '/api/v1/targets?state=active')).json().data;
  assert.equal(active.droppedTargets.length, 0);
  assert.equal(active.activeTargets.length, 1);
  const dropped = (await call('GET', '/api/v1/targets?state=dropped')).json().data;
  assert.equal(dropped.activeTargets.length, 0);
  assert.equal(dropped.droppedTargets.length, 1);
  assert.deepEqual((await call('GET', '/api/v1/scrape_pools')).json().data, { scrapePools: ['app', 'gone'] });
  const gone = (await call('GET', '/api/v1/targets?scrapePool=gone')).json().data;
  assert.deepEqual([gone.activeTargets.length, gone.droppedTargets.length], [0, 1]);
  const app = (await call('GET', '/api/v1/targets?scrapePool=app')).json().data;
  assert.deepEqual([app.activeTargets.length, app.droppedTargets.length], [1, 0]);
});

test('scraped samples reach the client', () => {
  const all = appended.flat().map((s) => formatSeries(s.labels));
  assert.ok(all.includes(`app_requests_total{code="200",instance="127.0.0.1:${port}",job="app"}`));
  assert.ok(all.includes(`up{instance="127.0.0.1:${port}",job="app"}`));
});

test('metadata endpoints', async () => {
  const md = (await call('GET', '/api/v1/metadata')).json();
  assert.deepEqual(md.data.app_requests_total, [{ type: 'counter', help: 'Requests.', unit: '' }]);
  const one = (await call('GET', '/api/v1/metadata?metric=nope')).json();
  assert.deepEqual(one.data, {});
  const tm = (await call('GET', '/api/v1/targets/metadata?match_target=' + encodeURIComponent('{job="app"}') + '&metric=app_requests_total')).json();
  assert.deepEqual(tm.data, [{ target: { instance: `127.0.0.1:${port}`, job: 'app' }, type: 'counter', help: 'Requests.', unit: '' }]);
  const full = (await call('GET', '/api/v1/targets/metadata?match_target=' + encodeURIComponent('{job=~"a.+"}'))).json();
  assert.deepEqual(full.data[0], { target: { instance: `127.0.0.1:${port}`, job: 'app' }, metric: 'app_requests_total', type: 'counter', help: 'Requests.', unit: '' });
  const none = (await call('GET', '/api/v1/targets/metadata?match_target=' + encodeURIComponent('{job="x"}'))).json();
  assert.deepEqual(none.data, []);
  // A bare name is a metric-name selector (as in Prometheus), matching no target here.
  assert.deepEqual((await call('GET', '/api/v1/targets/metadata?match_target=job')).json().data, []);
  const bad = await call('GET', '/api/v1/targets/metadata?match_target=' + encodeURIComponent('{job=}'));
  assert.equal(bad.status, 400);
  assert.equal(bad.json().errorType, 'bad_data');
});

test('status endpoints', async () => {
  const cfg = (await call('GET', '/api/v1/status/config')).json();
  assert.match(cfg.data.yaml, /^global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1m\n  external_labels:\n    cluster: c1\n/);
  const flagsBody = (await call('GET', '/api/v1/status/flags')).json().data;
  assert.equal(flagsBody['config.file'], cfgFile);
  assert.equal(flagsBody['storage.tsdb.retention.time'], '15d');
  for (const v of Object.values(flagsBody)) assert.equal(typeof v, 'string');
  const rt = (await call('GET', '/api/v1/status/runtimeinfo')).json().data;
  assert.deepEqual(Object.keys(rt), ['startTime', 'CWD', 'reloadConfigSuccess', 'lastConfigTime', 'corruptionCount', 'goroutineCount', 'GOMAXPROCS', 'GOGC', 'GODEBUG', 'storageRetention']);
  assert.equal(rt.reloadConfigSuccess, true);
  assert.equal(rt.storageRetention, '15d');
  const bi = (await call('GET', '/api/v1/status/buildinfo')).json().data;
  assert.deepEqual(Object.keys(bi), ['version', 'revision', 'branch', 'buildUser', 'buildDate', 'goVersion']);
  assert.equal(bi.version, '2.42.0', 'the Prometheus version whose API is served (Grafana gates features on it)');
  assert.match(bi.revision, /^tessera-\d+\.\d+\.\d+/);
});

test('push gateway: PUT replaces, POST merges by family, DELETE removes', async () => {
  assert.equal((await call('PUT', '/metrics/job/batch/instance/i1', '# TYPE a counter\na 1\nb{x="1"} 2\n')).status, 200);
  let page = (await call('GET', '/pushgateway/metrics')).text;
  assert.match(page, /^a\{instance="i1",job="batch"\} 1$/m);
  assert.match(page, /^b\{instance="i1",job="batch",x="1"\} 2$/m);
  assert.match(page, /^push_time_seconds\{instance="i1",job="batch"\} \d+(\.\d+)?$/m);
  assert.match(page, /^# TYPE a counter$/m);
  assert.equal((await call('POST', '/metrics/job/batch/instance/i1', 'a 5\n')).status, 200);
  page = (await call('GET', '/pushgateway/metrics')).text;
  assert.match(page, /^a\{instance="i1",job="batch"\} 5$/m);
  assert.match(page, /^b\{instance="i1",job="batch",x="1"\} 2$/m, 'POST keeps other families');
  assert.equal((await call('PUT', '/metrics/job/batch/instance/i1', 'c 1\n')).status, 200);
  page = (await call('GET', '/pushgateway/metrics')).text;
  assert.doesNotMatch(page, /^b\{/m, 'PUT replaces the whole group');
  assert.equal((await call('PUT', '/metrics/job/other', 'c 3\n')).status, 200);
  assert.equal((await call('DELETE', '/metrics/job/batch/instance/i1')).status, 202);
  page = (await call('GET', '/pushgateway/metrics')).text;
  assert.doesNotMatch(page, /instance="i1"/);
  assert.match(page, /^c\{job="other"\} 3$/m);
  // Base64 grouping values, and refusals.
  assert.equal((await call('PUT', '/metrics/job@base64/' + Buffer.from('a/b').toString('base64url'), 'd 1\n')).status, 200);
  assert.match((await call('GET', '/pushgateway/metrics')).text, /^d\{job="a\/b"\} 1$/m);
  const ts = await call('PUT', '/metrics/job/x', 'e 1 1234\n');
  assert.equal(ts.status, 400);
  assert.match(ts.text, /must not have timestamps/);
  const broken = await call('PUT', '/metrics/job/x', 'e{ 1\n');
  assert.equal(broken.status, 400);
  assert.equal((await call('PUT', '/metrics/job/x', 'e{job="y"} 1\n')).status, 200, 'grouping labels override');
  page = (await call('GET', '/pushgateway/metrics')).text;
  assert.match(page, /^e\{job="x"\} 1$/m);
  assert.match(page, /^push_failure_time_seconds\{job="x"\} \d+(\.\d+)?$/m, 'the earlier failed pushes are recorded');
  assert.equal((await call('PUT', '/metrics/job/x/a', 'e 1\n')).status, 400, 'odd label path');
  const typeClash = await call('PUT', '/metrics/job/y', '# TYPE c gauge\nc 1\n');
  assert.equal(typeClash.status, 400, 'c is untyped in another group');
});

test('remote write receive: 204, samples appended with stale markers intact; 400 on garbage', async () => {
  const body = await encodeWriteRequest([
    { labels: [{ name: '__name__', value: 'rw_metric' }, { name: 'a', value: 'b' }], t: 1000, v: 1.5 },
    { labels: [{ name: '__name__', value: 'rw_metric' }, { name: 'a', value: 'b' }], t: 2000, v: STALE_NAN },
  ]);
  const before = appended.length;
  const r = await call('POST', '/api/v1/write', body, { 'content-encoding': 'snappy' });
  assert.equal(r.status, 204);
  const got = appended.slice(before).flat().filter((s) => s.labels[0].value === 'rw_metric');
  assert.equal(got.length, 2);
  assert.deepEqual(got[0], { labels: [{ name: '__name__', value: 'rw_metric' }, { name: 'a', value: 'b' }], t: 1000, v: 1.5 });
  assert.ok(isStaleNaN(got[1].v));
  assert.equal((await call('POST', '/api/v1/write', 'not snappy')).status, 400);
  // Refusals counted by the TSDB become a 400 with its message, so the sender does not retry.
  appendResult = { added: 0, outOfOrder: 1, duplicate: 0, outOfBounds: 0, firstError: 'out of order sample' };
  const refused = await call('POST', '/api/v1/write', body);
  appendResult = undefined;
  assert.equal(refused.status, 400);
  assert.equal(refused.text, 'out of order sample\n');
});

test('remote write send: retries through 503s, adds external labels, delivers everything', async () => {
  await waitFor('the remote-written sample', () => received.some((s) => s.labels.some((l) => l.value === 'rw_metric')));
  const rw = received.filter((s) => s.labels.some((l) => l.value === 'rw_metric'));
  assert.deepEqual(rw[0].labels, [{ name: '__name__', value: 'rw_metric' }, { name: 'a', value: 'b' }, { name: 'cluster', value: 'c1' }]);
  assert.ok(received.some((s) => formatSeries(s.labels).startsWith('up{')), 'scraped samples are forwarded too');
  assert.ok(logs.some((l) => /server returned HTTP status 503/.test(l)), 'the 503s were seen and retried');
  const page = ctx.metrics.render();
  assert.match(page, /prometheus_remote_storage_samples_retried_total\{remote_name="[0-9a-f]{6}",url="[^"]+"\} [1-9]/);
});

test('reload refuses a bad config and keeps the old one running', async () => {
  writeFileSync(cfgFile, 'scrape_configs:\n  - job_name: a\n    bogus: 1\n');
  await assert.rejects(hooks.reload!(), /field bogus not found/);
  const rt = (await call('GET', '/api/v1/status/runtimeinfo')).json().data;
  assert.equal(rt.reloadConfigSuccess, false);
  assert.equal((await call('GET', '/api/v1/targets')).json().data.activeTargets.length, 1);
  writeFileSync(cfgFile, `scrape_configs:\n  - job_name: app2\n    scrape_interval: 1s\n    static_configs: [{targets: ["127.0.0.1:${port}"]}]\n`);
  await hooks.reload!();
  const pools = (await call('GET', '/api/v1/scrape_pools')).json().data.scrapePools;
  assert.deepEqual(pools, ['app2']);
  // The removed job's series get staleness markers.
  await waitFor('stale markers for job app', () => appended.flat().some((s) => formatSeries(s.labels).includes('job="app"') && isStaleNaN(s.v)));
});
