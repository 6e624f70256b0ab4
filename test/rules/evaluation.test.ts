/**
 * Recording and alerting rules evaluated over time with the manual clock against an in-memory TSDB:
 * recorded series, pending → firing → resolved, ALERTS / ALERTS_FOR_STATE series and their stale
 * markers, templated labels and annotations, notifications, for-state restore after a restart, and reloads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';
import { parseExpr } from '../../src/engine/promql/parser.ts';
import { ManualClock } from '../../src/engine/rules/clock.ts';
import { RuleManager } from '../../src/engine/rules/manager.ts';
import { querierQueryFn } from '../../src/engine/rules/query.ts';
import type { Alert } from '../../src/engine/rules/alerting-rule.ts';
import type { GroupEnv } from '../../src/engine/rules/group.ts';
import { isStaleNaN } from '../../src/engine/tsdb/api.ts';
import { alertsBody } from '../../src/server/prom/rules-api.ts';

const RULES = `
groups:
  - name: g
    interval: 10s
    rules:
      - record: job:x:sum
        expr: sum by (job) (x)
        labels: {src: rule}
      - alert: High
        expr: job:x:sum > 10
        for: 30s
        labels:
          severity: "{{ if gt $value 100.0 }}critical{{ else }}warning{{ end }}"
        annotations:
          summary: "{{ $labels.job }} at {{ $value | humanize }} ({{ $externalLabels.dc }})"
          total: '{{ with query "sum(x)" }}{{ . | first | value }}{{ end }}'
`;

const lbl = (o: Record<string, string>): Labels => Object.keys(o).sort().map((name) => ({ name, value: o[name] }));

interface Harness { db: MemQuerier; clock: ManualClock; mgr: RuleManager; sent: { expr: string; alerts: Alert[] }[]; dir: string; env: GroupEnv }

function harness(db: MemQuerier, startMs: number, dir: string, over: Partial<GroupEnv> = {}): Harness {
  const clock = new ManualClock(startMs);
  const sent: Harness['sent'] = [];
  const env: GroupEnv = {
    query: querierQueryFn(() => db),
    append: async (samples) => { for (const s of samples) db.append(s.labels, s.t, s.v); },
    select: async (matchers, mint, maxt) => {
      const set = db.select(true, { startMs: mint, endMs: maxt, stepMs: 0, func: '', rangeMs: 0 }, matchers);
      const out = [];
      while (set.next()) {
        const s = set.at();
        const it = s.iterator(null);
        const t: number[] = [], v: number[] = [];
        while (it.next()) if (it.t >= mint && it.t <= maxt) { t.push(it.t); v.push(it.v); }
        out.push({ labels: s.labels, t: Float64Array.from(t), v: Float64Array.from(v) });
      }
      return out;
    },
    notify: (expr, alerts) => { if (alerts.length) sent.push({ expr, alerts }); },
    clock, resendDelayMs: 60_000, outageToleranceMs: 3_600_000, forGracePeriodMs: 60_000, warn: () => {},
    ...over,
  };
  return { db, clock, mgr: new RuleManager(env), sent, dir, env };
}

async function instant(db: MemQuerier, q: string, t: number) {
  return querierQueryFn(() => db)(parseExpr(q), t);
}

function loadX(db: MemQuerier, from: number, to: number, valueAt: (t: number) => number): void {
  for (let t = from; t <= to; t += 5000) for (const i of ['1', '2']) db.append(lbl({ __name__: 'x', job: 'a', i }), t, valueAt(t));
}

function setup(rules = RULES, over: Partial<GroupEnv> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-rules-'));
  writeFileSync(join(dir, 'rules.yml'), rules);
  return harness(new MemQuerier(), 1_700_000_000_000, dir, over);
}

const cfg = (dir: string, files = [join(dir, '*.yml')]) => ({
  files, evaluationIntervalMs: 60_000, externalLabels: lbl({ dc: 'eu' }), externalURL: 'http://tessera:9090',
});

test('recording and alerting rules over time: pending → firing → resolved', async () => {
  const h = setup();
  try {
    await h.mgr.update(cfg(h.dir));
    const g = h.mgr.ruleGroups()[0];
    assert.equal(g.intervalMs, 10_000);
    const e0 = g.firstEvalTime(h.clock.now());
    const E = (k: number) => e0 + k * 10_000;
    loadX(h.db, e0 - 60_000, e0 + 200_000, (t) => (t < E(2) ? 3 : t < E(9) ? 8 : 1));
    const alert = h.mgr.alertingRules()[0];

    await h.clock.advanceTo(E(0));
    assert.deepEqual((await instant(h.db, 'job:x:sum', E(0))).map((s) => [s.metric, s.v]), [[lbl({ __name__: 'job:x:sum', job: 'a', src: 'rule' }), 6]]);
    assert.equal(g.lastEvaluation, E(0));
    assert.equal(g.rules[0].health, 'ok');
    assert.equal(alert.state(), 'inactive');

    await h.clock.advanceTo(E(2));
    assert.equal(alert.state(), 'pending');
    const [a] = alert.activeAlerts();
    assert.equal(a.activeAt, E(2));
    assert.deepEqual(a.labels, lbl({ alertname: 'High', job: 'a', severity: 'warning', src: 'rule' }));
    assert.deepEqual(a.annotations, [{ name: 'summary', value: 'a at 16 (eu)' }, { name: 'total', value: '16' }]);
    const pending = await instant(h.db, 'ALERTS', E(2));
    assert.deepEqual(pending.map((s) => s.metric), [lbl({ __name__: 'ALERTS', alertname: 'High', alertstate: 'pending', job: 'a', severity: 'warning', src: 'rule' })]);
    const forState = await instant(h.db, 'ALERTS_FOR_STATE', E(2));
    assert.deepEqual(forState.map((s) => s.v), [Math.floor(E(2) / 1000)]);

    await h.clock.advanceTo(E(4));
    assert.equal(alert.state(), 'pending');
    assert.equal(h.sent.length, 0, 'pending alerts are not sent');

    await h.clock.advanceTo(E(5));
    assert.equal(alert.state(), 'firing');
    assert.deepEqual((await instant(h.db, 'ALERTS', E(5))).map((s) => s.metric.find((l) => l.name === 'alertstate')!.value), ['firing']);
    assert.equal(h.sent.length, 1);
    assert.equal(h.sent[0].expr, 'job:x:sum > 10');
    assert.equal(h.sent[0].alerts[0].state, 'firing');
    assert.equal(h.sent[0].alerts[0].firedAt, E(5));
    assert.equal(h.sent[0].alerts[0].validUntil, E(5) + 4 * 60_000);

    await h.clock.advanceTo(E(8));
    assert.equal(h.sent.length, 1, 'no resend before the resend delay');

    await h.clock.advanceTo(E(9));
    assert.equal(alert.state(), 'inactive');
    assert.deepEqual(alert.activeAlerts(), []);
    assert.equal(h.sent.length, 2);
    assert.equal(h.sent[1].alerts[0].resolvedAt, E(9));
    assert.deepEqual(await instant(h.db, 'ALERTS', E(9)), [], 'ALERTS is marked stale when the alert resolves');
    const raw = h.db.select(true, null, parseExprMatchers('ALERTS{alertstate="firing"}'));
    assert.ok(raw.next());
    const it = raw.at().iterator(null);
    let last = 0;
    while (it.next()) last = it.v;
    assert.ok(isStaleNaN(last), 'the last ALERTS sample is a stale marker');

    // The resolved alert is kept (and re-sent) until 15 minutes after it resolved, then dropped.
    await h.clock.advanceTo(E(9) + 16 * 60_000);
    assert.equal(alert.active.size, 0);
  } finally {
    await h.mgr.stop();
    rmSync(h.dir, { recursive: true, force: true });
  }
});

function parseExprMatchers(q: string) {
  const e = parseExpr(q);
  assert.equal(e.kind, 'vector');
  return e.kind === 'vector' ? e.matchers : [];
}

test('alert for-state is restored from ALERTS_FOR_STATE after a restart', async () => {
  const rules = `groups:\n  - name: r\n    interval: 10s\n    rules:\n      - alert: Slow\n        expr: y > 0\n        for: 5m\n`;
  const h = setup(rules);
  try {
    await h.mgr.update(cfg(h.dir));
    const e0 = h.mgr.ruleGroups()[0].firstEvalTime(h.clock.now());
    for (let t = e0 - 60_000; t <= e0 + 3_600_000; t += 10_000) h.db.append(lbl({ __name__: 'y' }), t, 1);
    await h.clock.advanceTo(e0 + 120_000);
    const activeAt = h.mgr.alertingRules()[0].activeAlerts()[0].activeAt;
    assert.equal(activeAt, e0);
    await h.mgr.stop();
    const downAt = e0 + 120_000;

    // Restart one minute later on the same storage.
    const h2 = harness(h.db, downAt + 60_000, h.dir);
    await h2.mgr.update(cfg(h.dir));
    const g2 = h2.mgr.ruleGroups()[0];
    const f0 = g2.firstEvalTime(h2.clock.now());
    await h2.clock.advanceTo(f0);
    const rule = h2.mgr.alertingRules()[0];
    assert.equal(rule.restored, false);
    assert.equal(rule.activeAlerts()[0].activeAt, f0, 'before restoring, the alert is new');
    await h2.clock.advanceTo(f0 + 10_000);
    assert.equal(rule.restored, true);
    // 2 of the 5 minutes were spent pending before the restart: the pending time continues after the downtime.
    const restoreTs = f0 + 10_000;
    assert.equal(rule.activeAlerts()[0].activeAt, activeAt + (restoreTs - downAt));
    await h2.mgr.stop();
  } finally {
    rmSync(h.dir, { recursive: true, force: true });
  }
});

test('reload: a bad file is refused and the old rules keep running; a removed group marks its series stale', async () => {
  const h = setup();
  try {
    await h.mgr.update(cfg(h.dir));
    const g = h.mgr.ruleGroups()[0];
    const e0 = g.firstEvalTime(h.clock.now());
    loadX(h.db, e0 - 60_000, e0 + 200_000, () => 3);
    await h.clock.advanceTo(e0 + 10_000);
    writeFileSync(join(h.dir, 'bad.yml'), 'groups:\n  - name: b\n    rules:\n      - record: r\n        expr: sum(\n');
    await assert.rejects(h.mgr.update(cfg(h.dir)), /bad\.yml: 5:15: group "b", rule 1, "r": could not parse expression/);
    assert.equal(h.mgr.ruleGroups()[0], g, 'the running group is untouched');
    rmSync(join(h.dir, 'bad.yml'));
    await h.mgr.update(cfg(h.dir));
    assert.equal(h.mgr.ruleGroups()[0], g, 'an unchanged group keeps running');

    writeFileSync(join(h.dir, 'rules.yml'), 'groups: []\n');
    await h.clock.advanceTo(e0 + 15_000);
    await h.mgr.update(cfg(h.dir));
    assert.equal(h.mgr.ruleGroups().length, 0);
    assert.deepEqual(await instant(h.db, 'job:x:sum', e0 + 15_000), [], 'series of a removed group are stale');
    assert.equal((await instant(h.db, 'job:x:sum', e0 + 14_000)).length, 1);
  } finally {
    await h.mgr.stop();
    rmSync(h.dir, { recursive: true, force: true });
  }
});

test('rule errors set health and lastError; limits apply; refused samples make a rule unhealthy', async () => {
  const rules = `groups:\n  - name: e\n    interval: 10s\n    limit: 1\n    rules:\n      - record: both\n        expr: x\n      - record: str\n        expr: '"s"'\n      - alert: Dup\n        expr: x\n        labels: {i: \"\"}\n      - record: one\n        expr: vector(1)\n`;
  let refuse = false;
  const h = setup(rules, {
    append: async (samples) => (refuse ? { added: 0, outOfOrder: samples.length, firstError: 'out of order sample' } : { added: samples.length, firstError: '' }),
  });
  try {
    await h.mgr.update(cfg(h.dir));
    const g = h.mgr.ruleGroups()[0];
    const e0 = g.firstEvalTime(h.clock.now());
    loadX(h.db, e0 - 60_000, e0 + 60_000, () => 1);
    await h.clock.advanceTo(e0);
    assert.deepEqual(g.rules.map((r) => [r.health, r.lastError]), [
      ['err', 'exceeded limit of 1 with 2 series'],
      ['err', 'rule result is not a vector or scalar'],
      ['err', 'vector contains metrics with the same labelset after applying alert labels'],
      ['ok', null],
    ]);
    refuse = true;
    await h.clock.advanceTo(e0 + 10_000);
    assert.deepEqual([g.rules[3].health, g.rules[3].lastError], ['err', 'out of order sample']);
  } finally {
    await h.mgr.stop();
    rmSync(h.dir, { recursive: true, force: true });
  }
});

test('keep_firing_for keeps a vanished firing alert firing, then resolves it', async () => {
  const rules = `groups:\n  - name: k\n    interval: 10s\n    rules:\n      - alert: Flappy\n        expr: z > 0\n        keep_firing_for: 20s\n`;
  const h = setup(rules);
  try {
    await h.mgr.update(cfg(h.dir));
    const e0 = h.mgr.ruleGroups()[0].firstEvalTime(h.clock.now());
    const E = (k: number) => e0 + k * 10_000;
    for (let t = e0 - 60_000; t <= E(20); t += 5000) h.db.append(lbl({ __name__: 'z' }), t, t < E(3) ? 1 : 0);
    const rule = h.mgr.alertingRules()[0];
    await h.clock.advanceTo(E(2));
    assert.equal(rule.state(), 'firing');
    await h.clock.advanceTo(E(4));
    assert.equal(rule.state(), 'firing', 'still firing 10s after the condition stopped');
    assert.equal(rule.activeAlerts()[0].keepFiringSince, E(3));
    const wire = alertsBody(h.mgr) as { alerts: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(wire.alerts[0]), ['labels', 'annotations', 'state', 'activeAt', 'keepFiringSince', 'value']);
    assert.equal(wire.alerts[0].keepFiringSince, new Date(E(3)).toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z'));
    await h.clock.advanceTo(E(5));
    assert.equal(rule.state(), 'inactive', 'resolved once keep_firing_for has passed');
    assert.equal([...rule.active.values()][0].resolvedAt, E(5));
  } finally {
    await h.mgr.stop();
    rmSync(h.dir, { recursive: true, force: true });
  }
});
