/**
 * The scrape loop against a loopback target served by the test: labels, report series, staleness markers,
 * failed scrapes storing nothing, honor_labels, metric relabelling; and the manager with file SD and reload.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { buildTargets } from '../../src/engine/scrape/target.ts';
import { ScrapeLoop } from '../../src/engine/scrape/scrape-loop.ts';
import { httpGet } from '../../src/engine/scrape/http-get.ts';
import { ScrapeManager } from '../../src/engine/scrape/scrape-manager.ts';
import { formatSeries } from '../../src/engine/exposition/exposition.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';
import { isStaleNaN } from '../../src/engine/tsdb/api.ts';
import { waitFor } from '../support/wait-for.ts';

let body = '';
let contentType = 'text/plain; version=0.0.4';
let status = 200;
let gzip = false;
const server: Server = createServer((req, res) => {
  if (req.url === '/slow') { setTimeout(() => { res.writeHead(200); res.end('late 1\n'); }, 1500); return; }
  res.writeHead(status, { 'Content-Type': contentType, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
  res.end(gzip ? gzipSync(body) : body);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;
after(() => server.close());

class MemSink {
  batches: IngestSample[][] = [];
  async append(s: IngestSample[]): Promise<void> { this.batches.push([...s]); }
  last(): Map<string, number> {
    const m = new Map<string, number>();
    for (const s of this.batches[this.batches.length - 1] ?? []) m.set(formatSeries(s.labels), s.v);
    return m;
  }
}

let clock = 1_700_000_000_000;
function loopFor(yaml: string, sink: MemSink): ScrapeLoop {
  const cfg = loadConfig(yaml.replace('PORT', String(port)), '/p.yml').scrapeConfigs[0];
  const t = buildTargets(cfg, cfg.staticConfigs).active[0];
  return new ScrapeLoop(t, cfg, { sink, now: () => clock, get: httpGet });
}

const JOB = `scrape_configs:\n  - job_name: app\n    static_configs: [{targets: ["127.0.0.1:PORT"], labels: {env: test}}]\n`;

test('a scrape stores samples with job/instance labels and report series', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  body = '# TYPE reqs counter\n# HELP reqs Requests.\nreqs{code="200"} 5\ntemp 21.5 1234\n';
  const r = await loop.scrapeOnce();
  assert.equal(r.health, 'up');
  const got = sink.last();
  const inst = `127.0.0.1:${port}`;
  assert.equal(got.get(`reqs{code="200",env="test",instance="${inst}",job="app"}`), 5);
  assert.equal(got.get(`temp{env="test",instance="${inst}",job="app"}`), 21.5);
  assert.equal(got.get(`up{env="test",instance="${inst}",job="app"}`), 1);
  assert.equal(got.get(`scrape_samples_scraped{env="test",instance="${inst}",job="app"}`), 2);
  assert.equal(got.get(`scrape_samples_post_metric_relabeling{env="test",instance="${inst}",job="app"}`), 2);
  assert.equal(got.get(`scrape_series_added{env="test",instance="${inst}",job="app"}`), 2);
  assert.ok(got.has(`scrape_duration_seconds{env="test",instance="${inst}",job="app"}`));
  const temp = sink.batches[0].find((s) => formatSeries(s.labels).startsWith('temp'))!;
  assert.equal(temp.t, 1234, 'honor_timestamps keeps the exposed timestamp');
  assert.deepEqual(loop.metadata.get('reqs'), { type: 'counter', help: 'Requests.', unit: '' });

  // Second scrape: reqs disappears -> stale marker; the cached series is reused (no new series added).
  clock += 15_000;
  body = 'temp 22\n';
  await loop.scrapeOnce();
  const b = sink.batches[1];
  const stale = b.find((s) => formatSeries(s.labels).startsWith('reqs'));
  assert.ok(stale && isStaleNaN(stale.v) && stale.t === clock);
  assert.equal(sink.last().get(`scrape_series_added{env="test",instance="${inst}",job="app"}`), 0);
});

test('a broken line fails the scrape, stores nothing from it and marks previous series stale', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  body = 'good 1\n';
  await loop.scrapeOnce();
  clock += 15_000;
  body = 'good 2\nbad{x="1" 3\nother 4\n';
  const r = await loop.scrapeOnce();
  assert.equal(r.health, 'down');
  assert.equal(loop.health, 'down');
  assert.match(loop.lastError, /line 2/);
  const names = sink.batches[1].map((s) => `${formatSeries(s.labels).split('{')[0]}=${isStaleNaN(s.v) ? 'stale' : s.v}`);
  assert.ok(names.includes('good=stale'));
  assert.ok(!names.includes('good=2') && !names.some((n) => n.startsWith('other')));
  assert.ok(names.includes('up=0'));
});

test('HTTP errors and refused connections give Prometheus-style lastError', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  status = 500;
  await loop.scrapeOnce();
  status = 200;
  assert.equal(loop.lastError, 'server returned HTTP status 500 Internal Server Error');
  const dead = loopFor(JOB.replace('127.0.0.1:PORT', '127.0.0.1:1'), sink);
  await dead.scrapeOnce();
  assert.equal(dead.health, 'down');
  assert.equal(dead.lastError, 'Get "http://127.0.0.1:1/metrics": dial tcp 127.0.0.1:1: connect: connection refused');
});

test('a target slower than scrape_timeout fails with context deadline exceeded', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB.replace('job_name: app', 'job_name: app\n    metrics_path: /slow\n    scrape_interval: 1s\n    scrape_timeout: 200ms'), sink);
  const r = await loop.scrapeOnce();
  assert.equal(r.health, 'down');
  assert.equal(loop.lastError, `Get "http://127.0.0.1:${port}/slow": context deadline exceeded`);
  assert.equal(sink.last().get(`up{env="test",instance="127.0.0.1:${port}",job="app"}`), 0);
});

test('sample_limit fails a scrape that exposes too many samples: up 0, counts still reported', async () => {
  const sink = new MemSink();
  body = 'a 1\nb 2\nc 3\n';
  const loop = loopFor(JOB.replace('job_name: app', 'job_name: app\n    sample_limit: 2'), sink);
  const r = await loop.scrapeOnce();
  assert.equal(loop.lastError, 'sample limit exceeded');
  assert.equal(r.health, 'down');
  const got = sink.last();
  const sel = `{env="test",instance="127.0.0.1:${port}",job="app"}`;
  assert.ok(![...got.keys()].some((k) => k.startsWith('a{')));
  assert.equal(got.get(`up${sel}`), 0);
  assert.equal(got.get(`scrape_samples_scraped${sel}`), 3);
  assert.equal(got.get(`scrape_samples_post_metric_relabeling${sel}`), 3);
});

/** Each limit with the scrape body that exceeds it and Prometheus 2.42's error text. */
const LIMIT_CASES: [string, string, string][] = [
  ['label_limit: 5', 'm{a="1",b="2",c="3"} 1\n',
    'label_limit exceeded (metric: m, number of labels: 7, limit: 5)'],
  ['label_name_length_limit: 8', 'm{long_name="1"} 1\n',
    'label_name_length_limit exceeded (metric: m, label name: long_name, length: 9, limit: 8)'],
  ['label_value_length_limit: 16', 'm{a="valuevaluevaluevalue"} 1\n',
    'label_value_length_limit exceeded (metric: m, label name: a, value: "valuevaluevaluevalue", length: 20, limit: 16)'],
  ['body_size_limit: 10B', 'm 1\nn 2\no 3\n', 'body size limit exceeded'],
];
for (const [limit, text, error] of LIMIT_CASES) {
  test(`${limit} fails the scrape with Prometheus's error and up 0`, async () => {
    const sink = new MemSink();
    body = 'ok 1\n';
    const loop = loopFor(JOB.replace('job_name: app', `job_name: app\n    ${limit}`), sink);
    assert.equal((await loop.scrapeOnce()).health, 'up');
    body = text;
    const r = await loop.scrapeOnce();
    assert.equal(r.error, error);
    const got = sink.last();
    const sel = `{env="test",instance="127.0.0.1:${port}",job="app"}`;
    assert.equal(got.get(`up${sel}`), 0);
    assert.ok(Number.isNaN(got.get(`ok${sel}`)), 'the previous scrape\'s series are marked stale');
    assert.ok(![...got.keys()].some((k) => k.startsWith('m{')), 'nothing of the failed scrape is stored');
  });
}

