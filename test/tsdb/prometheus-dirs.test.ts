/**
 * Tessera and the real Prometheus 2.42 on each other's TSDB directories answer the same queries:
 * blocks promtool wrote, served by Tessera (`--storage.tsdb.path` at them) and by Prometheus; and a snapshot of
 * Tessera's TSDB (remote-written data, head included) served by Prometheus. Skipped without Debian's prometheus.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { startServer, type TestServer } from '../support/server.ts';
import { encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { tempDir } from './support/db.ts';

const PROMETHEUS = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'].find((p) => existsSync(p));
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const skip = PROMETHEUS && PROMTOOL ? false : 'prometheus/promtool not installed (Debian package prometheus): the comparison with the real Prometheus is skipped';

const T0 = 1_704_067_200; // seconds
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

/** Starts the real Prometheus on `dir` and resolves once it is ready. */
async function startPrometheus(dir: string): Promise<string> {
  const port = await freePort();
  const proc: ChildProcess = spawn(PROMETHEUS!, ['--config.file=/dev/null', `--storage.tsdb.path=${dir}`, `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=100y', '--log.level=error'], { stdio: 'ignore' });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  cleanups.push(async () => { proc.kill('SIGTERM'); await exited; });
  const base = `http://127.0.0.1:${port}`;
  let ready = false;
  proc.once('exit', () => { ready = true; });
  while (!ready) {
    try { if ((await fetch(`${base}/-/ready`)).ok) return base; } catch { /* not listening yet */ }
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('prometheus exited before it was ready');
}

const QUERIES: [string, 'query' | 'query_range'][] = [
  ['req_total', 'query'], ['sum by (code) (rate(req_total[5m]))', 'query'], ['count(req_total)', 'query'],
  ['rate(req_total[2m])', 'query_range'], ['max_over_time(temp[10m])', 'query_range'], ['temp offset 5m', 'query_range'],
];

async function answers(base: string, at: number): Promise<string[]> {
  const out: string[] = [];
  for (const [q, kind] of QUERIES) {
    const params: Record<string, string> = kind === 'query' ? { query: q, time: String(at) } : { query: q, start: String(at - 3600), end: String(at), step: '60' };
    const r = await (await fetch(`${base}/api/v1/${kind}?${new URLSearchParams(params)}`)).json() as { status: string; data: { result: { metric: Record<string, string> }[] } };
    assert.equal(r.status, 'success', `${q} on ${base}`);
    const sorted = r.data.result.map((s) => JSON.stringify({ ...s, metric: Object.fromEntries(Object.entries(s.metric).sort()) })).sort();
    out.push(`${q}: ${sorted.join('\n')}`);
  }
  return out;
}

function openMetrics(): string {
  const lines = ['# TYPE req counter', '# TYPE temp gauge'];
  for (let i = 0; i < 240; i++) {
    const t = T0 + i * 30;
    for (const code of ['200', '404', '500']) lines.push(`req_total{code="${code}",path="/a"} ${i * (code === '200' ? 3 : 1)} ${t}`);
    lines.push(`temp{room="lab"} ${20 + Math.sin(i / 10)} ${t}`);
  }
  return lines.join('\n') + '\n# EOF\n';
}

test('blocks promtool wrote: Tessera and Prometheus on the same directory answer the same queries', { skip }, async () => {
  const { dir, cleanup } = tempDir('prom-dirs-');
  cleanups.push(cleanup);
  writeFileSync(path.join(dir, 'in.om'), openMetrics());
  const blocks = path.join(dir, 'prom');
  execFileSync(PROMTOOL!, ['tsdb', 'create-blocks-from', 'openmetrics', path.join(dir, 'in.om'), blocks]);
  const forTessera = path.join(dir, 'tessera-tsdb');
  cpSync(blocks, forTessera, { recursive: true });
  const prom = await startPrometheus(blocks);
  const srv: TestServer = await startServer({ services: ['metrics'], args: ['--storage.tsdb.path', forTessera, '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  const at = T0 + 239 * 30;
  const mine = await answers(srv.promUrl, at);
  assert.equal(mine[0].split('\n').length, 3, 'three req_total series');
  assert.deepEqual(mine, await answers(prom, at));
});

test('a snapshot of Tessera\'s TSDB (head included) served by Prometheus answers as Tessera does', { skip }, async () => {
  const srv: TestServer = await startServer({ services: ['metrics'], args: ['--web.enable-admin-api', '--web.enable-remote-write-receiver', '--storage.tsdb.retention.time', '100y'] });
  cleanups.push(() => srv.destroy());
  const now = Math.floor(Date.now() / 1000 / 60) * 60;
  const samples = [];
  for (let i = 0; i < 120; i++) {
    const t = (now - 3600 + i * 30) * 1000;
    for (const code of ['200', '404', '500']) samples.push({ labels: labelsFromRecord({ __name__: 'req_total', code, path: '/a' }), t, v: i * (code === '200' ? 3 : 1) });
    samples.push({ labels: labelsFromRecord({ __name__: 'temp', room: 'lab' }), t, v: 20 + Math.cos(i / 7) });
  }
  const res = await fetch(`${srv.promUrl}/api/v1/write`, {
    method: 'POST', body: await encodeWriteRequest(samples),
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
  });
  assert.equal(res.status, 204, await res.text());
  const snap = await (await fetch(`${srv.promUrl}/api/v1/admin/tsdb/snapshot`, { method: 'POST' })).json() as { data: { name: string } };
  const snapDir = path.join(srv.dataDir, 'tsdb', 'snapshots', snap.data.name);
  const promDir = path.join(srv.dataDir, 'for-prometheus');
  mkdirSync(promDir);
  for (const n of readdirSync(snapDir)) cpSync(path.join(snapDir, n), path.join(promDir, n), { recursive: true });
  const prom = await startPrometheus(promDir);
  const at = now - 60;
  const mine = await answers(srv.promUrl, at);
  assert.match(mine[4], /"room":"lab"/, 'temp has data in range');
  assert.deepEqual(await answers(prom, at), mine);
});
