/**
 * The rules service as the server wires it, over a store holding real series: rule queries fetch their
 * selectors' windows through the storage client, evaluate in the worker task (`rules.eval`, run in-process
 * here through msgpack like a worker call), results and ALERTS are appended back, and the for-state of an
 * alert is restored after a restart from the ALERTS_FOR_STATE series the first run wrote. Time is the manual clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../../src/server/router.ts';
import { defaultFlags } from '../../src/server/flags.ts';
import { SelfMetrics } from '../../src/server/self-metrics.ts';
import type { ServerContext } from '../../src/server/context.ts';
import type { HttpRequest, HttpResponse } from '../../src/server/http.ts';
import { registerRulesRoutes, type RulesStorage } from '../../src/server/prom/rules-routes.ts';
import { inProcessPool, selectWindow } from '../support/in-process.ts';
import { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';
import { ManualClock } from '../../src/engine/rules/clock.ts';
import { bodyBytes } from '../../src/server/reply-body.ts';

const lbl = (o: Record<string, string>): Labels => Object.keys(o).sort().map((name) => ({ name, value: o[name] }));
const T0 = 1_700_000_000_000;

function memStorage(db: MemQuerier): RulesStorage & { selects: [number, number][] } {
  const selects: [number, number][] = [];
  return {
    selects,
    async append(samples) { for (const s of samples) db.append(s.labels, s.t, s.v); return { added: samples.length, firstError: '' }; },
    async select(matchers, mint, maxt) {
      selects.push([mint, maxt]);
      return selectWindow(db, matchers, mint, maxt).filter((s) => s.t.length > 0);
    },
  };
}

function context(configFile: string, clock: ManualClock): ServerContext {
  const flags = { ...defaultFlags(), 'config.file': configFile, 'rules.alert.for-grace-period': '1m' };
  const pool = inProcessPool();
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  return { flags, pool, log, metrics: new SelfMetrics(), dataDir: '', now: () => clock.now() } as unknown as ServerContext;
}

async function get(router: Router, path: string): Promise<any> {
  const [p, q = ''] = path.split('?');
  const m = router.match('GET', p);
  assert.equal(m.kind, 'found');
  const req = { method: 'GET', path: p, rawQuery: q, query: new URLSearchParams(q), headers: {}, body: Buffer.alloc(0) } as unknown as HttpRequest;
  const r = await (m as { handler: (r: HttpRequest, p: object) => Promise<HttpResponse> }).handler(req, {});
  return JSON.parse(bodyBytes(r.body ?? '').toString());
}

test('rules over stored series: worker evaluation, write-back, ALERTS, restore after restart', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-rules-svc-'));
  writeFileSync(join(dir, 'rules.yml'), `groups:
  - name: svc
    interval: 15s
    rules:
      - record: instance:req:rate1m
        expr: rate(req_total[1m])
      - alert: HighRate
        expr: instance:req:rate1m > 1
        for: 5m
        annotations: {summary: "{{ $labels.instance }} at {{ $value }}/s"}
`);
  writeFileSync(join(dir, 'prometheus.yml'), 'global: {evaluation_interval: 1m}\nrule_files: [rules.yml]\n');
  const db = new MemQuerier();
  // Two counters: "a" grows 2/s, "b" 0.5/s, every 15 s for an hour.
  for (let t = T0 - 600_000; t <= T0 + 3_600_000; t += 15_000) {
    db.append(lbl({ __name__: 'req_total', instance: 'a' }), t, (t - T0 + 600_000) / 1000 * 2);
    db.append(lbl({ __name__: 'req_total', instance: 'b' }), t, (t - T0 + 600_000) / 1000 * 0.5);
  }
  const storage = memStorage(db);
  try {
    const clock = new ManualClock(T0);
    let router = new Router();
    let hooks = registerRulesRoutes(router, context(join(dir, 'prometheus.yml'), clock), storage, { clock });
    await hooks.start!();
    await clock.advanceTo(T0 + 120_000);
    const rules = (await get(router, '/api/v1/rules')).data.groups[0];
    assert.equal(rules.interval, 15);
    assert.deepEqual(rules.rules.map((r: { health: string }) => r.health), ['ok', 'ok']);
    assert.ok(storage.selects.some(([mint, maxt]) => maxt - mint === 60_000), 'rate(req_total[1m]) fetched a 1m window');

    const recorded = await get(router, '/api/v1/alerts');
    assert.equal(recorded.data.alerts.length, 1);
    const a0 = recorded.data.alerts[0];
    assert.deepEqual([a0.labels, a0.state], [{ alertname: 'HighRate', instance: 'a' }, 'pending']);
    assert.ok(Math.abs(Number(a0.value) - 2) < 1e-9, a0.value);
    assert.equal(a0.annotations.summary, `a at ${String(Number(a0.value))}/s`);
    const activeAt = Date.parse(recorded.data.alerts[0].activeAt);
    const rec = db.select(true, null, [{ type: 0, name: '__name__', value: 'instance:req:rate1m', matches: (v: string) => v === 'instance:req:rate1m' }]);
    const names: string[] = [];
    while (rec.next()) names.push(rec.at().labels.find((l) => l.name === 'instance')!.value);
    assert.deepEqual(names, ['a', 'b'], 'the recording rule wrote both series back');

    // Stop (as on shutdown) and restart two minutes later: the pending time spent before is kept.
    await hooks.stop!();
    const downAt = clock.now();
    const clock2 = new ManualClock(downAt + 120_000);
    router = new Router();
    hooks = registerRulesRoutes(router, context(join(dir, 'prometheus.yml'), clock2), storage, { clock: clock2 });
    await hooks.start!();
    await clock2.advanceTo(downAt + 120_000 + 40_000);
    const after = (await get(router, '/api/v1/alerts')).data.alerts[0];
    assert.equal(after.state, 'pending');
    const restoredActiveAt = Date.parse(after.activeAt);
    assert.ok(restoredActiveAt > activeAt && restoredActiveAt < downAt + 120_000,
      `activeAt moved forward by the downtime only (${new Date(activeAt).toISOString()} → ${after.activeAt})`);
    await hooks.stop!();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
