/**
 * The notifier against a loopback HTTP server standing in for Alertmanager: the v2 payload shape, external
 * labels and alert relabelling, batches of 64, retries of a failed batch, and the `alerting` config section;
 * then the real `prometheus-alertmanager` from Debian when it is installed (skipped otherwise).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchPostJson, Notifier, toNotifierAlerts } from '../../src/engine/rules/notifier.ts';
import { alertingSetup, checkAlertingSupported } from '../../src/engine/rules/alerting-config.ts';
import { loadConfig } from '../../src/engine/scrape/config.ts';
import { stringify } from 'yaml';

/** The notifier setup of an `alerting` section written as an object, with static targets only. */
function parseAlerting(alerting: Record<string, unknown>) {
  const cfg = loadConfig(stringify({ alerting }), '/p.yml').alerting;
  checkAlertingSupported(cfg);
  return alertingSetup(cfg, cfg.alertmanagers.map((am) => am.staticConfigs));
}
import type { Alert } from '../../src/engine/rules/alerting-rule.ts';

interface Received { url: string; headers: IncomingMessage['headers']; body: unknown }

async function fakeAlertmanager(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => { data += c; });
    req.on('end', () => {
      received.push({ url: `${req.method} ${req.url}`, headers: req.headers, body: JSON.parse(data) });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { received, port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const alert = (i: number, over: Partial<Alert> = {}): Alert => ({
  labels: [{ name: 'alertname', value: 'High' }, { name: 'i', value: String(i) }],
  annotations: [{ name: 'summary', value: `value ${i}` }],
  state: 'firing', value: 1, activeAt: 1_700_000_000_000, firedAt: 1_700_000_030_000, resolvedAt: 0,
  lastSentAt: 1_700_000_030_000, validUntil: 1_700_000_270_000, keepFiringSince: 0, ...over,
});

function notifier(warnings: string[] = []) {
  return new Notifier({ queueCapacity: 10_000, post: fetchPostJson, warn: (m, f) => warnings.push(`${m} ${JSON.stringify(f)}`), backoffMs: 10 });
}

test('alerts are POSTed to /api/v2/alerts with the PostableAlert shape', async () => {
  const am = await fakeAlertmanager();
  try {
    const setup = parseAlerting({
      alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${am.port}`] }], path_prefix: '/am', timeout: '5s' }],
      alert_relabel_configs: [{ source_labels: ['i'], regex: '2', action: 'drop' }],
    });
    const n = notifier();
    n.configure(setup.sets, [{ name: 'dc', value: 'eu' }, { name: 'i', value: 'ext' }], setup.alertRelabel);
    assert.deepEqual(n.alertmanagerUrls(), [`http://127.0.0.1:${am.port}/am/api/v2/alerts`]);
    n.send(toNotifierAlerts('up{job="a b"} == 0', [alert(1), alert(2), alert(3, { state: 'inactive', resolvedAt: 1_700_000_090_000 })], 'http://tessera:9090'));
    await n.flush();
    assert.equal(am.received.length, 1);
    const r = am.received[0];
    assert.equal(r.url, 'POST /am/api/v2/alerts');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.body, [
      {
        annotations: { summary: 'value 1' }, endsAt: '2023-11-14T22:17:50.000Z', startsAt: '2023-11-14T22:13:50.000Z',
        generatorURL: 'http://tessera:9090/graph?g0.expr=up%7Bjob%3D%22a+b%22%7D+%3D%3D+0&g0.tab=1',
        labels: { alertname: 'High', dc: 'eu', i: '1' },
      },
      {
        annotations: { summary: 'value 3' }, endsAt: '2023-11-14T22:14:50.000Z', startsAt: '2023-11-14T22:13:50.000Z',
        generatorURL: 'http://tessera:9090/graph?g0.expr=up%7Bjob%3D%22a+b%22%7D+%3D%3D+0&g0.tab=1',
        labels: { alertname: 'High', dc: 'eu', i: '3' },
      },
    ]);
    assert.deepEqual(n.stats, { sent: 2, errors: 0, dropped: 0 });
  } finally {
    await am.close();
  }
});

test('alerts go out in batches of at most 64', async () => {
  const am = await fakeAlertmanager();
  try {
    const n = notifier();
    n.configure(parseAlerting({ alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${am.port}`] }] }] }).sets, [], []);
    n.send(toNotifierAlerts('x', Array.from({ length: 70 }, (_, i) => alert(i)), 'http://t'));
    await n.flush();
    assert.deepEqual(am.received.map((r) => (r.body as unknown[]).length), [64, 6]);
  } finally {
    await am.close();
  }
});

test('a failed batch is retried; a persistent failure is counted and logged', async () => {
  const am = await fakeAlertmanager([500, 503, 200, 500, 500, 500, 400]);
  try {
    const warnings: string[] = [];
    const n = notifier(warnings);
    n.configure(parseAlerting({ alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${am.port}`] }] }] }).sets, [], []);
    n.send(toNotifierAlerts('x', [alert(1)], 'http://t'));
    await n.flush();
    assert.equal(am.received.length, 3);
    assert.deepEqual(n.stats, { sent: 1, errors: 0, dropped: 0 });
    n.send(toNotifierAlerts('x', [alert(2)], 'http://t'));
    await n.flush();
    assert.equal(am.received.length, 6);
    assert.deepEqual(n.stats, { sent: 1, errors: 1, dropped: 0 });
    assert.match(warnings[0], /Error sending alert.*bad response status 500/);
    n.send(toNotifierAlerts('x', [alert(3)], 'http://t'));
    await n.flush();
    assert.equal(am.received.length, 7, 'a 4xx is not retried');
  } finally {
    await am.close();
  }
});

