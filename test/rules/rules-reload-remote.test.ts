/**
 * Through real Tessera processes: recording-rule results and `ALERTS` are remote-written with the scraped
 * data (to a Tessera receiver, and to the real Prometheus 2.42 where installed); a reload with a bad rule
 * file answers 500, reports `reloadConfigSuccess: false` and `prometheus_config_last_reload_successful 0`,
 * and the old rules keep running.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';
import { NO_PROMETHEUS, startPrometheus } from '../support/real-prometheus.ts';

const dir = mkdtempSync(join(tmpdir(), 'tessera-rules-rw-'));
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const RULES = `groups:
  - name: g
    interval: 1s
    rules:
      - record: job:up:count
        expr: vector(2)
      - alert: AlwaysFiring
        expr: vector(1)
`;

async function json(url: string): Promise<any> {
  return (await fetch(url)).json();
}

async function seriesOn(base: string, match: string): Promise<Record<string, string>[]> {
  const body = await json(`${base}/api/v1/series?match[]=${encodeURIComponent(match)}`);
  assert.equal(body.status, 'success', JSON.stringify(body));
  return body.data;
}

/** Starts a Tessera that evaluates RULES and remote-writes to `writeUrl`. */
async function ruleSender(name: string, writeUrl: string): Promise<TestServer> {
  writeFileSync(join(dir, `${name}.rules.yml`), RULES);
  const cfg = join(dir, `${name}.yml`);
  writeFileSync(cfg, `global: {scrape_interval: 1s, evaluation_interval: 1s, external_labels: {replica: ${name}}}
rule_files: [${name}.rules.yml]
remote_write:
  - url: ${writeUrl}
    queue_config: {batch_send_deadline: 100ms}
`);
  const a = await startServer({ services: ['metrics'], args: ['--config.file', cfg] });
  servers.push(a);
  return a;
}

test('recording-rule results and ALERTS are remote-written (Tessera receiver)', async () => {
  const b = await startServer({ services: ['metrics'], args: ['--web.enable-remote-write-receiver'] });
  servers.push(b);
  await ruleSender('a', `${b.promUrl}/api/v1/write`);
  const recorded = await waitFor('recording rule on B', async () => (await seriesOn(b.promUrl, 'job:up:count')).at(0));
  assert.deepEqual(recorded, { __name__: 'job:up:count', replica: 'a' });
  const alerts = await waitFor('ALERTS on B', async () => (await seriesOn(b.promUrl, 'ALERTS')).at(0));
  assert.deepEqual(alerts, { __name__: 'ALERTS', alertname: 'AlwaysFiring', alertstate: 'firing', replica: 'a' });
});

test('recording-rule results arrive at the real Prometheus remote-write receiver', { skip: NO_PROMETHEUS }, async () => {
  const prom = await startPrometheus('global: {scrape_interval: 1m}\n', ['--web.enable-remote-write-receiver']);
  try {
    await ruleSender('p', `${prom.url}/api/v1/write`);
    // Generous: under a loaded test run the two processes start slowly.
    const got = await waitFor('recording rule on Prometheus', async () => (await seriesOn(prom.url, 'job:up:count')).at(0), 60_000);
    assert.deepEqual(got, { __name__: 'job:up:count', replica: 'p' });
    await waitFor('ALERTS on Prometheus', async () => (await seriesOn(prom.url, 'ALERTS{alertname="AlwaysFiring"}')).length > 0, 60_000);
  } finally {
    await prom.stop();
  }
});

test('a reload with a bad rule file fails, is reported as failed, and keeps the old rules', async () => {
  const rules = join(dir, 'reload.rules.yml');
  writeFileSync(rules, RULES);
  const cfg = join(dir, 'reload.yml');
  writeFileSync(cfg, `global: {evaluation_interval: 1s}\nrule_files: [${rules}]\n`);
  const s = await startServer({ services: ['metrics'], args: ['--config.file', cfg, '--web.enable-lifecycle'] });
  servers.push(s);
  const reloadMetric = async (): Promise<string> => /^prometheus_config_last_reload_successful (\S+)$/m.exec(await (await fetch(`${s.promUrl}/metrics`)).text())?.[1] ?? '';
  assert.equal((await json(`${s.promUrl}/api/v1/status/runtimeinfo`)).data.reloadConfigSuccess, true);
  assert.equal(await reloadMetric(), '1');

  writeFileSync(rules, 'groups:\n  - name: g\n    rules:\n      - record: bad\n        expr: sum(\n');
  const r = await fetch(`${s.promUrl}/-/reload`, { method: 'POST' });
  assert.equal(r.status, 500);
  assert.equal((await json(`${s.promUrl}/api/v1/status/runtimeinfo`)).data.reloadConfigSuccess, false);
  assert.equal(await reloadMetric(), '0');
  const groups = (await json(`${s.promUrl}/api/v1/rules`)).data.groups;
  assert.deepEqual(groups.flatMap((g: { rules: { name: string }[] }) => g.rules.map((x) => x.name)), ['job:up:count', 'AlwaysFiring']);

  writeFileSync(rules, RULES);
  assert.equal((await fetch(`${s.promUrl}/-/reload`, { method: 'POST' })).status, 200);
  assert.equal((await json(`${s.promUrl}/api/v1/status/runtimeinfo`)).data.reloadConfigSuccess, true);
  assert.equal(await reloadMetric(), '1');
});