test('honor_labels and metric_relabel_configs', async () => {
  body = 'm{job="inner",instance="i1"} 1\ndropme 2\n';
  const clash = new MemSink();
  await loopFor(JOB, clash).scrapeOnce();
  const inst = `127.0.0.1:${port}`;
  assert.ok(clash.last().has(`m{env="test",exported_instance="i1",exported_job="inner",instance="${inst}",job="app"}`));
  const honored = new MemSink();
  await loopFor(JOB.replace('job_name: app', `job_name: app\n    honor_labels: true\n    metric_relabel_configs:\n      - source_labels: [__name__]\n        regex: dropme\n        action: drop`), honored).scrapeOnce();
  const got = honored.last();
  assert.ok(got.has('m{env="test",instance="i1",job="inner"}'));
  assert.ok(![...got.keys()].some((k) => k.startsWith('dropme')));
  assert.equal(got.get(`scrape_samples_post_metric_relabeling{env="test",instance="${inst}",job="app"}`), 1);
  assert.equal(got.get(`scrape_samples_scraped{env="test",instance="${inst}",job="app"}`), 2);
});

test('honor_timestamps: false stamps every sample with the scrape time', async () => {
  const sink = new MemSink();
  body = 'temp 21.5 1234\n';
  await loopFor(JOB.replace('job_name: app', 'job_name: app\n    honor_timestamps: false'), sink).scrapeOnce();
  const temp = sink.batches[0].find((s) => formatSeries(s.labels).startsWith('temp'))!;
  assert.equal(temp.t, clock);
});

