/**
 * `/api/v1/rules`, `/api/v1/alerts` and `/api/v1/alertmanagers` over HTTP on a real Tessera child process
 * started with a `--config.file` that has `rule_files` and an Alertmanager (a loopback server in this
 * test): the 2.42 JSON shapes, the `type` filter, the notification that reaches the Alertmanager, and a
 * reload with a bad rule file that is refused while the old rules keep running.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';

const RULES = `groups:
  - name: example
    interval: 1s
    rules:
      - record: job:one
        expr: vector(1)
        labels: {src: rule}
      - alert: AlwaysFiring
        expr: vector(1)
        labels: {severity: none}
        annotations:
          summary: "always firing {{ $value }} in {{ $externalLabels.dc }}"
      - alert: PendingForever
        expr: vector(2) > 1
        for: 1h
`;

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return { status: r.status, body: await r.json() };
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

test('rules and alerts API over HTTP, notifications, and a refused reload', { timeout: 90_000 }, async () => {
  const posts: unknown[] = [];
  const am = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => { data += c; });
    req.on('end', () => { if (req.url === '/api/v2/alerts') posts.push(JSON.parse(data)); res.end(); });
  });
  await new Promise<void>((r) => am.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'tessera-rules-api-'));
  writeFileSync(join(dir, 'rules.yml'), RULES);
  writeFileSync(join(dir, 'prometheus.yml'), [
    'global: {evaluation_interval: 1s, external_labels: {dc: eu}}',
    'rule_files: ["rules.yml", "missing-*.yml"]',
    'alerting:',
    '  alertmanagers:',
    `    - static_configs: [{targets: ["127.0.0.1:${(am.address() as AddressInfo).port}"]}]`,
  ].join('\n'));
  const srv = await startServer({
    services: ['metrics'],
    args: ['--config.file', join(dir, 'prometheus.yml'), '--web.enable-lifecycle', '--web.external-url', 'http://tessera.example:9090/'],
  });
  try {
    // Wait for a whole group evaluation to have completed (the group's lastEvaluation is set at its end).
    const rules = await waitFor('a complete group evaluation', async () => {
      const r = await getJson(`${srv.promUrl}/api/v1/rules`);
      const g0 = r.body.data.groups[0];
      return g0 && g0.lastEvaluation !== '0001-01-01T00:00:00Z' && g0.rules[2].state !== 'inactive' ? r : null;
    });
    assert.equal(rules.status, 200);
    assert.equal(rules.body.status, 'success');
    const g = rules.body.data.groups[0];
    assert.deepEqual(Object.keys(g), ['name', 'file', 'rules', 'interval', 'limit', 'evaluationTime', 'lastEvaluation']);
    assert.equal(g.name, 'example');
    assert.equal(g.file, join(dir, 'rules.yml'));
    assert.equal(g.interval, 1);
    assert.equal(g.limit, 0);
    assert.match(g.lastEvaluation, RFC3339);
    const [rec, firing, pending] = g.rules;
    assert.deepEqual(Object.keys(rec).filter((k) => k !== 'lastError'),
      ['name', 'query', 'labels', 'health', 'evaluationTime', 'lastEvaluation', 'type']);
    assert.deepEqual([rec.name, rec.query, rec.labels, rec.type], ['job:one', 'vector(1)', { src: 'rule' }, 'recording']);
    assert.deepEqual(Object.keys(firing), ['state', 'name', 'query', 'duration', 'keepFiringFor', 'labels', 'annotations', 'alerts',
      'health', 'evaluationTime', 'lastEvaluation', 'type'].filter((k) => k in firing));
    assert.equal(firing.type, 'alerting');
    assert.equal(firing.duration, 0);
    assert.deepEqual(firing.labels, { severity: 'none' });
    assert.deepEqual(firing.annotations, { summary: 'always firing {{ $value }} in {{ $externalLabels.dc }}' });
    assert.equal(firing.alerts.length, 1);
    const a = firing.alerts[0];
    assert.deepEqual(Object.keys(a), ['labels', 'annotations', 'state', 'activeAt', 'value']);
    assert.deepEqual(a.labels, { alertname: 'AlwaysFiring', severity: 'none' });
    assert.deepEqual(a.annotations, { summary: 'always firing 1 in eu' });
    assert.equal(a.state, 'firing');
    assert.equal(a.value, '1e+00');
    assert.match(a.activeAt, RFC3339);
    assert.equal(pending.state, 'pending');
    assert.equal(pending.duration, 3600);
    assert.deepEqual(pending.alerts.map((x: { state: string; value: string }) => [x.state, x.value]), [['pending', '2e+00']]);
    assert.equal(pending.query, 'vector(2) > 1');

    assert.deepEqual(g.rules.map((r: { health: string; lastError?: string }) => [r.health, r.lastError]), [['ok', undefined], ['ok', undefined], ['ok', undefined]]);
    // Rule results are written to the TSDB: the recorded series and ALERTS / ALERTS_FOR_STATE exist.
    const series = await waitFor('rule output in the TSDB', async () => {
      const r = await getJson(`${srv.promUrl}/api/v1/series?match[]=job:one&match[]=ALERTS&match[]=ALERTS_FOR_STATE`);
      return r.body.data?.length >= 5 ? r.body.data : null;
    });
    assert.deepEqual(series, [
      { __name__: 'ALERTS', alertname: 'AlwaysFiring', alertstate: 'firing', severity: 'none' },
      { __name__: 'ALERTS', alertname: 'PendingForever', alertstate: 'pending' },
      { __name__: 'ALERTS_FOR_STATE', alertname: 'AlwaysFiring', severity: 'none' },
      { __name__: 'ALERTS_FOR_STATE', alertname: 'PendingForever' },
      { __name__: 'job:one', src: 'rule' },
    ]);

    const firingNow = await getJson(`${srv.promUrl}/api/v1/query?query=${encodeURIComponent('ALERTS{alertstate="firing"}')}`);
    assert.deepEqual(firingNow.body.data.result.map((r: { metric: unknown; value: [number, string] }) => [r.metric, r.value[1]]),
      [[{ __name__: 'ALERTS', alertname: 'AlwaysFiring', alertstate: 'firing', severity: 'none' }, '1']]);

    const raw = await (await fetch(`${srv.promUrl}/api/v1/rules`)).text();
    assert.ok(raw.includes('"query":"vector(2) \\u003e 1"'), 'Go escapes < > & in JSON strings');

    const onlyAlerts = await getJson(`${srv.promUrl}/api/v1/rules?type=alert`);
    assert.deepEqual(onlyAlerts.body.data.groups[0].rules.map((r: { name: string }) => r.name), ['AlwaysFiring', 'PendingForever']);
    const onlyRecords = await getJson(`${srv.promUrl}/api/v1/rules?type=RECORD`);
    assert.deepEqual(onlyRecords.body.data.groups[0].rules.map((r: { name: string }) => r.name), ['job:one']);
    const badType = await getJson(`${srv.promUrl}/api/v1/rules?type=foo`);
    assert.equal(badType.status, 400);
    assert.deepEqual(badType.body, { status: 'error', errorType: 'bad_data', error: 'invalid parameter "type": not supported value "foo"' });

    const alerts = await getJson(`${srv.promUrl}/api/v1/alerts`);
    assert.deepEqual(alerts.body.data.alerts.map((x: { labels: { alertname: string }; state: string }) => [x.labels.alertname, x.state]),
      [['AlwaysFiring', 'firing'], ['PendingForever', 'pending']]);

    const ams = await getJson(`${srv.promUrl}/api/v1/alertmanagers`);
    assert.deepEqual(ams.body.data, {
      activeAlertmanagers: [{ url: `http://127.0.0.1:${(am.address() as AddressInfo).port}/api/v2/alerts` }], droppedAlertmanagers: [],
    });

    const sent = await waitFor('a notification', async () => (posts.length ? posts[0] as Record<string, unknown>[] : null));
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].labels, { alertname: 'AlwaysFiring', dc: 'eu', severity: 'none' });
    assert.deepEqual(sent[0].annotations, { summary: 'always firing 1 in eu' });
    assert.equal(sent[0].generatorURL, 'http://tessera.example:9090/graph?g0.expr=vector%281%29&g0.tab=1');
    assert.match(String(sent[0].startsAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Date.parse(String(sent[0].endsAt)) > Date.parse(String(sent[0].startsAt)));

    const metrics = await (await fetch(`${srv.promUrl}/metrics`)).text();
    assert.match(metrics, new RegExp(`prometheus_rule_evaluations_total\\{rule_group="${join(dir, 'rules.yml')};example"\\} [1-9]`));
    assert.match(metrics, /prometheus_notifications_alertmanagers_discovered 1/);
    assert.match(metrics, /prometheus_notifications_sent_total [1-9]/);

    // A bad rule file refuses the reload; the old rules stay.
    writeFileSync(join(dir, 'rules.yml'), RULES.replace('expr: vector(1)\n        labels: {src: rule}', 'expr: sum(\n        labels: {src: rule}'));
    const reload = await fetch(`${srv.promUrl}/-/reload`, { method: 'POST' });
    assert.equal(reload.status, 500);
    assert.match(await reload.text(), /rules\.yml: 6:15: group "example", rule 1, "job:one": could not parse expression: 1:5: parse error/);
    const after = await getJson(`${srv.promUrl}/api/v1/rules`);
    assert.equal(after.body.data.groups[0].rules.length, 3);

    // A good reload replaces the rules.
    writeFileSync(join(dir, 'rules.yml'), 'groups:\n  - name: other\n    rules:\n      - record: two\n        expr: vector(2)\n');
    assert.equal((await fetch(`${srv.promUrl}/-/reload`, { method: 'POST' })).status, 200);
    const replaced = await getJson(`${srv.promUrl}/api/v1/rules`);
    assert.deepEqual(replaced.body.data.groups.map((x: { name: string; interval: number }) => [x.name, x.interval]), [['other', 1]]);
    assert.deepEqual((await getJson(`${srv.promUrl}/api/v1/alerts`)).body.data, { alerts: [] });
  } finally {
    await srv.destroy();
    await new Promise<void>((r) => am.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('alert for-state survives a server restart (restored from ALERTS_FOR_STATE in the TSDB)', { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-rules-restart-'));
  writeFileSync(join(dir, 'rules.yml'), 'groups:\n  - name: r\n    interval: 1s\n    rules:\n      - alert: Slow\n        expr: vector(1)\n        for: 1h\n');
  writeFileSync(join(dir, 'prometheus.yml'), 'rule_files: ["rules.yml"]\n');
  let srv = await startServer({ services: ['metrics'], args: ['--config.file', join(dir, 'prometheus.yml')] });
  try {
    // Wait until ALERTS_FOR_STATE has been written (after the start-up restore step).
    await waitFor('ALERTS_FOR_STATE', async () => {
      const r = await getJson(`${srv.promUrl}/api/v1/series?match[]=ALERTS_FOR_STATE`);
      return r.body.data?.length === 1 ? true : null;
    });
    const before = (await getJson(`${srv.promUrl}/api/v1/alerts`)).body.data.alerts[0];
    assert.equal(before.state, 'pending');
    const t0 = Date.parse(before.activeAt);
    // Let it be pending for a while before the restart, so a restored activeAt is clearly older than a fresh one.
    // (Real time in a child server: its rule manager's clock cannot be injected from here.)
    await waitFor('6 s of pending time', async () => (Date.now() - t0 > 6000 ? true : null));
    await srv.stop();
    srv = await srv.restart();
    const readyAt = Date.now();
    // Right after the restart the alert is new (activeAt = a first evaluation after readyAt); after the
    // restore step it continues from the old activeAt shifted by the downtime, i.e. before readyAt.
    const after = await waitFor('the restored alert', async () => {
      const a = (await getJson(`${srv.promUrl}/api/v1/alerts`)).body.data.alerts[0];
      return a && Date.parse(a.activeAt) < readyAt - 1000 ? a : null;
    });
    assert.equal(after.state, 'pending');
    assert.ok(Date.parse(after.activeAt) > t0, `restored activeAt ${after.activeAt} is shifted by the downtime from ${before.activeAt}`);
  } finally {
    await srv.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});
