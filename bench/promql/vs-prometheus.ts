/**
 * Tessera vs the real Prometheus 2.42 on the same data and queries (the figures). Generates OpenMetrics
 * (1,000 counters 6 h @ 15 s, 50 classic histograms × 12 buckets, 10,000 series for a regex selector), backfills
 * it with `promtool` and with `tessera tsdb create-blocks-from openmetrics`, starts both servers on loopback,
 * waits until both are idle past their first minute (Prometheus compacts the backfilled blocks then), runs
 * every query alternately (WARMUP untimed runs, default 5, then RUNS timed runs each, end-to-end over HTTP)
 * and prints the medians and the ratio Tessera/Prometheus, and whether the results are identical (values within 1e-9 relative),
 * and the server CPU per query of each (all threads, /proc ticks of 10 ms: the steadier figure on a shared
 * machine), then the geometric means. Also times `/api/v1/series` and label values (exact same JSON data).
 * Needs `prometheus` and `promtool` on PATH. Run: [ONLY=regex] [WARMUP=n] node --import tsx bench/promql/vs-prometheus.ts [RUNS]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { END, START, writeDataset } from './support/dataset.ts';
import { benchQueries, sameResults, timed } from './support/queries.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { startServer } from '../../test/support/server.ts';

const RUNS = Number(process.argv[2] ?? 5);
/**
 * Untimed runs of each query on both servers first. Tessera's JavaScript is compiled while it runs: the
 * first query of the list, timed after one run, spent 70-97 ms of CPU against about 30 ms once V8 had
 * optimised the code (its compiler threads ran meanwhile); Prometheus's Go code is compiled ahead.
 */
const WARMUP = Number(process.env.WARMUP ?? 5);
/** ONLY=regex runs the queries whose names match. */
const ONLY = process.env.ONLY ? new RegExp(process.env.ONLY) : null;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

const QUERIES = benchQueries(START, END);

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

/** CPU seconds (user + system, all threads) a process has used, from /proc (10 ms ticks). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(p[11]) + Number(p[12])) * 10;
}

const dir = mkdtempSync(join(tmpdir(), 'promql-vs-'));
try {
  const om = join(dir, 'data.om');
  await writeDataset(om, true);
  const pt = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', om, join(dir, 'prom')], { encoding: 'utf8' });
  if (pt.status !== 0) throw new Error(`promtool: ${pt.stderr}`);
  const tt = spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/tessera'), 'tsdb', 'create-blocks-from', 'openmetrics', '--quiet', om, join(dir, 'tessera', 'tsdb')], { encoding: 'utf8' });
  if (tt.status !== 0) throw new Error(`tessera import: ${tt.stderr}`);
  const port = await freePort();
  const prom = spawn('prometheus', [`--config.file=/dev/null`, `--storage.tsdb.path=${join(dir, 'prom')}`, `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=100y', '--log.level=error'], { stdio: 'ignore' });
  const tessera = await startServer({ dataDir: join(dir, 'tessera'), services: ['metrics'] });
  try {
    const pbase = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) { try { if ((await fetch(`${pbase}/-/ready`)).ok) break; } catch { /* starting */ } await new Promise((r) => setTimeout(r, 100)); }
    // Prometheus compacts the backfilled 2 h blocks about a minute after it starts, and Tessera's maintenance
    // tick runs each minute too: let both finish that before timing (it took cores from whichever query ran).
    const started = Date.now();
    for (let quiet = 0; quiet < 3 && Date.now() - started < 150_000;) {
      const a = cpuMs(tessera.pid) + cpuMs(prom.pid!);
      await new Promise((r) => setTimeout(r, 1000));
      quiet = Date.now() - started > 65_000 && cpuMs(tessera.pid) + cpuMs(prom.pid!) - a <= 30 ? quiet + 1 : 0;
    }
    const ratios: number[] = [], cpuRatios: number[] = [];
    console.log('| query | Tessera median ms | Prometheus median ms | ratio | CPU ms per query, Tessera / Prometheus (ratio) | identical | Tessera phases (ms) |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, params] of QUERIES) {
      if (ONLY && !ONLY.test(name)) continue;
      const tw = await timed(tessera.promUrl, params), pw = await timed(pbase, params);
      for (let i = 1; i < WARMUP; i++) { await timed(tessera.promUrl, params); await timed(pbase, params); }
      const ts: number[] = [], ps: number[] = [];
      let tcpu = 0, pcpu = 0;
      for (let i = 0; i < RUNS; i++) {
        let c = cpuMs(tessera.pid);
        ts.push((await timed(tessera.promUrl, params)).ms);
        tcpu += cpuMs(tessera.pid) - c;
        c = cpuMs(prom.pid!);
        ps.push((await timed(pbase, params)).ms);
        pcpu += cpuMs(prom.pid!) - c;
      }
      const t = median(ts), p = median(ps);
      const ms = (x: number): string => (x * 1000).toFixed(0);
      const st = params.path ? null : JSON.parse((await timed(tessera.promUrl, { ...params, stats: 'all' })).body).data.stats.timings;
      const phases = st ? `fetch ${ms(st.queryPreparationTime)} / eval ${ms(st.innerEvalTime)} / hop ${ms(st.execQueueTime)}` : '';
      const cpu = `${(tcpu / RUNS).toFixed(1)} / ${(pcpu / RUNS).toFixed(1)} (${pcpu > 0 ? (tcpu / pcpu).toFixed(2) : '-'})`;
      console.log(`| ${name} | ${t.toFixed(1)} | ${p.toFixed(1)} | ${(t / p).toFixed(2)} | ${cpu} | ${sameResults(tw.body, pw.body) ? 'yes' : 'NO'} | ${phases} |`);
      ratios.push(t / p);
      if (pcpu > 0) cpuRatios.push(tcpu / pcpu);
    }
    const geomean = (xs: number[]): string => Math.exp(xs.reduce((a, r) => a + Math.log(r), 0) / xs.length).toFixed(2);
    console.log(`geometric mean of the latency ratios: ${geomean(ratios)}; of the CPU ratios: ${geomean(cpuRatios)}`);
  } finally {
    prom.kill('SIGTERM');
    await tessera.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
