/**
 * The node's own start-up (issue 11): spawn of `bin/tessera` on an empty data directory until `/-/ready` answers
 * 200, with the process's CPU time (every thread) and RssAnon at that moment. CPU is the figure to read on a
 * shared machine: the wall time of a start that keeps both cores busy doubles when someone else runs.
 *
 *   node --import tsx bench/server/startup.ts [RUNS=7] [metrics|all]
 *
 * `metrics` runs the metrics service only; `all` every service (default flags). TESSERA_B=path/to/bin/tessera adds a
 * second build, run alternately with this one. Prints each run and the medians (build the trees first: `npm run
 * build`, or `bin/tessera` runs the sources through tsx).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTicks, freePort, statusMb } from '../../loadtest/support/run.ts';

const RUNS = Number(process.argv[2] ?? 7);
const MODE = process.argv[3] ?? 'metrics';
const BUILDS: [string, string][] = [['tessera', join(import.meta.dirname, '../../bin/tessera')],
  ...(process.env.TESSERA_B ? [['tessera B', process.env.TESSERA_B] as [string, string]] : [])];

interface Start { readyMs: number; cpuMs: number; rssAnonMb: number }

async function start(bin: string): Promise<Start> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-startup-'));
  const [metrics, documents, workflow] = [await freePort(), await freePort(), await freePort()];
  const args = ['--path.data', dir, '--web.listen-address', `127.0.0.1:${metrics}`, '--log.level', 'error',
    ...(MODE === 'all' ? ['--http.port', String(documents), '--workflow.port', String(workflow)] : ['--services', 'metrics'])];
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
  try {
    for (;;) {
      try { if ((await fetch(`http://127.0.0.1:${metrics}/-/ready`)).ok) break; } catch { /* not listening yet */ }
      if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode}`);
      if (performance.now() - t0 > 60_000) throw new Error(`${bin} not ready after 60 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return { readyMs: performance.now() - t0, cpuMs: cpuTicks(child.pid!) * 10, rssAnonMb: statusMb(child.pid!, 'RssAnon') };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

const results = new Map<string, Start[]>(BUILDS.map(([name]) => [name, []]));
console.log(`| run | build | ready ms | CPU ms | RssAnon MB |\n|---|---|---|---|---|`);
for (let run = 1; run <= RUNS; run++) {
  for (const [name, bin] of BUILDS) {
    const s = await start(bin);
    results.get(name)!.push(s);
    console.log(`| ${run} | ${name} | ${Math.round(s.readyMs)} | ${s.cpuMs} | ${s.rssAnonMb.toFixed(1)} |`);
  }
}
for (const [name, runs] of results) {
  console.log(`${name} (${MODE}): ready median ${Math.round(median(runs.map((r) => r.readyMs)))} ms, CPU median ` +
    `${median(runs.map((r) => r.cpuMs))} ms, RssAnon median ${median(runs.map((r) => r.rssAnonMb)).toFixed(1)} MB`);
}
