/**
 * XOR chunk encode/decode throughput and size (src/engine/tsdb/xor-chunk.ts).
 *
 * Measured, per data set (1000 series × 120 samples = one full chunk each, 120 000 samples per iteration):
 *  - encode: XorAppender.append of every sample, samples/s;
 *  - decode: decodeXor of every chunk into reused Float64Arrays, samples/s (target ≥ 50 M/s);
 *  - bytes/sample: XOR payload bytes, and with the block chunk-file framing (len varint, encoding byte,
 *    crc32c) that Prometheus's 2.37 B/sample figure also counts.
 *  - baseline (same run): copying the same samples between Float64Arrays (the floor any decoder sits on).
 * Data (seeded mulberry32, seed 7), 15 s interval:
 *  - counter: integer counter with irregular increments 0..20 every 15 s exactly (cf. bench_http_requests_total);
 *  - gauge: 15 s ± 0–3 ms timestamp jitter, random-walk values with 3 decimals (cf. cpu_seconds style);
 *  - constant: one value forever.
 * Run: node --import tsx bench/chunk.bench.ts   (about 15 s)
 */
import { Bench } from 'tinybench';
import { XorAppender, decodeXor } from '../src/engine/tsdb/xor-chunk.ts';

const SERIES = 1000, N = 120;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface DataSet { name: string; ts: Float64Array[]; vs: Float64Array[] }

function make(name: string, f: (rnd: () => number, i: number, prevT: number, prevV: number) => [number, number]): DataSet {
  const rnd = mulberry32(7);
  const ts: Float64Array[] = [], vs: Float64Array[] = [];
  for (let s = 0; s < SERIES; s++) {
    const t = new Float64Array(N), v = new Float64Array(N);
    let pt = 1_704_067_200_000 + Math.floor(rnd() * 15000), pv = Math.floor(rnd() * 1e6);
    for (let i = 0; i < N; i++) { [pt, pv] = f(rnd, i, pt, pv); t[i] = pt; v[i] = pv; }
    ts.push(t); vs.push(v);
  }
  return { name, ts, vs };
}

const sets = [
  make('counter 15s', (r, i, t, v) => [i === 0 ? t : t + 15000, v + Math.floor(r() * 21)]),
  make('jittery gauge', (r, i, t, v) => [t + 15000 + (i === 0 ? 0 : Math.floor(r() * 4)), Math.round((v / 1000 + (r() - 0.5) * 10) * 1000) / 1000]),
  make('constant', (_r, i, t) => [i === 0 ? t : t + 15000, 42]),
];

const encoded = sets.map((d) => d.ts.map((t, s) => { const a = new XorAppender(); for (let i = 0; i < N; i++) a.append(t[i], d.vs[s][i]); return a.bytes().slice(); }));
const outT = new Float64Array(N), outV = new Float64Array(N);
let sink = 0;

const bench = new Bench({ time: 1500, warmupTime: 300 });
sets.forEach((d, k) => {
  bench.add(`encode ${d.name}`, () => {
    for (let s = 0; s < SERIES; s++) { const a = new XorAppender(); const t = d.ts[s], v = d.vs[s]; for (let i = 0; i < N; i++) a.append(t[i], v[i]); sink += a.count; }
  });
  bench.add(`decode ${d.name}`, () => {
    const chunks = encoded[k];
    for (let s = 0; s < SERIES; s++) sink += decodeXor(chunks[s], outT, outV);
    sink += outV[N - 1];
  });
});
bench.add('baseline: copy 120k samples', () => {
  const d = sets[0];
  for (let s = 0; s < SERIES; s++) { outT.set(d.ts[s]); outV.set(d.vs[s]); sink += outT[5]; }
});

await bench.run();
const perIter = SERIES * N;
const rows = bench.tasks.map((t) => {
  const mean = (t.result as unknown as { latency: { mean: number } }).latency.mean;
  return { task: t.name, 'M samples/s': +(perIter / (mean / 1000) / 1e6).toFixed(1), 'ms/iter': +mean.toFixed(3) };
});
console.table(rows);
console.table(sets.map((d, k) => {
  const payload = encoded[k].reduce((n, b) => n + b.length, 0);
  const framing = encoded[k].reduce((n, b) => n + (b.length < 128 ? 1 : 2) + 1 + 4, 0);
  return { data: d.name, 'B/sample (xor)': +(payload / perIter).toFixed(3), 'B/sample (chunk file)': +((payload + framing) / perIter).toFixed(3) };
}));
// The same loops timed by this process's CPU time (user+system): on a shared, loaded machine the wall clock
// above mostly measures the scheduler; CPU time is what the code costs.
const cpuRate = (fn: () => void, reps: number): number => {
  const c = process.cpuUsage();
  for (let r = 0; r < reps; r++) fn();
  const d = process.cpuUsage(c);
  return perIter * reps / ((d.user + d.system) / 1e6) / 1e6;
};
console.table(sets.map((d, k) => ({
  data: d.name,
  'decode M samples/CPU-s': +cpuRate(() => { for (let s = 0; s < SERIES; s++) sink += decodeXor(encoded[k][s], outT, outV); }, 40).toFixed(1),
  'encode M samples/CPU-s': +cpuRate(() => { for (let s = 0; s < SERIES; s++) { const a = new XorAppender(); for (let i = 0; i < N; i++) a.append(d.ts[s][i], d.vs[s][i]); sink += a.count; } }, 10).toFixed(1),
})));
if (sink === 42) console.log('');
