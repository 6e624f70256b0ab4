/**
 * HTTP and DNS service discovery, and `target_limit`, through the scrape manager: targets an HTTP SD
 * endpoint served by this test lists (with `__meta_url` and its auth) are scraped; DNS SD (through a fake
 * resolver) yields targets with Prometheus's meta labels; a pool over its target limit fails every scrape
 * with Prometheus's error; kinds Tessera does not implement are logged and the static targets still run.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { httpGet } from '../../src/engine/scrape/http-get.ts';
import { ScrapeManager } from '../../src/engine/scrape/scrape-manager.ts';
import { DnsDiscovery, type DnsLookup } from '../../src/engine/scrape/dns-sd.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import { waitFor } from '../support/wait-for.ts';
import type { DnsSdConfig, TargetGroup } from '../../src/engine/scrape/sd-config.ts';

let sdBody = '[]';
let sdType = 'application/json';
let sdHeaders: IncomingHttpHeaders = {};
const server = createServer((req, res) => {
  if (req.url === '/sd') {
    sdHeaders = req.headers;
    res.writeHead(200, { 'Content-Type': sdType });
    res.end(sdBody);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
  res.end(`hits{path="${req.url}"} 1\n`);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;
after(() => server.close());

class MemSink {
  samples: IngestSample[] = [];
  async append(s: IngestSample[]): Promise<void> { this.samples.push(...s); }
  has(prefix: string): boolean { return this.samples.some((s) => formatSeries(s.labels).startsWith(prefix)); }
}

function manager(sink: MemSink, errors: string[] = []): ScrapeManager {
  return new ScrapeManager({ sink, now: () => Date.now(), get: httpGet, jitterSeed: 't', onError: (m) => errors.push(m) });
}

test('http_sd_configs: listed targets are scraped with __meta_url available to relabelling', async () => {
  sdBody = JSON.stringify([{ targets: [`127.0.0.1:${port}`], labels: { team: 'a' } }]);
  const sink = new MemSink();
  const mgr = manager(sink);
  try {
    await mgr.apply(loadConfig(`
scrape_configs:
  - job_name: h
    scrape_interval: 100ms
    authorization: {credentials: scrape-secret}
    http_sd_configs: [{url: "http://127.0.0.1:${port}/sd", authorization: {credentials: sd-secret}}]
    relabel_configs: [{source_labels: [__meta_url], regex: ".*/(sd)", target_label: from}]
`, '/p.yml'));
    assert.equal(sdHeaders.authorization, 'Bearer sd-secret');
    assert.equal(sdHeaders['x-prometheus-refresh-interval-seconds'], '60');
    await waitFor('a scrape of the discovered target', () => sink.has('hits{from="sd",'));
    const hit = sink.samples.find((s) => formatSeries(s.labels).startsWith('hits'))!;
    assert.equal(formatSeries(hit.labels), `hits{from="sd",instance="127.0.0.1:${port}",job="h",path="/metrics",team="a"}`);
  } finally {
    await mgr.stop();
  }
});

test('http_sd_configs: a reply that is not JSON is an error and no targets', async () => {
  sdType = 'text/plain';
  const errors: string[] = [];
  const mgr = manager(new MemSink(), errors);
  try {
    await mgr.apply(loadConfig(`scrape_configs: [{job_name: h, http_sd_configs: [{url: "http://127.0.0.1:${port}/sd"}]}]`, '/p.yml'));
    assert.deepEqual(errors, [`http discovery http://127.0.0.1:${port}/sd: unsupported content type "text/plain"`]);
    assert.equal(mgr.snapshot()[0].loops.length, 0);
  } finally {
    sdType = 'application/json';
    await mgr.stop();
  }
});

test('dns_sd_configs: SRV, A and MX records become targets with Prometheus meta labels', async () => {
  const lookup: DnsLookup = {
    resolveSrv: async () => [{ name: 'node1.example.com', port: 9100 }],
    resolve4: async () => ['10.0.0.1'],
    resolve6: async () => ['::1'],
    resolveMx: async () => [{ exchange: 'mx.example.com' }],
  };
  const groupsOf = async (cfg: DnsSdConfig): Promise<TargetGroup[]> => {
    const d = new DnsDiscovery(cfg, () => undefined, (m) => assert.fail(m), lookup);
    try { return await d.start(); } finally { d.stop(); }
  };
  const [srv] = await groupsOf({ names: ['_node._tcp.example.com'], type: 'SRV', port: 0, refreshIntervalMs: 30_000 });
  assert.deepEqual(srv.targets, ['node1.example.com:9100']);
  assert.deepEqual(srv.targetLabels, [{ __meta_dns_name: '_node._tcp.example.com', __meta_dns_srv_record_target: 'node1.example.com.', __meta_dns_srv_record_port: '9100', __meta_dns_mx_record_target: '' }]);
  assert.deepEqual((await groupsOf({ names: ['a.example.com'], type: 'A', port: 80, refreshIntervalMs: 1 }))[0].targets, ['10.0.0.1:80']);
  assert.deepEqual((await groupsOf({ names: ['a.example.com'], type: 'AAAA', port: 80, refreshIntervalMs: 1 }))[0].targets, ['[::1]:80']);
  const [mx] = await groupsOf({ names: ['example.com'], type: 'MX', port: 25, refreshIntervalMs: 1 });
  assert.deepEqual([mx.targets, mx.targetLabels?.[0].__meta_dns_mx_record_target], [['mx.example.com:25'], 'mx.example.com.']);
});

test('target_limit: a pool over its limit fails every scrape with up 0', async () => {
  const sink = new MemSink();
  const mgr = manager(sink);
  try {
    await mgr.apply(loadConfig(`
scrape_configs:
  - job_name: limited
    scrape_interval: 100ms
    target_limit: 1
    static_configs: [{targets: ["127.0.0.1:${port}", "localhost:${port}"]}]
`, '/p.yml'));
    const loops = mgr.snapshot()[0].loops;
    await waitFor('both targets reported', () => loops.every((l) => l.lastScrapeMs > 0));
    for (const l of loops) assert.equal(l.lastError, 'target_limit exceeded (number of targets: 2, limit: 1)');
    assert.ok(!sink.has('hits'), 'no target was scraped');
    assert.ok(sink.samples.filter((s) => formatSeries(s.labels).startsWith('up{')).every((s) => s.v === 0));
  } finally {
    await mgr.stop();
  }
});

test('service discoveries Tessera does not implement are logged; static targets still scrape', async () => {
  const sink = new MemSink();
  const errors: string[] = [];
  const mgr = manager(sink, errors);
  try {
    await mgr.apply(loadConfig(`
scrape_configs:
  - job_name: mixed
    scrape_interval: 100ms
    kubernetes_sd_configs: [{role: pod}]
    static_configs: [{targets: ["127.0.0.1:${port}"]}]
`, '/p.yml'));
    assert.deepEqual(errors, ['scrape pool mixed: kubernetes_sd_configs is not supported by Tessera; its targets are not discovered']);
    await waitFor('the static target scraped', () => sink.has('hits'));
  } finally {
    await mgr.stop();
  }
});
