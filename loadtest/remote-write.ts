/**
 * Remote-write ingestion: samples/s accepted by Tessera's `POST /api/v1/write` and, in the same run, by the
 * real Prometheus 2.42 (`--web.enable-remote-write-receiver`) when it is installed (Debian `prometheus`).
 *
 * Load: SERIES series (`rw_load{series="N",shard="N%16"}`), sent time-major as Prometheus agents do: request
 * k carries BATCH samples, the next BATCH series of the current timestamp; when every series has had a
 * sample the timestamp moves on by 15 s (so no sample is out of order or a duplicate). Bodies are
 * pre-encoded (snappy protobuf) before the clock starts; autocannon sends them round-robin on 8
 * connections, no pipelining. A 2xx counts BATCH samples; anything else is an error.
 * Each server runs pinned to CPU 0, autocannon to CPU 1.
 *
 *   node --import tsx loadtest/remote-write.ts [seconds=5 (max 10)] [series=20000] [batch=500]
 *
 * Reports samples/s, p50/p99 request latency, non-2xx, and each server's RSS after the run.
 *
 * Memory mode (issue 11's "1,000,000 active series through remote write" figure): with a fourth argument ROUNDS,
 * every series gets exactly ROUNDS samples (the same bodies, in order, on 8 connections), within `seconds` (max
 * 600); Prometheus is stopped before Tessera is loaded. Once a server has used under 2% of a core for 3 s in a
 * row after its last request (at most 60 s), its VmRSS and RssAnon are read and compared:
 *
 *   node --import tsx loadtest/remote-write.ts 300 1000000 500 3
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuTicks, freePort, spawnPinned, statusMb } from './support/run.ts';
import { encodeWriteRequest } from '../src/engine/remote/remote-write-codec.ts';
import type { IngestSample } from '../src/engine/scrape/sample-sink.ts';

const ROUNDS = Number(process.argv[5] ?? 0);
const seconds = Math.min(ROUNDS > 0 ? 600 : 10, Number(process.argv[2] ?? 5));
const SERIES = Number(process.argv[3] ?? 20_000);
const BATCH = Number(process.argv[4] ?? 500);
const HEADERS = { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Write-Version': '0.1.0' };
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-rw-load-'));

/** Enough pre-encoded bodies for `seconds` at an optimistic 2 M samples/s, capped to bound memory. */
async function bodies(): Promise<Buffer[]> {
  const labels = Array.from({ length: SERIES }, (_, i) => [
    { name: '__name__', value: 'rw_load' }, { name: 'series', value: String(i) }, { name: 'shard', value: String(i % 16) },
  ]);
  const perRound = Math.ceil(SERIES / BATCH);
  const count = ROUNDS > 0 ? perRound * ROUNDS : Math.min(Math.ceil((2_000_000 * seconds) / BATCH), perRound * 200, 20_000);
  const out: Buffer[] = [];
  const t0 = Date.now() - 3_600_000;
  for (let k = 0; k < count; k++) {
    const round = Math.floor(k / perRound), from = (k % perRound) * BATCH;
    const samples: IngestSample[] = [];
    for (let i = from; i < Math.min(from + BATCH, SERIES); i++) samples.push({ labels: labels[i], t: t0 + round * 15_000, v: round * 10 + (i % 7) });
    out.push(await encodeWriteRequest(samples));
  }
  return out;
}

interface Row { name: string; samplesPerSec: number; p50: number; p99: number; non2xx: number; rssMb: number }

async function drive(name: string, url: string, pid: number, list: Buffer[]): Promise<Row> {
  let next = 0;
  const r = await autocannon({
    url, duration: seconds, connections: 8, pipelining: 1, method: 'POST',
    headers: HEADERS,
    // Bodies must go out in order (time-major); wrapping around would resend old timestamps.
    requests: [{ setupRequest: (req) => ({ ...req, body: list[Math.min(next++, list.length - 1)] as unknown as string }) }],
  });
  // Requests beyond the pre-encoded bodies repeat the last one (accepted as same-value duplicates): not counted.
  const ok = Math.min(r['2xx'], list.length);
  return { name, samplesPerSec: (ok * BATCH) / seconds, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, rssMb: Math.round(statusMb(pid, 'VmRSS')) };
}

interface MemRow { name: string; accepted: number; headSeries: number; non2xx: number; loadSec: number; settleSec: number; rssMb: number; anonMb: number }

