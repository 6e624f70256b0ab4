/** Shared pieces of the load tests: child processes pinned to a core, free ports, bounded autocannon runs. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

/** A `/proc/PID/status` figure (`VmRSS`, `RssAnon`, …) in MB. */
export function statusMb(pid: number, key: string): number {
  return Number(new RegExp(`${key}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** CPU time of a process (user + system, all threads) in 10 ms ticks, from /proc/PID/stat. */
export function cpuTicks(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const p = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return Number(p[11]) + Number(p[12]);
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
  });
}

/** Spawns `node script args` (through tsx for a .ts script) pinned to `cpu` (taskset) and waits for its IPC 'ready'. */
export function spawnPinned(cpu: number, script: string, args: string[]): Promise<ChildProcess> {
  const child = spawn("taskset", ["-c", String(cpu), process.execPath, ...(script.endsWith(".ts") ? ["--import", "tsx"] : []), script, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export interface LoadResult { name: string; reqPerSec: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number }

/** One bounded autocannon run (no pipelining: real clients do not pipeline, see architecture.md). */
export async function load(name: string, url: string, opts: { seconds?: number; connections?: number; method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<LoadResult> {
  const r = await autocannon({
    url, duration: opts.seconds ?? 5, connections: opts.connections ?? 64, pipelining: 1,
    method: (opts.method ?? 'GET') as 'GET', body: opts.body, headers: opts.headers,
  });
  return { name, reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

export function table(rows: LoadResult[], baseline: LoadResult): string {
  const lines = ['| target | req/s | ratio to ' + baseline.name + ' | p50 ms | p99 ms | errors | non-2xx |', '|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${Math.round(r.reqPerSec)} | ${(r.reqPerSec / baseline.reqPerSec).toFixed(2)}× | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} | ${r.non2xx} |`);
  }
  return lines.join('\n');
}

/**
 * The same measurement with wrk (Debian's `wrk`), pinned to `cpu`: autocannon saturates itself far below what
 * uWebSockets.js can answer, so the front-end ratios are only meaningful with a faster load generator.
 * Returns null when wrk is not installed.
 */
export async function wrkLoad(name: string, url: string, opts: { seconds?: number; connections?: number; cpu?: number } = {}): Promise<LoadResult | null> {
  const { spawnSync } = await import('node:child_process');
  if (spawnSync('which', ['wrk']).status !== 0) return null;
  const r = spawnSync('taskset', ['-c', String(opts.cpu ?? 1), 'wrk', '-t1', `-c${opts.connections ?? 64}`, `-d${opts.seconds ?? 5}s`, '--latency', url], { encoding: 'utf8', timeout: ((opts.seconds ?? 5) + 30) * 1000 });
  const out = r.stdout ?? '';
  const num = (re: RegExp): number => { const m = re.exec(out); return m ? Number(m[1]) : NaN; };
  const ms = (re: RegExp): number => {
    const m = re.exec(out);
    if (!m) return NaN;
    const f = Number(m[1]);
    return m[2] === 'us' ? f / 1000 : m[2] === 's' ? f * 1000 : f;
  };
  return {
    name, reqPerSec: num(/Requests\/sec:\s+([\d.]+)/),
    p50Ms: ms(/50%\s+([\d.]+)(us|ms|s)/), p99Ms: ms(/99%\s+([\d.]+)(us|ms|s)/),
    errors: num(/Socket errors: connect (\d+)/) || 0, non2xx: num(/Non-2xx or 3xx responses: (\d+)/) || 0,
  };
}
