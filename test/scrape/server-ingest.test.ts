/**
 * End to end through real Tessera child processes: a loopback target served by this test is scraped via
 * `--config.file` and its series appear in `/api/v1/series` (and `/api/v1/query`); a push reaches the
 * TSDB through the built-in `/pushgateway/metrics` scrape; remote write Tessera → Tessera with
 * external labels; an OpenMetrics import served by a server started on the imported directory.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';
import { runTsdbCli } from '../../src/cli/tsdb-import.ts';
import { waitFor } from '../support/wait-for.ts';
import { encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';

const dir = mkdtempSync(join(tmpdir(), 'tessera-ingest-e2e-'));
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.destroy();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const target = createServer((_req, res) => {
  counter++;
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
  res.end(`# TYPE e2e_requests_total counter\ne2e_requests_total{path="/a"} ${counter}\n`);
});
await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
const targetPort = (target.address() as { port: number }).port;
after(() => target.close());

async function json(url: string, init?: RequestInit): Promise<any> {
  const r = await fetch(url, init);
  return r.json();
}

async function series(s: TestServer, match: string): Promise<Record<string, string>[]> {
  const body = await json(`${s.promUrl}/api/v1/series?match[]=${encodeURIComponent(match)}`);
  assert.equal(body.status, 'success', JSON.stringify(body));
  return body.data;
}

test('scrape of a loopback target via --config.file, visible in /api/v1/series and /api/v1/query', async (t) => {
  const cfg = join(dir, 'scrape.yml');
  writeFileSync(cfg, `global: {scrape_interval: 1s}\nscrape_configs:\n  - job_name: e2e\n    static_configs: [{targets: ["127.0.0.1:${targetPort}"], labels: {env: t}}]\n`);
  const s = await startServer({ services: ['metrics'], args: ['--config.file', cfg] });
  servers.push(s);
  const got = await waitFor('scraped series', async () => {
    const d = await series(s, 'e2e_requests_total');
    return d.length ? d : null;
  });
  assert.deepEqual(got, [{ __name__: 'e2e_requests_total', env: 't', instance: `127.0.0.1:${targetPort}`, job: 'e2e', path: '/a' }]);
  const up = await series(s, 'up');
  assert.ok(up.some((l) => l.job === 'e2e'));
  // The target's health is recorded once the scrape's append has committed, just after the series shows.
  await waitFor('health up', async () => (await json(`${s.promUrl}/api/v1/targets`)).data.activeTargets[0].health === 'up');
  const q = await json(`${s.promUrl}/api/v1/query?query=${encodeURIComponent('up{job="e2e"}')}`);
  assert.equal(q.status, 'success', JSON.stringify(q));
  assert.deepEqual(q.data.result.map((r: { metric: Record<string, string>; value: [number, string] }) => [r.metric.instance, r.value[1]]),
    [[`127.0.0.1:${targetPort}`, '1']]);
  t.diagnostic('PromQL sees the scraped samples');
});

test('push gateway: pushed group is scraped by the built-in config with honor_labels', async () => {
  const s = await startServer({ services: ['metrics'] });
  servers.push(s);
  const r = await fetch(`${s.promUrl}/metrics/job/nightly/instance/box1`, { method: 'PUT', body: '# TYPE backup_ok gauge\nbackup_ok 1\n' });
  assert.equal(r.status, 200);
  const got = await waitFor('pushed series scraped (15 s default interval)', async () => {
    const d = await series(s, 'backup_ok');
    return d.length ? d : null;
  }, 40_000);
  assert.deepEqual(got, [{ __name__: 'backup_ok', instance: 'box1', job: 'nightly' }]);
});

test('remote write is refused unless --web.enable-remote-write-receiver, as in Prometheus 2.42', async () => {
  const off = await startServer({ services: ['metrics'] });
  servers.push(off);
  const body = await encodeWriteRequest([{ labels: [{ name: '__name__', value: 'rw_off' }], t: Date.now(), v: 1 }]);
  const r = await fetch(`${off.promUrl}/api/v1/write`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy' } });
  assert.equal(r.status, 404);
  assert.equal(await r.text(), 'remote write receiver needs to be enabled with --web.enable-remote-write-receiver\n');
  assert.deepEqual(await series(off, 'rw_off'), []);
});

test('remote write round trip: Tessera A sends what it scrapes to Tessera B', async () => {
  const b = await startServer({ services: ['metrics'], args: ['--web.enable-remote-write-receiver'] });
  servers.push(b);
  const cfg = join(dir, 'rw.yml');
  writeFileSync(cfg, `global: {scrape_interval: 1s, external_labels: {replica: a}}
scrape_configs:
  - job_name: e2e
    static_configs: [{targets: ["127.0.0.1:${targetPort}"]}]
remote_write:
  - url: ${b.promUrl}/api/v1/write
    queue_config: {batch_send_deadline: 100ms}
`);
  const a = await startServer({ services: ['metrics'], args: ['--config.file', cfg] });
  servers.push(a);
  const got = await waitFor('remote-written series on B', async () => {
    const d = await series(b, 'e2e_requests_total');
    return d.length ? d : null;
  });
  assert.deepEqual(got, [{ __name__: 'e2e_requests_total', instance: `127.0.0.1:${targetPort}`, job: 'e2e', path: '/a', replica: 'a' }]);
});

test('import an OpenMetrics file, then a server on that TSDB directory serves it', async () => {
  const om = join(dir, 'backfill.om');
  const lines: string[] = ['# TYPE backfilled gauge'];
  for (let i = 0; i < 600; i++) lines.push(`backfilled{host="h${i % 3}"} ${i} ${1_700_000_000 + i * 30}`);
  writeFileSync(om, lines.join('\n') + '\n# EOF\n');
  const data = mkdtempSync(join(tmpdir(), 'tessera-import-e2e-'));
  const tsdbDir = join(data, 'tsdb');
  let err = '';
  const code = await runTsdbCli(['create-blocks-from', 'openmetrics', om, tsdbDir], { stdout: () => {}, stderr: (e) => { err += e; } });
  assert.equal(code, 0, err);
  const s = await startServer({ services: ['metrics'], dataDir: data, args: ['--storage.tsdb.path', tsdbDir] });
  servers.push(s);
  const got = await series(s, 'backfilled');
  assert.deepEqual(got.map((l) => l.host), ['h0', 'h1', 'h2']);
  const q = await json(`${s.promUrl}/api/v1/query?query=${encodeURIComponent('backfilled{host="h1"}')}&time=${1_700_000_000 + 599 * 30}`);
  assert.equal(q.status, 'success', JSON.stringify(q));
  assert.equal(q.data.result[0].value[1], '598');
});

test('a running server serves blocks imported into its TSDB directory after /-/reload', async () => {
  const s = await startServer({ services: ['metrics'], args: ['--web.enable-lifecycle'] });
  servers.push(s);
  assert.deepEqual(await series(s, 'late_import'), []);
  const om = join(dir, 'late.om');
  writeFileSync(om, `late_import{k="v"} 1 ${1_700_000_000}\nlate_import{k="v"} 2 ${1_700_000_030}\n# EOF\n`);
  const code = await runTsdbCli(['create-blocks-from', 'openmetrics', om, join(s.dataDir, 'tsdb')], { stdout: () => {}, stderr: () => {} });
  assert.equal(code, 0);
  assert.equal((await fetch(`${s.promUrl}/-/reload`, { method: 'POST' })).status, 200);
  assert.deepEqual(await series(s, 'late_import'), [{ __name__: 'late_import', k: 'v' }]);
});