/** Memory mode: every body once, in order, on 8 connections; then waits for the server to go quiet and reads its memory. */
async function fill(name: string, url: string, pid: number, list: Buffer[]): Promise<MemRow> {
  const t0 = Date.now(), deadline = t0 + seconds * 1000, perRound = Math.ceil(SERIES / BATCH);
  let next = 0, accepted = 0, non2xx = 0;
  const connection = async (): Promise<void> => {
    while (next < list.length && Date.now() < deadline) {
      const k = next++;
      const r = await fetch(url, { method: 'POST', headers: HEADERS, body: list[k] });
      await r.arrayBuffer();
      if (r.ok) accepted += Math.min(BATCH, SERIES - (k % perRound) * BATCH); else non2xx++;
    }
  };
  await Promise.all(Array.from({ length: 8 }, connection));
  const t1 = Date.now();
  for (let quiet = 0; quiet < 3 && Date.now() - t1 < 60_000;) {
    const c = cpuTicks(pid);
    await new Promise((r) => setTimeout(r, 1000));
    quiet = cpuTicks(pid) - c <= 2 ? quiet + 1 : 0;
  }
  const settleSec = (Date.now() - t1) / 1000, rssMb = Math.round(statusMb(pid, 'VmRSS')), anonMb = Math.round(statusMb(pid, 'RssAnon'));
  // The head's series count (`/api/v1/status/tsdb`), read after the memory: every series must be there.
  const status = await (await fetch(url.replace('/api/v1/write', '/api/v1/status/tsdb'))).json() as { data: { headStats: { numSeries: number } } };
  return { name, accepted, headSeries: status.data.headStats.numSeries, non2xx, loadSec: (t1 - t0) / 1000, settleSec,
    rssMb, anonMb };
}

function startPrometheus(port: number): Promise<ChildProcess | null> {
  if (!existsSync('/usr/bin/prometheus')) return Promise.resolve(null);
  writeFileSync(join(dir, 'prom.yml'), 'global: {scrape_interval: 1m}\n');
  const child = spawn('taskset', ['-c', '0', '/usr/bin/prometheus', `--config.file=${join(dir, 'prom.yml')}`,
    `--storage.tsdb.path=${join(dir, 'prom')}`, `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver',
    '--log.level=warn'], { stdio: 'ignore' });
  return new Promise((resolve) => {
    const poll = async (): Promise<void> => {
      try { if ((await fetch(`http://127.0.0.1:${port}/-/ready`)).ok) { resolve(child); return; } } catch { /* not yet */ }
      setTimeout(poll, 100);
    };
    void poll();
  });
}

const list = await bodies();
const [promPort, refPort] = await Promise.all([freePort(), freePort()]);
writeFileSync(join(dir, 'empty.yml'), 'global: {}\n'); // no scrape jobs: only the remote-write load lands
const startTessera = (): Promise<ChildProcess> => spawnPinned(0, join(here, '../bin/tessera'), [
  '--path.data', join(dir, 'data'), '--services', 'metrics', '--web.listen-address', `127.0.0.1:${promPort}`,
  '--config.file', join(dir, 'empty.yml'), '--log.level', 'warn', '--web.enable-remote-write-receiver',
]);
const stop = async (child: ChildProcess | null): Promise<void> => {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};
let tessera: ChildProcess | null = null;
let reference: ChildProcess | null = null;
try {
  if (ROUNDS > 0) {
    const rows: MemRow[] = [];
    reference = await startPrometheus(refPort);
    if (reference) rows.push(await fill('prometheus 2.42', `http://127.0.0.1:${refPort}/api/v1/write`, reference.pid!, list));
    await stop(reference); // its memory and background work out of Tessera's way
    tessera = await startTessera();
    rows.push(await fill('tessera', `http://127.0.0.1:${promPort}/api/v1/write`, tessera.pid!, list));
    console.log(`${SERIES} series × ${ROUNDS} samples, ${BATCH} samples/request, ${list.length} bodies, at most ${seconds} s\n`);
    console.log('| server | samples accepted | head series | non-2xx | load s | settle s | VmRSS MB | RssAnon MB | ratio (RSS / anon) |\n|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      console.log(`| ${r.name} | ${r.accepted} | ${r.headSeries} | ${r.non2xx} | ${r.loadSec.toFixed(1)} | ${r.settleSec.toFixed(0)} | ${r.rssMb} | ${r.anonMb} | ${(r.rssMb / rows[0].rssMb).toFixed(2)}× / ${(r.anonMb / rows[0].anonMb).toFixed(2)}× |`);
    }
  } else {
    tessera = await startTessera();
    const rows: Row[] = [];
    reference = await startPrometheus(refPort);
    if (reference) rows.push(await drive('prometheus 2.42', `http://127.0.0.1:${refPort}/api/v1/write`, reference.pid!, list));
    rows.push(await drive('tessera', `http://127.0.0.1:${promPort}/api/v1/write`, tessera.pid!, list));
    console.log(`${SERIES} series, ${BATCH} samples/request, ${seconds} s, ${list.length} distinct bodies\n`);
    console.log('| server | samples/s | ratio | p50 ms | p99 ms | non-2xx | RSS MB |\n|---|---|---|---|---|---|---|');
    for (const r of rows) {
      console.log(`| ${r.name} | ${Math.round(r.samplesPerSec)} | ${(r.samplesPerSec / rows[0].samplesPerSec).toFixed(2)}× | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.rssMb} |`);
    }
  }
} finally {
  await Promise.all([stop(tessera), stop(reference)]);
  rmSync(dir, { recursive: true, force: true });
}
