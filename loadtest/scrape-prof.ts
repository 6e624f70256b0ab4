/**
 * Scrape ingestion cost, end to end: a target in this process exposes SERIES counters (values change on
 * every scrape); Tessera scrapes it every second, and so does the real Prometheus 2.42 when installed, in
 * the same run, one after the other. Measured over SECONDS of steady state (after three warm-up scrapes):
 * the server's CPU time (all threads, from /proc/<pid>/stat) per million samples ingested, and its RSS.
 * The anchor in docs/prometheus.md §5.3 is about 0.1 core for 100k samples/s (≈ 1 CPU-s per M samples).
 *
 *   node --import tsx loadtest/scrape-ingest.ts [seconds=8 (max 10)] [series=50000]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './support/run.ts';

const SECONDS = Math.min(10, Number(process.argv[2] ?? 8));
const SERIES = Number(process.argv[3] ?? 50_000);
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-scrape-load-'));
const CLK_TCK = 100;

let round = 0;
const codes = ['200', '404', '500', '302'];
const target = createServer((_req, res) => {
  round++;
  const lines = ['# HELP load_requests_total Requests.', '# TYPE load_requests_total counter'];
  for (let i = 0; i < SERIES; i++) lines.push(`load_requests_total{handler="/api/v${i % 50}",code="${codes[i % 4]}",n="${i}"} ${i * 3 + round}`);
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
  res.end(lines.join('\n') + '\n');
});
const targetPort = await freePort();
await new Promise<void>((r) => target.listen(targetPort, '127.0.0.1', r));
const cfg = join(dir, 'scrape.yml');
writeFileSync(cfg, `global: {scrape_interval: 1s, scrape_timeout: 1s}\nscrape_configs:\n  - job_name: load\n    static_configs: [{targets: ["127.0.0.1:${targetPort}"]}]\n`);

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime + stime, all threads
}
function threads(pid: number): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
    const f = raw.split(') ')[1].split(' ');
    out.set(tid, { name, cpu: (Number(f[11]) + Number(f[12])) / CLK_TCK });
  }
  return out;
}
function rssMb(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(url)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready`);
}

async function measure(name: string, child: ChildProcess, port: number): Promise<string> {
  await waitReady(`http://127.0.0.1:${port}/-/ready`);
  // Warm-up: the first scrape creates every series (the cold path); measure the steady state after 3 scrapes.
  const start = round, deadline = Date.now() + 20_000;
  while (round < start + 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const r0 = round, c0 = cpuSeconds(child.pid!);
  const th0 = threads(child.pid!);
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const th1 = threads(child.pid!);
  for (const [tid, v] of th1) { const d = v.cpu - (th0.get(tid)?.cpu ?? 0); if (d > 0.05) console.log(`thread ${tid} ${v.name}: ${d.toFixed(2)} CPU-s`); }
  const scrapes = round - r0, cpu = cpuSeconds(child.pid!) - c0;
  const samples = scrapes * SERIES;
  return `| ${name} | ${scrapes} | ${(samples / SECONDS / 1000).toFixed(0)}k | ${(cpu / SECONDS).toFixed(2)} | ${(cpu / (samples / 1e6)).toFixed(2)} | ${rssMb(child.pid!)} |`;
}

const rows: string[] = [];
const children: ChildProcess[] = [];
try {
  if (!process.env.PROF && existsSync('/usr/bin/prometheus')) {
    const port = await freePort();
    const prom = spawn('/usr/bin/prometheus', [`--config.file=${cfg}`, `--storage.tsdb.path=${join(dir, 'prom')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: 'ignore' });
    children.push(prom);
    rows.push(await measure('prometheus 2.42', prom, port));
    prom.kill('SIGTERM');
  }
  const port = await freePort();
  const tessera = spawn(process.execPath, [...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []), ...(process.env.NODEFLAGS ? process.env.NODEFLAGS.split(' ') : []), '--import', 'tsx', join(here, '../src/cli/main.ts'), '--path.data', join(dir, 'data'),
    '--services', 'metrics', '--web.listen-address', `127.0.0.1:${port}`, '--config.file', cfg, '--log.level', 'warn'], { stdio: process.env.NODEFLAGS ? ['ignore', 'inherit', 'inherit'] : 'ignore' });
  children.push(tessera);
  rows.push(await measure('tessera', tessera, port));
  console.log(`${SERIES} series per scrape, 1 s interval, ${SECONDS} s measured\n`);
  console.log('| server | scrapes | samples/s | CPU cores | CPU-s per M samples | RSS MB |\n|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  for (const c of children) c.kill('SIGTERM');
  target.close();
  await new Promise((r) => setTimeout(r, process.env.PROF ? 8000 : 500));
  rmSync(dir, { recursive: true, force: true });
}
