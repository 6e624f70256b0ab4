/**
 * PromQL engine throughput on the anchor queries, in-process (no HTTP, no storage decode):
 * 1,000 counter series + 50 classic histograms × 12 buckets over 6 h at 15 s, queried as a 6 h range at
 * 60 s step and as instant queries. Baseline in the same run: a plain loop touching every sample once.
 * Run: node --import tsx bench/promql/engine.bench.ts
 */
import { Bench } from 'tinybench';
import { MemQuerier } from '../../src/engine/tsdb/mem-querier.ts';
import { parseExpr, instantQuery, rangeQuery } from '../../src/engine/promql/index.ts';
import type { FetchedSeries, Labels } from '../../src/engine/tsdb/api.ts';

const STEP = 15_000, N = 1441, START = 1_704_067_200_000, END = START + 6 * 3600_000;
const series: FetchedSeries[] = [];
const lbl = (o: Record<string, string>): Labels => Object.keys(o).sort().map((name) => ({ name, value: o[name] }));
let seed = 1;
const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
for (let i = 0; i < 1000; i++) {
  const t = new Float64Array(N), v = new Float64Array(N);
  let c = 0;
  for (let k = 0; k < N; k++) { t[k] = START + k * STEP; c += Math.floor(rnd() * 10); v[k] = c; }
  series.push({ labels: lbl({ __name__: 'bench_http_requests_total', handler: `/h${i % 20}`, instance: `i${i}`, job: `job${i % 10}` }), t, v });
}
const LES = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
for (let h = 0; h < 50; h++) {
  const counts = new Float64Array(LES.length);
  const ts = new Float64Array(N);
  const vs = LES.map(() => new Float64Array(N));
  for (let k = 0; k < N; k++) {
    ts[k] = START + k * STEP;
    for (let j = 0; j < 5; j++) { const b = Math.floor(rnd() * LES.length); for (let x = b; x < LES.length; x++) counts[x]++; }
    for (let b = 0; b < LES.length; b++) vs[b][k] = counts[b];
  }
  LES.forEach((le, b) => series.push({ labels: lbl({ __name__: 'bench_latency_bucket', handler: `/h${h % 10}`, instance: `i${h}`, le }), t: ts, v: vs[b] }));
}
const q = new MemQuerier(series);
const rate = parseExpr('rate(bench_http_requests_total[5m])');
const sumBy = parseExpr('sum by (job) (rate(bench_http_requests_total[5m]))');
const hq = parseExpr('histogram_quantile(0.9, sum by (le) (rate(bench_latency_bucket[5m])))');
const re = parseExpr('bench_http_requests_total{handler=~"/h1.*"}');
const topk = parseExpr('topk(5, rate(bench_http_requests_total[5m]))');

const bench = new Bench({ time: 2000, iterations: 3 });
bench
  .add('baseline: sum every sample once', () => { let s = 0; for (const x of series) for (let k = 0; k < x.v.length; k++) s += x.v[k]; return s; })
  .add('instant rate(x[5m]) 1000 series', () => instantQuery(q, rate, END))
  .add('range 6h/60s rate(x[5m])', () => rangeQuery(q, rate, START, END, 60_000))
  .add('range 6h/60s sum by (job) (rate)', () => rangeQuery(q, sumBy, START, END, 60_000))
  .add('range 6h/60s histogram_quantile(0.9, sum by (le) (rate))', () => rangeQuery(q, hq, START, END, 60_000))
  .add('range 6h/60s regex selector', () => rangeQuery(q, re, START, END, 60_000))
  .add('range 6h/60s topk(5, rate)', () => rangeQuery(q, topk, START, END, 60_000));
await bench.run();
console.table(bench.table());
