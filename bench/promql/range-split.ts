/**
 * What evaluating a range query as two halves of its steps on both query threads brings (issue 12, "both
 * cores"): two Tessera checkouts over HTTP on copies of the same data (the vs-prometheus data set: 1,000
 * counters 6 h @ 15 s, 50 histograms), each query sent to A then B alternately, WARMUP untimed rounds then
 * RUNS timed ones; prints median wall ms, median server CPU ms (all threads, /proc ticks of 10 ms) and B/A.
 * Then the concurrent case: CLIENTS clients each sending one range query at once (where splitting must not
 * be done), median wall ms of the batch. Also checks that A and B answer the same bytes.
 * The data set is read from $PROMQL_AB_DIR/tessera (default /tmp/promql-ab-many; `bench/promql/server-ab.ts`
 * creates it) and copied, never written. Needs `npm run build` in both checkouts (bin/tessera runs dist/ only
 * when it is fresher than src/).
 * Run: [WARMUP=n] [CLIENTS=n] node --import tsx bench/promql/range-split.ts <checkoutA> <checkoutB> [RUNS]
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { END, START } from './support/dataset.ts';

const [A, B] = [process.argv[2], process.argv[3]];
const RUNS = Number(process.argv[4] ?? 7);
const WARMUP = Number(process.env.WARMUP ?? 4);
const CLIENTS = Number(process.env.CLIENTS ?? 4);
const DIR = process.env.PROMQL_AB_DIR ?? '/tmp/promql-ab-many';

const QUERIES: [string, string, number][] = [
  ['range rate 6h/15s', 'rate(bench_http_requests_total[5m])', 15],
  ['range rate 6h/60s', 'rate(bench_http_requests_total[5m])', 60],
  ['range sum by (job) rate 6h/60s', 'sum by (job) (rate(bench_http_requests_total[5m]))', 60],
  ['range hq(0.9, sum by (le) rate) 6h/60s', 'histogram_quantile(0.9, sum by (le) (rate(bench_latency_seconds_bucket[5m])))', 60],
  ['range max_over_time[1h] 6h/60s', 'max_over_time(bench_http_requests_total[1h])', 60],
  ['range one series rate 6h/60s', 'rate(bench_http_requests_total{instance="i0"}[5m])', 60],
];

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(p[11]) + Number(p[12])) * 10;
}

interface Srv { url: string; pid: number; child: ChildProcess }
async function start(checkout: string, data: string, config: string): Promise<Srv> {
  const child = spawn(process.execPath, [join(checkout, 'bin/tessera'), '--path.data', data, '--web.listen-address', '127.0.0.1:0',
    '--http.port', '0', '--workflow.port', '0', '--workers', '2', '--log.level', 'warn', '--services', 'metrics',
    '--config.file', config, '--storage.tsdb.retention.time', '100y'],
  { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, TESSERA_TEST_HOOKS: '1' } });
  const msg = await new Promise<{ type: string; ports?: Record<string, number>; error?: string }>((res) => child.on('message', (m) => res(m as never)));
  if (msg.type !== 'ready') throw new Error(`server failed: ${msg.error}`);
  return { url: `http://127.0.0.1:${msg.ports!.metrics}`, pid: child.pid!, child };
}

async function send(s: Srv, query: string, step: number): Promise<string> {
  const r = await fetch(`${s.url}/api/v1/query_range`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ query, start: String(START), end: String(END), step: String(step) }) });
  return r.text();
}
async function timed(s: Srv, f: () => Promise<unknown>): Promise<{ ms: number; cpu: number }> {
  const c0 = cpuMs(s.pid), t0 = performance.now();
  await f();
  return { ms: performance.now() - t0, cpu: cpuMs(s.pid) - c0 };
}
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

const work = mkdtempSync(join(tmpdir(), 'range-split-bench-'));
const config = join(work, 'prometheus.yml');
writeFileSync(config, 'scrape_configs: []\n');
for (const x of ['a', 'b']) cpSync(join(DIR, 'tessera'), join(work, x), { recursive: true });
const sa = await start(A, join(work, 'a'), config), sb = await start(B, join(work, 'b'), config);
try {
  console.log(`${new Date().toISOString()} A=${A} B=${B} runs=${RUNS} warmup=${WARMUP}`);
  console.log('| query | A wall ms | B wall ms | B/A wall | A cpu ms | B cpu ms | B/A cpu | same body |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, q, step] of QUERIES) {
    const same = (await send(sa, q, step)) === (await send(sb, q, step));
    for (let i = 0; i < WARMUP; i++) { await send(sa, q, step); await send(sb, q, step); }
    const a: number[] = [], b: number[] = [], ca: number[] = [], cb: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const x = await timed(sa, () => send(sa, q, step)); a.push(x.ms); ca.push(x.cpu);
      const y = await timed(sb, () => send(sb, q, step)); b.push(y.ms); cb.push(y.cpu);
    }
    console.log(`| ${name} | ${median(a).toFixed(0)} | ${median(b).toFixed(0)} | ${(median(b) / median(a)).toFixed(2)} | ${median(ca)} | ${median(cb)} | ${(median(cb) / median(ca)).toFixed(2)} | ${same ? 'yes' : 'NO'} |`);
  }
  // The concurrent case: CLIENTS range queries (the 60 s ones, in turn) sent at once.
  const batch = (s: Srv): Promise<unknown> => Promise.all(Array.from({ length: CLIENTS }, (_, i) => { const [, q, step] = QUERIES[1 + (i % 4)]; return send(s, q, step); }));
  for (let i = 0; i < WARMUP; i++) { await batch(sa); await batch(sb); }
  const a: number[] = [], b: number[] = [], ca: number[] = [], cb: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const x = await timed(sa, () => batch(sa)); a.push(x.ms); ca.push(x.cpu);
    const y = await timed(sb, () => batch(sb)); b.push(y.ms); cb.push(y.cpu);
  }
  console.log(`| ${CLIENTS} clients at once (6h/60s rate, sum by, hq, max_over_time) | ${median(a).toFixed(0)} | ${median(b).toFixed(0)} | ${(median(b) / median(a)).toFixed(2)} | ${median(ca)} | ${median(cb)} | ${(median(cb) / median(ca)).toFixed(2)} | |`);
} finally {
  sa.child.kill('SIGTERM'); sb.child.kill('SIGTERM');
  await Promise.all([sa, sb].map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))));
  rmSync(work, { recursive: true, force: true });
}