test('alerting config: relabelled targets, dropped targets, unsupported settings', () => {
  const s = parseAlerting({
    alertmanagers: [{
      scheme: 'https', static_configs: [{ targets: ['a:9093', 'b:9093'] }],
      relabel_configs: [{ source_labels: ['__address__'], regex: 'b:.*', action: 'drop' }],
    }],
  });
  assert.deepEqual(s.sets[0].urls, ['https://a:9093/api/v2/alerts']);
  assert.deepEqual(s.dropped, ['https://b:9093/api/v2/alerts']);
  assert.throws(() => parseAlerting({ alertmanagers: [{ api_version: 'v1' }] }), /api_version v1 is not supported/);
  assert.throws(() => parseAlerting({ alertmanagers: [{ dns_sd_configs: [{ names: [] }] }] }), /DNS-SD config must contain at least one SRV record name/);
});

const AM_BIN = '/usr/bin/prometheus-alertmanager';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('the real Alertmanager accepts the payload (v2 API)', { skip: existsSync(AM_BIN) ? false : `${AM_BIN} not installed`, timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-am-'));
  writeFileSync(join(dir, 'am.yml'), 'route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n');
  const port = await freePort();
  const am = spawn(AM_BIN, [`--config.file=${join(dir, 'am.yml')}`, `--storage.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address='], { stdio: 'ignore' });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (const limit = Date.now() + 45_000; !(await fetch(`${base}/-/ready`).then((r) => r.ok, () => false));) {
      if (Date.now() > limit) throw new Error('alertmanager did not become ready within 45 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const n = notifier();
    n.configure(parseAlerting({ alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${port}`] }] }] }).sets, [{ name: 'dc', value: 'eu' }], []);
    const now = Date.now();
    n.send(toNotifierAlerts('up == 0', [alert(1, { firedAt: now - 30_000, validUntil: now + 240_000 })], 'http://tessera:9090'));
    await n.flush();
    assert.deepEqual(n.stats, { sent: 1, errors: 0, dropped: 0 });
    const got = await (await fetch(`${base}/api/v2/alerts`)).json() as { labels: Record<string, string>; annotations: Record<string, string>; generatorURL: string; status: { state: string } }[];
    assert.equal(got.length, 1);
    assert.deepEqual(got[0].labels, { alertname: 'High', dc: 'eu', i: '1' });
    assert.deepEqual(got[0].annotations, { summary: 'value 1' });
    assert.equal(got[0].generatorURL, 'http://tessera:9090/graph?g0.expr=up+%3D%3D+0&g0.tab=1');
    assert.equal(got[0].status.state, 'active');
  } finally {
    am.kill('SIGTERM');
    await new Promise((r) => am.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});
