/**
 * `/federate` on a real Tessera: the newest sample of each matching series within the lookback, untyped
 * families sorted by name with timestamps, external labels added where missing (`instance=""` too), stale
 * series left out, bad selectors refused; and the real Prometheus 2.42 federating from it with
 * `honor_labels: true` (skipped without Debian's prometheus).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';
import { NO_PROMETHEUS, startPrometheus } from '../support/real-prometheus.ts';
import { encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import { STALE_NAN, type Label } from '../../src/engine/tsdb/api.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';

const dir = mkdtempSync(join(tmpdir(), 'tessera-federate-'));
const cfg = join(dir, 'prometheus.yml');
writeFileSync(cfg, 'global: {external_labels: {dc: eu, job: from-ext}}\n');
const server = await startServer({ services: ['metrics'], args: ['--config.file', cfg, '--web.enable-remote-write-receiver'] });
after(async () => { await server.destroy(); rmSync(dir, { recursive: true, force: true }); });

const lbl = (o: Record<string, string>): Label[] => Object.entries(o).map(([name, value]) => ({ name, value })).sort((a, b) => (a.name < b.name ? -1 : 1));
const now = Date.now();
const samples: IngestSample[] = [
  { labels: lbl({ __name__: 'fed_b', job: 'app', instance: 'h:1' }), t: now - 20_000, v: 1 },
  { labels: lbl({ __name__: 'fed_b', job: 'app', instance: 'h:1' }), t: now - 10_000, v: 2 },
  { labels: lbl({ __name__: 'fed_a', job: 'app', path: 'say "hi"\n' }), t: now - 5_000, v: 1_500_000 },
  { labels: lbl({ __name__: 'fed_gone', job: 'app' }), t: now - 10_000, v: 3 },
  { labels: lbl({ __name__: 'fed_gone', job: 'app' }), t: now - 5_000, v: STALE_NAN },
  { labels: lbl({ __name__: 'fed_old', job: 'app' }), t: now - 600_000, v: 4 },
  { labels: lbl({ __name__: 'other', job: 'db' }), t: now - 5_000, v: 5 },
];
const w = await fetch(`${server.promUrl}/api/v1/write`, {
  method: 'POST', body: await encodeWriteRequest(samples),
  headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
});
assert.equal(w.status, 204);

test('newest sample per series, sorted by name, external labels added where missing, stale and old series left out', async () => {
  const r = await fetch(`${server.promUrl}/federate?match[]=${encodeURIComponent('{job="app"}')}&match[]=fed_b`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(await r.text(), [
    '# TYPE fed_a untyped',
    `fed_a{job="app",path="say \\"hi\\"\\n",dc="eu",instance=""} 1.5e+06 ${now - 5_000}`,
    '# TYPE fed_b untyped',
    `fed_b{instance="h:1",job="app",dc="eu"} 2 ${now - 10_000}`,
    '',
  ].join('\n'));
});

test('no match[] gives an empty body; a bad selector is a 400', async () => {
  const empty = await fetch(`${server.promUrl}/federate`);
  assert.deepEqual([empty.status, await empty.text()], [200, '']);
  const bad = await fetch(`${server.promUrl}/federate?match[]=${encodeURIComponent('{job=')}`);
  assert.equal(bad.status, 400);
});

test('the real Prometheus federates from Tessera with honor_labels', { skip: NO_PROMETHEUS }, async () => {
  const target = new URL(server.promUrl).host;
  const prom = await startPrometheus(`scrape_configs:
  - job_name: federate
    scrape_interval: 1s
    honor_labels: true
    metrics_path: /federate
    params: {"match[]": ['{job="app"}']}
    static_configs: [{targets: ["${target}"]}]
`);
  try {
    const q = async (expr: string) => {
      const body = await (await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(expr)}`)).json() as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      return body.data.result;
    };
    const got = await waitFor('federated fed_b on Prometheus', async () => (await q('fed_b')).at(0), 60_000);
    assert.deepEqual(got.metric, { __name__: 'fed_b', dc: 'eu', instance: 'h:1', job: 'app' });
    assert.equal(got.value[1], '2');
    const a = (await q('fed_a'))[0];
    // instance="" from the federation endpoint wins under honor_labels, so the series has no instance.
    assert.deepEqual(a.metric, { __name__: 'fed_a', dc: 'eu', job: 'app', path: 'say "hi"\n' });
    assert.deepEqual(await q('fed_gone'), [], 'stale series are not federated');
    assert.equal((await q('up{job="federate"}'))[0].value[1], '1');
  } finally {
    await prom.stop();
  }
});