test('OpenMetrics responses are parsed as OpenMetrics', async () => {
  const sink = new MemSink();
  contentType = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
  body = '# TYPE c counter\nc_total 3 100.5\n# EOF\n';
  await loopFor(JOB, sink).scrapeOnce();
  contentType = 'text/plain; version=0.0.4';
  const c = sink.batches[0].find((s) => formatSeries(s.labels).startsWith('c_total'))!;
  assert.equal(c.t, 100_500);
});

test('a series text read from a text-format body is checked again when the target turns to OpenMetrics', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  body = 'a{b="c",} 1\nz 2\n'; // a trailing comma: text format accepts it, OpenMetrics does not
  assert.equal((await loop.scrapeOnce()).health, 'up');
  contentType = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
  body = 'a{b="c",} 1\nz 2\n# EOF\n';
  try {
    for (let i = 0; i < 2; i++) {
      const r = await loop.scrapeOnce();
      assert.equal(r.health, 'down', `OpenMetrics scrape ${i + 1}`);
      assert.match(r.error, /unexpected "}" after ","/);
    }
  } finally {
    contentType = 'text/plain; version=0.0.4';
  }
});

test('manager: file SD targets appear, reload keeps survivors, removed targets go stale', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-sd-'));
  try {
    const sd = join(dir, 'targets.json');
    writeFileSync(sd, JSON.stringify([{ targets: [`127.0.0.1:${port}`], labels: { team: 'a' } }]));
    body = 'x 1\n';
    const sink = new MemSink();
    const errors: string[] = [];
    const mgr = new ScrapeManager({ sink, now: () => Date.now(), get: httpGet, jitterSeed: 't', onError: (m) => errors.push(m) });
    const yaml = (iv: string) => `scrape_configs:\n  - job_name: sd\n    scrape_interval: ${iv}\n    file_sd_configs: [{files: ["${dir}/*.json"]}]\n`;
    await mgr.apply(loadConfig(yaml('100ms'), join(dir, 'p.yml')));
    const pools = mgr.snapshot();
    assert.equal(pools[0].loops.length, 1);
    assert.deepEqual(pools[0].loops[0].target.labels.map((l) => l.name), ['instance', 'job', 'team']);
    await waitFor('a first scrape', () => sink.batches.length > 0);
    // File change: the target goes away -> staleness markers for its series.
    writeFileSync(sd, '[]');
    await waitFor('the target gone from the manager', () => mgr.snapshot()[0].loops.length === 0);
    await waitFor('stale markers for the gone target', () => sink.batches.some((b) => b.some((s) => formatSeries(s.labels).startsWith('x{') && isStaleNaN(s.v))));
    await mgr.stop();
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('https targets: tls_config ca_file verifies, insecure_skip_verify skips, an unknown CA fails', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const { createServer: createHttps } = await import('node:https');
  const { readFileSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'tessera-tls-'));
  try {
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
        '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    } catch {
      t.skip('openssl is not available to make a test certificate');
      return;
    }
    const srv = createHttps({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => { res.writeHead(200); res.end('tls_ok 1\n'); });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const tlsPort = (srv.address() as { port: number }).port;
    try {
      const job = (tls: string) => `scrape_configs:\n  - job_name: s\n    scheme: https\n${tls}    static_configs: [{targets: ["127.0.0.1:${tlsPort}"]}]\n`;
      const run = async (tls: string) => {
        const cfg = loadConfig(job(tls), join(dir, 'p.yml')).scrapeConfigs[0];
        const loop = new ScrapeLoop(buildTargets(cfg, cfg.staticConfigs).active[0], cfg, { sink: new MemSink(), now: () => clock, get: httpGet });
        await loop.scrapeOnce();
        return loop;
      };
      assert.equal((await run('    tls_config: {ca_file: cert.pem}\n')).health, 'up');
      assert.equal((await run('    tls_config: {insecure_skip_verify: true}\n')).health, 'up');
      const strict = await run('');
      assert.equal(strict.health, 'down');
      assert.match(strict.lastError, /^Get "https:\/\/127\.0\.0\.1:\d+\/metrics": .*certificate/);
    } finally {
      srv.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('series that left the target are evicted; the others keep their identity, staleness and counts', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  const lines = (from: number, to: number, round: number) => {
    let out = '';
    for (let i = from; i < to; i++) out += `ev_total{i="${i}"} ${i * 10 + round}\n`;
    return out;
  };
  const added = () => sink.last().get('scrape_series_added{env="test",instance="127.0.0.1:' + port + '",job="app"}');
  const value = (i: number) => sink.last().get(`ev_total{env="test",i="${i}",instance="127.0.0.1:${port}",job="app"}`);
  // 2,000 series (evictions start at 1,024 cache entries), then the first 1,000 leave for good.
  body = lines(0, 2000, 0);
  await loop.scrapeOnce();
  assert.equal(added(), 2000);
  let staleCount = 0;
  for (let round = 1; round <= 20; round++) {
    clock += 1000;
    // Series i=1 comes back in round 3, before the first eviction (scrape 8), and in round 19, after it.
    const back = round === 3 || round === 19;
    body = lines(1000, 2000, round) + (back ? 'ev_total{i="1"} 1\n' : '');
    const r = await loop.scrapeOnce();
    assert.equal(r.health, 'up');
    const batch = sink.batches[sink.batches.length - 1];
    staleCount += batch.filter((s) => isStaleNaN(s.v) && s.labels.some((l) => l.name === 'i')).length;
    for (const i of [1000, 1500, 1999]) assert.equal(value(i), i * 10 + round, `series ${i} in round ${round}`);
    // A series that comes back after its eviction is new again; one still cached is not.
    assert.equal(added(), round === 19 ? 1 : 0, `round ${round}`);
    if (back) assert.equal(value(1), 1);
  }
  // Each leaver is marked stale once when it left; series i=1 also each time it left again.
  assert.equal(staleCount, 1000 + 2);
});

test('bodies read into the kept buffer: a shorter body after a longer one, gzip after plain, and back', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  const lines = (n: number, v: number) => Array.from({ length: n }, (_, i) => `g{i="${i}"} ${v}\n`).join('');
  const seen: number[] = [];
  for (const [n, z] of [[3000, false], [2, false], [3000, true], [5, true], [4, false]] as const) {
    clock += 15_000;
    body = lines(n, n);
    gzip = z;
    const r = await loop.scrapeOnce();
    assert.equal(r.health, 'up', r.error);
    const got = [...sink.last()].filter(([k, v]) => k.startsWith('g{') && !isStaleNaN(v)); // the gone ones are marked stale
    assert.equal(got.length, n);
    assert.ok(got.every(([, v]) => v === n));
    seen.push(r.samples);
  }
  gzip = false;
  assert.deepEqual(seen, [3000, 2, 3000, 5, 4]);
});

test('samples go to their own series whatever order the target writes them in', async () => {
  const sink = new MemSink();
  const loop = loopFor(JOB, sink);
  const inst = `127.0.0.1:${port}`;
  const key = (n: string) => `s{env="test",i="${n}",instance="${inst}",job="app"}`;
  // Each round's value is the series' number plus a round offset, so a sample stored under a neighbour's series shows.
  const rounds: string[][] = [
    ['1', '2', '3', '4', '5'],
    ['1', '2', '3', '4', '5'], // the same order: every guess right
    ['1', '9', '2', '3', '5', '4'], // a new series in the middle, two swapped
    ['5', '4', '3', '2', '1', '9'], // reversed
    ['1', '2', '2', '3'], // a duplicate line: the first one counts
  ];
  for (let r = 0; r < rounds.length; r++) {
    clock += 15_000;
    body = rounds[r].map((n) => `s{i="${n}"} ${Number(n) + 100 * r}\n`).join('');
    const res = await loop.scrapeOnce();
    assert.equal(res.health, 'up', res.error);
    const got = sink.last();
    for (const n of new Set(rounds[r])) assert.equal(got.get(key(n)), Number(n) + 100 * r, `round ${r}, series ${n}`);
  }
});
