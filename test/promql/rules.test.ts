/**
 * Recording and alerting rules: rule-file validation, templates, the pending → firing → resolved cycle with
 * ALERTS / ALERTS_FOR_STATE written back, stale markers, the rules/alerts API shapes, and delivery to the
 * real Debian `prometheus-alertmanager` (skipped when it is not installed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { parseRuleFile } from '../../src/engine/rules/rule-file.ts';
import { expandTemplate, goG } from '../../src/engine/rules/template.ts';
import { RuleManager } from '../../src/server/prom/rules/manager.ts';
import { groupsJson, alertsJson, formatE, rfc3339 } from '../../src/server/prom/rules/rules-json.ts';
import { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import { instantQuery, parseExpr } from '../../src/engine/promql/index.ts';
import { staleNaN } from '../../src/engine/promql/value.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';

const RULES = `
groups:
  - name: example
    interval: 1m
    rules:
      - record: job:up:sum
        expr: sum by (job) (up)
      - alert: InstanceDown
        expr: up == 0
        for: 2m
        labels:
          severity: page
          instance_copy: "{{ $labels.instance }}"
        annotations:
          summary: "Instance {{ $labels.instance }} of {{ .Labels.job }} down, value {{ $value }}"
          humanized: "{{ 1234567 | humanize }} {{ humanizePercentage 0.25 }}"
`;

const lbl = (o: Record<string, string>): Labels => Object.keys(o).sort().map((name) => ({ name, value: o[name] }));

function fixture(): { dir: string; mem: MemQuerier; manager: RuleManager; written: number } {
  const dir = mkdtempSync(join(tmpdir(), 'rules-'));
  writeFileSync(join(dir, 'a.rules.yml'), RULES);
  const mem = new MemQuerier();
  const state = { dir, mem, written: 0, manager: null as unknown as RuleManager };
  state.manager = new RuleManager({
    query: async (rule, t) => {
      const r = instantQuery(mem, rule.expr, t);
      if (r.type === 'scalar') return [{ labels: [], v: r.v }];
      return r.type === 'vector' ? r.vector.map((s) => ({ labels: s.metric, v: s.v })) : [];
    },
    append: async (samples) => { for (const s of samples) { mem.append(s.labels, s.t, s.stale ? staleNaN() : s.v); state.written++; } },
    log: { warn: (m, x) => console.log('rules warning:', m, x), error: (m, x) => console.log('rules error:', m, x) },
    now: () => 0,
    externalURL: 'http://tessera:9090',
  });
  return state;
}

test('rule files are validated like promtool does', () => {
  assert.equal(parseRuleFile(RULES, 'a.yml', 15_000)[0].rules.length, 2);
  assert.throws(() => parseRuleFile('groups: [{name: g, rules: [{record: x, alert: y, expr: up}]}]', 'b.yml', 1), /only one of 'record' and 'alert' must be set/);
  assert.throws(() => parseRuleFile('groups: [{name: g, rules: [{record: "bad name", expr: up}]}]', 'b.yml', 1), /invalid recording rule name/);
  assert.throws(() => parseRuleFile('groups: [{name: g, rules: [{alert: a, expr: "sum("}]}]', 'b.yml', 1), /could not parse expression: 1:5: parse error/);
  assert.throws(() => parseRuleFile('groups: [{name: g}, {name: g}]', 'b.yml', 1), /repeated in the same file/);
  assert.equal(parseRuleFile('groups: [{name: g, rules: []}]', 'b.yml', 30_000)[0].intervalMs, 30_000);
});

test('templates and number formats', () => {
  const d = { labels: { instance: 'i1', job: 'api' }, externalLabels: { dc: 'x' }, externalURL: 'http://u', value: 0.5 };
  assert.equal(expandTemplate('{{ $labels.instance }}/{{ .Labels.job }}={{ $value }} {{ $externalLabels.dc }}', d), 'i1/api=0.5 x');
  assert.equal(expandTemplate('{{ 1234567 | humanize }} {{ humanize1024 2048 }} {{ humanizeDuration 3661 }} {{ printf "%.2f" $value }}', d), '1.235M 2ki 1h 1m 1s 0.50');
  assert.equal(expandTemplate('a {{- " b " -}} c', d), 'a b c');
  assert.match(expandTemplate('{{ nosuch 1 }}', d), /^<error expanding template: /);
  assert.equal(goG(0.000012345, 4), '1.234e-05');
  assert.equal(formatE(1), '1e+00');
  assert.equal(formatE(0.25), '2.5e-01');
  assert.equal(rfc3339(1704070800450), '2024-01-01T01:00:00.45Z');
  assert.equal(rfc3339(0), '0001-01-01T00:00:00Z');
});

test('alert lifecycle, recording rule output, stale markers and API shapes', async () => {
  const f = fixture();
  try {
    for (let t = 0; t <= 600_000; t += 60_000) {
      f.mem.append(lbl({ __name__: 'up', job: 'api', instance: 'a' }), t, t >= 120_000 && t <= 300_000 ? 0 : 1);
      f.mem.append(lbl({ __name__: 'up', job: 'api', instance: 'b' }), t, 1);
    }
    f.manager.applyConfig({ ruleFiles: [join(f.dir, '*.rules.yml')], evaluationIntervalMs: 60_000, externalLabels: {}, alerting: null });
    f.manager.stop();
    const g = f.manager.groups[0];
    const states: string[] = [];
    for (let t = 60_000; t <= 420_000; t += 60_000) {
      await f.manager.evalGroup(g, t);
      const alerts = (alertsJson([g]) as { alerts: { state: string }[] }).alerts;
      states.push(alerts.map((a) => a.state).join(',') || '-');
    }
    // down from 2m to 5m inclusive; for: 2m → pending at 2m and 3m, firing at 4m and 5m, resolved at 6m.
    assert.deepEqual(states, ['-', 'pending', 'pending', 'firing', 'firing', '-', '-']);

    const at = (q: string, t: number) => {
      const r = instantQuery(f.mem, parseExpr(q), t);
      return r.type === 'vector' ? r.vector.map((s) => [s.metric.map((l) => `${l.name}=${l.value}`).join(','), s.v]) : r;
    };
    assert.deepEqual(at('job:up:sum', 180_000), [['__name__=job:up:sum,job=api', 1]]);
    assert.deepEqual(at('ALERTS', 180_000), [['__name__=ALERTS,alertname=InstanceDown,alertstate=pending,instance=a,instance_copy=a,job=api,severity=page', 1]]);
    assert.deepEqual(at('ALERTS', 240_000), [['__name__=ALERTS,alertname=InstanceDown,alertstate=firing,instance=a,instance_copy=a,job=api,severity=page', 1]]);
    assert.deepEqual(at('ALERTS_FOR_STATE', 240_000), [['__name__=ALERTS_FOR_STATE,alertname=InstanceDown,instance=a,instance_copy=a,job=api,severity=page', 120]]);
    // The firing series got a stale marker when the alert resolved, so it vanishes at once rather than after 5m.
    assert.deepEqual(at('ALERTS', 360_000), []);

    const json = groupsJson([g], '') as { groups: { rules: Record<string, unknown>[]; interval: number }[] };
    assert.equal(json.groups[0].interval, 60);
    assert.deepEqual(Object.keys(json.groups[0].rules[0]), ['name', 'query', 'health', 'evaluationTime', 'lastEvaluation', 'type']);
    assert.deepEqual(Object.keys(json.groups[0].rules[1]), ['state', 'name', 'query', 'duration', 'keepFiringFor', 'labels', 'annotations', 'alerts', 'health', 'evaluationTime', 'lastEvaluation', 'type']);
    assert.equal(json.groups[0].rules[1].query, 'up == 0');
    assert.equal(json.groups[0].rules[1].duration, 120);
    assert.deepEqual((groupsJson([g], 'record') as { groups: { rules: unknown[] }[] }).groups[0].rules.length, 1);
  } finally {
    rmSync(f.dir, { recursive: true, force: true });
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

const AM = '/usr/bin/prometheus-alertmanager';
test('firing alerts reach the real Alertmanager (v2 API)', { skip: existsSync(AM) ? false : `${AM} not installed`, timeout: 60_000 }, async () => {
  const f = fixture();
  const port = await freePort(), cport = await freePort();
  const cfg = join(f.dir, 'am.yml');
  writeFileSync(cfg, 'route:\n  receiver: "null"\nreceivers:\n  - name: "null"\n');
  const am = spawn(AM, [`--config.file=${cfg}`, `--storage.path=${join(f.dir, 'am-data')}`, `--web.listen-address=127.0.0.1:${port}`,
    `--cluster.listen-address=`, `--cluster.advertise-address=127.0.0.1:${cport}`], { stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      try { if ((await fetch(`${url}/-/ready`)).ok) break; } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    // Alertmanager drops alerts whose endsAt is past, so this test runs at wall-clock times.
    const base = Math.floor(Date.now() / 60_000) * 60_000 - 300_000;
    for (let t = base; t <= base + 600_000; t += 60_000) f.mem.append(lbl({ __name__: 'up', job: 'api', instance: 'a' }), t, 0);
    f.manager.applyConfig({
      ruleFiles: [join(f.dir, 'a.rules.yml')], evaluationIntervalMs: 60_000, externalLabels: { cluster: 'c1' },
      alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${port}`] }] }] },
    });
    f.manager.stop();
    const g = f.manager.groups[0];
    for (let t = base + 60_000; t <= base + 240_000; t += 60_000) await f.manager.evalGroup(g, t);
    const alerts = await (await fetch(`${url}/api/v2/alerts`)).json() as { labels: Record<string, string>; annotations: Record<string, string> }[];
    assert.equal(alerts.length, 1);
    assert.deepEqual(alerts[0].labels, { alertname: 'InstanceDown', cluster: 'c1', instance: 'a', instance_copy: 'a', job: 'api', severity: 'page' });
    assert.equal(alerts[0].annotations.summary, 'Instance a of api down, value 0');
  } finally {
    am.kill('SIGTERM');
    rmSync(f.dir, { recursive: true, force: true });
  }
});
