/**
 * A/B of two Tessera checkouts over HTTP on the same data (the vs-prometheus data set, without Prometheus):
 * for each query, alternates A and B, RUNS timed runs each, and prints median wall ms and median server CPU ms
 * (utime+stime of the server process, all threads, from /proc). CPU time is what to compare on a busy machine.
 * Each timed run sends the query BATCH times (default 1) and reports the means per query, so CPU of short
 * queries is not lost to /proc's 10 ms ticks. ONLY=regex picks queries by name.
 * Run: [ONLY=regex] node --import tsx bench/promql/server-ab.ts <checkoutA> <checkoutB> [RUNS] [BATCH]
 * The data set (with the 10,000 `bench_many` series) is cached in $PROMQL_AB_DIR (default /tmp/promql-ab-many).
 */
import { existsSync, mkdirSync, readFileSync, cpSync, rmSync } from 'node:fs';
import { END, START, writeDataset } from './support/dataset.ts';
import { join } from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

const [A, B] = [process.argv[2], process.argv[3]];
const RUNS = Number(process.argv[4] ?? 7);
const BATCH = Number(process.argv[5] ?? 1);
const ONLY = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const DIR = process.env.PROMQL_AB_DIR ?? '/tmp/promql-ab-many';

const R = { start: String(START), end: String(END), step: '60' };
const QUERIES: [string, Record<string, string>][] = [
  ['instant rate', { query: 'rate(bench_http_requests_total[5m])', time: String(END) }],
  ['instant sum by handler', { query: 'sum by (handler) (rate(bench_http_requests_total[5m]))', time: String(END) }],
  ['instant hq sum by le,handler', { query: 'histogram_quantile(0.99, sum by (le,handler) (rate(bench_latency_seconds_bucket[5m])))', time: String(END) }],
  ['range rate 60s', { query: 'rate(bench_http_requests_total[5m])', ...R }],
  ['range rate 15s', { query: 'rate(bench_http_requests_total[5m])', ...R, step: '15' }],
  ['range sum by handler', { query: 'sum by (handler) (rate(bench_http_requests_total[5m]))', ...R }],
  ['range hq(0.9, rate)', { query: 'histogram_quantile(0.9, rate(bench_latency_seconds_bucket[5m]))', ...R }],
  ['range topk', { query: 'topk(5, rate(bench_http_requests_total[5m]))', ...R }],
  ['range max_over_time 1h', { query: 'max_over_time(bench_http_requests_total[1h])', ...R }],
  ['range raw selector', { query: 'bench_http_requests_total', ...R }],
  ['instant regex 10k series', { query: 'count(bench_many{id=~"s1.*|s2.*"})', time: String(END) }],
  ['series 1,000', { path: '/api/v1/series', 'match[]': 'bench_http_requests_total', start: String(START), end: String(END) }],
  ['series 10,000', { path: '/api/v1/series', 'match[]': 'bench_many', start: String(START), end: String(END) }],
  ['label values id', { path: '/api/v1/label/id/values' }],
  ['label values instance match[]', { path: '/api/v1/label/instance/values', 'match[]': 'bench_http_requests_total', start: String(START), end: String(END) }],
];

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(p[11]) + Number(p[12])) * 10; // clock ticks of 10 ms
}

interface Srv { url: string; pid: number; child: ChildProcess }
async function start(checkout: string, data: string): Promise<Srv> {
  const child = spawn(process.execPath, [join(checkout, 'bin/tessera'), '--path.data', data, '--web.listen-address', '127.0.0.1:0',
    '--http.port', '0', '--workflow.port', '0', '--workers', '2', '--log.level', 'warn', '--services', 'metrics'],
  { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, TESSERA_TEST_HOOKS: '1' } });
  const msg = await new Promise<{ type: string; ports?: Record<string, number>; error?: string }>((res) => child.on('message', (m) => res(m as never)));
  if (msg.type !== 'ready') throw new Error(`server failed: ${msg.error}`);
  const port = msg.ports!.metrics;
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, child };
}

async function timed(s: Srv, query: Record<string, string>, batch = 1): Promise<{ ms: number; cpu: number; body: string }> {
  const { path = query.step ? '/api/v1/query_range' : '/api/v1/query', ...params } = query;
  const c0 = cpuMs(s.pid), t0 = performance.now();
  let body = '';
  for (let i = 0; i < batch; i++) {
    const r = await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
    body = await r.text();
  }
  return { ms: (performance.now() - t0) / batch, cpu: (cpuMs(s.pid) - c0) / batch, body };
}
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

if (!existsSync(join(DIR, 'tessera', 'tsdb'))) {
  mkdirSync(DIR, { recursive: true });
  await writeDataset(join(DIR, 'data.om'), true);
  const tt = spawnSync(process.execPath, [join(A, 'bin/tessera'), 'tsdb', 'create-blocks-from', 'openmetrics', '--quiet', join(DIR, 'data.om'), join(DIR, 'tessera', 'tsdb')], { encoding: 'utf8' });
  if (tt.status !== 0) throw new Error(`tessera import: ${tt.stderr}`);
}
for (const x of ['a', 'b']) { rmSync(join(DIR, x), { recursive: true, force: true }); cpSync(join(DIR, 'tessera'), join(DIR, x), { recursive: true }); }
const sa = await start(A, join(DIR, 'a')), sb = await start(B, join(DIR, 'b'));
try {
  console.log('| query | A wall ms | B wall ms | A cpu ms | B cpu ms | B/A cpu | same body |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, params] of QUERIES) {
    if (ONLY && !ONLY.test(name)) continue;
    const wa = await timed(sa, params), wb = await timed(sb, params);
    const a: number[] = [], b: number[] = [], ca: number[] = [], cb: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const x = await timed(sa, params, BATCH); a.push(x.ms); ca.push(x.cpu);
      const y = await timed(sb, params, BATCH); b.push(y.ms); cb.push(y.cpu);
    }
    console.log(`| ${name} | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} | ${median(ca).toFixed(1)} | ${median(cb).toFixed(1)} | ${(median(cb) / median(ca)).toFixed(2)} | ${wa.body === wb.body ? 'yes' : 'NO'} |`);
  }
} finally {
  sa.child.kill('SIGTERM'); sb.child.kill('SIGTERM');
}
