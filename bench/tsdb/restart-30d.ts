/**
 * 30 days of imported 2 h blocks, restart, then the PromQL benchmark list: Tessera against Prometheus 2.42 over
 * the same blocks (issue 11's figure). Data: the PromQL benchmarks' metric shapes at a 60 s interval for 30
 * days (1,000 counters `bench_http_requests_total`, 50 classic histograms × 12 buckets; 1,600 series, 69 M
 * samples) plus 10,000 gauges `bench_many` in the last hour; seeded, the same each run. Each 2 h window is
 * written as its own OpenMetrics file and turned into one block by `promtool tsdb create-blocks-from
 * openmetrics` (360 blocks), so both servers read identical bytes. Then RUNS times, alternating, each server on
 * a fresh copy of the blocks (`--storage.tsdb.retention.time=100y`): the time from spawn until `/-/ready`
 * answers 200, VmRSS/RssAnon at ready, after every query of the list (bench/promql/support/queries.ts, ranges
 * ending at the last sample; plus a 30-day range query) run twice, and once the server has used under 2% of a
 * core for 3 s in a row after its first 65 s (Prometheus compacts the blocks a minute after it starts; Tessera's
 * maintenance starts at once), at most 240 s. Prints each run and the medians. Needs `prometheus` and `promtool`.
 *
 *   node --import tsx bench/tsdb/restart-30d.ts [RUNS=3]
 *
 * BLOCKS_DIR=dir keeps the generated blocks there (made when missing) to reuse them across invocations.
 * TESSERA_B=path/to/bin/tessera adds a second Tessera build (an A/B in the same run), measured in turn.
 * STARTUP_ONLY=1 stops each server once it is ready (start-up and memory at ready only; RUNS=7 is quick).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTicks, freePort, statusMb } from '../../loadtest/support/run.ts';
import { benchQueries, sameResults, timed } from '../promql/support/queries.ts';

const RUNS = Number(process.argv[2] ?? 3);
const T0 = 1_704_067_200, DAYS = 30, WINDOW = 7200, STEP = 60;
const END = T0 + DAYS * 86_400 - STEP, START = END - 6 * 3600;
const LES = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
const QUERIES = [...benchQueries(START, END),
  ['range 30d/1h sum by (job) rate[1h]', { query: 'sum by (job) (rate(bench_http_requests_total[1h]))', start: String(T0 + 3600), end: String(END), step: '3600' }]] as [string, Record<string, string>][];

/** Writes the 2 h windows one at a time and backfills each with promtool, three at once (it waits on fsync). */
async function makeBlocks(out: string, scratch: string): Promise<void> {
  let seed = 42;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const counters = new Float64Array(1000), buckets = new Float64Array(50 * LES.length);
  const running = new Set<Promise<void>>();
  for (let w = T0; w < T0 + DAYS * 86_400; w += WINDOW) {
    const parts = ['# TYPE bench_http_requests_total counter\n'];
    for (let i = 0; i < counters.length; i++) {
      const l = `bench_http_requests_total{handler="/h${i % 20}",instance="i${i}",job="job${i % 10}"} `;
      let buf = '';
      for (let t = w; t < w + WINDOW; t += STEP) buf += `${l}${(counters[i] += Math.floor(rnd() * 10))} ${t}\n`;
      parts.push(buf);
    }
    parts.push('# TYPE bench_latency_seconds histogram\n');
    for (let h = 0; h < 50; h++) {
      const rows = LES.map(() => '');
      for (let t = w; t < w + WINDOW; t += STEP) {
        for (let j = 0; j < 5; j++) { const b = Math.floor(rnd() * LES.length); for (let x = b; x < LES.length; x++) buckets[h * LES.length + x]++; }
        for (let b = 0; b < LES.length; b++) rows[b] += `bench_latency_seconds_bucket{handler="/h${h % 10}",instance="i${h}",le="${LES[b]}"} ${buckets[h * LES.length + b]} ${t}\n`;
      }
      parts.push(rows.join(''));
    }
    if (w + WINDOW > END) {
      parts.push('# TYPE bench_many gauge\n');
      for (let i = 0; i < 10_000; i++) {
        let buf = '';
        for (let t = END - 3600; t <= END; t += STEP) buf += `bench_many{id="s${i}",group="g${i % 100}"} ${i % 7} ${t}\n`;
        parts.push(buf);
      }
    }
    parts.push('# EOF\n');
    const file = join(scratch, `${w}.om`);
    writeFileSync(file, parts.join(''));
    const job = new Promise<void>((resolve, reject) => {
      const p = spawn('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', file, out], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr.on('data', (d) => { err += d; });
      p.on('exit', (code) => { rmSync(file); if (code === 0) resolve(); else reject(new Error(`promtool: ${err}`)); });
    });
    running.add(job);
    void job.finally(() => running.delete(job));
    if (running.size >= 3) await Promise.race(running);
  }
  await Promise.all(running);
}

const memory = (pid: number): string => `${Math.round(statusMb(pid, 'VmRSS'))} / ${Math.round(statusMb(pid, 'RssAnon'))}`;

