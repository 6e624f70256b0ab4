/**
 * A/B of two Tessera checkouts over HTTP on the same data (the vs-prometheus data set, without Prometheus):
 * for each query, alternates A and B, RUNS timed runs each, and prints median wall ms and median server CPU ms
 * (utime+stime of the server process, all threads, from /proc). CPU time is what to compare on a busy machine.
 * Run: node --import tsx bench/promql/server-ab.ts <checkoutA> <checkoutB> [RUNS]
 * The data set is cached in $PROMQL_AB_DIR (default /tmp/promql-ab).
 */
import { existsSync, mkdirSync, readFileSync, cpSync, rmSync } from 'node:fs';
import { END, START, writeDataset } from './support/dataset.ts';
import { join } from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

const [A, B] = [process.argv[2], process.argv[3]];
const RUNS = Number(process.argv[4] ?? 7);
const ONLY = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const DIR = process.env.PROMQL_AB_DIR ?? '/tmp/promql-ab';

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

async function timed(s: Srv, params: Record<string, string>): Promise<{ ms: number; cpu: number; body: string }> {
  const path = params.step ? '/api/v1/query_range' : '/api/v1/query';
  const c0 = cpuMs(s.pid), t0 = performance.now();
  const r = await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  const body = await r.text();
  return { ms: performance.now() - t0, cpu: cpuMs(s.pid) - c0, body };
}
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

if (!existsSync(join(DIR, 'tessera', 'tsdb'))) {
  mkdirSync(DIR, { recursive: true });
  await writeDataset(join(DIR, 'data.om'), false);
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
      const x = await timed(sa, params); a.push(x.ms); ca.push(x.cpu);
      const y = await timed(sb, params); b.push(y.ms); cb.push(y.cpu);
    }
    console.log(`| ${name} | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} | ${median(ca)} | ${median(cb)} | ${(median(cb) / median(ca)).toFixed(2)} | ${wa.body === wb.body ? 'yes' : 'NO'} |`);
  }
} finally {
  sa.child.kill('SIGTERM'); sb.child.kill('SIGTERM');
}