interface Run { name: string; readyMs: number; atReady: string; afterQueries: string; settled: string; settledAfterS: number; answers: string[] }

/** Starts one server on its own copy of the blocks and takes the figures; `tsdbDir` is where its blocks go. */
async function measure(name: string, blocks: string, work: string): Promise<Run> {
  const bin = name === 'tessera B' ? process.env.TESSERA_B! : join(import.meta.dirname, '../../bin/tessera');
  rmSync(work, { recursive: true, force: true });
  const port = await freePort();
  let child: ChildProcess;
  const base = `http://127.0.0.1:${port}`;
  if (name === 'prometheus') {
    cpSync(blocks, join(work, 'prom'), { recursive: true });
    child = spawn('prometheus', ['--config.file=/dev/null', `--storage.tsdb.path=${join(work, 'prom')}`, `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=100y', '--log.level=error'], { stdio: 'ignore' });
  } else {
    cpSync(blocks, join(work, 'data', 'tsdb'), { recursive: true });
    writeFileSync(join(work, 'empty.yml'), 'global: {}\n');
    child = spawn(process.execPath, [bin, '--path.data', join(work, 'data'), '--services', 'metrics',
      '--web.listen-address', `127.0.0.1:${port}`, '--config.file', join(work, 'empty.yml'), '--storage.tsdb.retention.time=100y', '--log.level', 'error'],
    { stdio: 'ignore' });
  }
  const t0 = performance.now();
  try {
    for (;;) {
      try { if ((await fetch(`${base}/-/ready`)).ok) break; } catch { /* starting */ }
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
      if (performance.now() - t0 > 120_000) throw new Error(`${name} not ready after 120 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const readyMs = performance.now() - t0;
    const atReady = memory(child.pid!);
    if (process.env.STARTUP_ONLY === '1') return { name, readyMs, atReady, afterQueries: '- / -', settled: '- / -', settledAfterS: 0, answers: [] };
    const answers: string[] = [];
    for (const [, params] of QUERIES) { answers.push((await timed(base, params)).body); await timed(base, params); }
    const afterQueries = memory(child.pid!);
    for (let quiet = 0; quiet < 3 && performance.now() - t0 < 240_000;) {
      const c = cpuTicks(child.pid!);
      await new Promise((r) => setTimeout(r, 1000));
      quiet = performance.now() - t0 > 65_000 && cpuTicks(child.pid!) - c <= 2 ? quiet + 1 : 0;
    }
    return { name, readyMs, atReady, afterQueries, settled: memory(child.pid!), settledAfterS: (performance.now() - t0) / 1000, answers };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(work, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'tsdb-30d-'));
try {
  const blocks = process.env.BLOCKS_DIR ?? join(dir, 'blocks');
  if (!existsSync(blocks) || readdirSync(blocks).length === 0) {
    mkdirSync(blocks, { recursive: true });
    const t = performance.now();
    await makeBlocks(blocks, dir);
    console.log(`${readdirSync(blocks).length} blocks written by promtool in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const runs: Run[] = [];
  console.log('| run | server | start-up until ready ms | VmRSS / RssAnon MB at ready | after the queries | settled (s after spawn) | answers identical to Prometheus\'s |');
  console.log('|---|---|---|---|---|---|---|');
  const servers = ['prometheus', 'tessera', ...(process.env.TESSERA_B ? ['tessera B'] : [])];
  for (let i = 1; i <= RUNS; i++) {
    // Each run starts with the next server of the list, so none always goes first.
    for (const name of [...servers.slice((i - 1) % servers.length), ...servers.slice(0, (i - 1) % servers.length)]) {
      const r = await measure(name, blocks, join(dir, 'run'));
      runs.push(r);
      const prom = runs.filter((x) => x.name === 'prometheus').at(-1);
      const same = r.name !== 'prometheus' && prom && r.answers.length ? `${r.answers.filter((a, k) => sameResults(a, prom.answers[k])).length} of ${QUERIES.length}` : '';
      console.log(`| ${i} | ${name} | ${r.readyMs.toFixed(0)} | ${r.atReady} | ${r.afterQueries} | ${r.settled} (${r.settledAfterS.toFixed(0)}) | ${same} |`);
    }
  }
  const med = (name: string, f: (r: Run) => number): number => median(runs.filter((r) => r.name === name).map(f));
  const anon = (s: string): number => Number(s.split(' / ')[1]);
  const figures = process.env.STARTUP_ONLY === '1' ? 2 : 4;
  for (const [label, f] of [['start-up ms', (r: Run) => r.readyMs], ['RssAnon at ready', (r: Run) => anon(r.atReady)],
    ['RssAnon after queries', (r: Run) => anon(r.afterQueries)], ['RssAnon settled', (r: Run) => anon(r.settled)]].slice(0, figures) as [string, (r: Run) => number][]) {
    const p = med('prometheus', f);
    const others = servers.slice(1).map((name) => `${name} ${med(name, f).toFixed(0)} (${(med(name, f) / p).toFixed(2)}×)`);
    console.log(`median ${label}: Prometheus ${p.toFixed(0)}, ${others.join(', ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
