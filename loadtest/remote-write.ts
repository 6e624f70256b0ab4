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
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, spawnPinned } from './support/run.ts';
import { encodeWriteRequest } from '../src/engine/remote/remote-write-codec.ts';
import type { IngestSample } from '../src/engine/scrape/sample-sink.ts';

const seconds = Math.min(10, Number(process.argv[2] ?? 5));
const SERIES = Number(process.argv[3] ?? 20_000);
const BATCH = Number(process.argv[4] ?? 500);
const here = fileURLToPath(new URL('.', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'tessera-rw-load-'));

/** Enough pre-encoded bodies for `seconds` at an optimistic 2 M samples/s, capped to bound memory. */
async function bodies(): Promise<Buffer[]> {
  const labels = Array.from({ length: SERIES }, (_, i) => [
    { name: '__name__', value: 'rw_load' }, { name: 'series', value: String(i) }, { name: 'shard', value: String(i % 16) },
  ]);
  const perRound = Math.ceil(SERIES / BATCH);
  const count = Math.min(Math.ceil((2_000_000 * seconds) / BATCH), perRound * 200, 20_000);
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
    headers: { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
    // Bodies must go out in order (time-major); wrapping around would resend old timestamps.
    requests: [{ setupRequest: (req) => ({ ...req, body: list[Math.min(next++, list.length - 1)] as unknown as string }) }],
  });
  // Requests beyond the pre-encoded bodies repeat the last one (accepted as same-value duplicates): not counted.
  const ok = Math.min(r['2xx'], list.length);
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  return { name, samplesPerSec: (ok * BATCH) / seconds, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, rssMb: Math.round(rss) };
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
const tessera = await spawnPinned(0, join(here, '../bin/tessera'), [
  '--path.data', join(dir, 'data'), '--services', 'metrics', '--web.listen-address', `127.0.0.1:${promPort}`,
  '--config.file', join(dir, 'empty.yml'), '--log.level', 'warn', '--web.enable-remote-write-receiver',
]);
const rows: Row[] = [];
let reference: ChildProcess | null = null;
try {
  reference = await startPrometheus(refPort);
  if (reference) rows.push(await drive('prometheus 2.42', `http://127.0.0.1:${refPort}/api/v1/write`, reference.pid!, list));
  rows.push(await drive('tessera', `http://127.0.0.1:${promPort}/api/v1/write`, tessera.pid!, list));
  console.log(`${SERIES} series, ${BATCH} samples/request, ${seconds} s, ${list.length} distinct bodies\n`);
  console.log('| server | samples/s | ratio | p50 ms | p99 ms | non-2xx | RSS MB |\n|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${Math.round(r.samplesPerSec)} | ${(r.samplesPerSec / rows[0].samplesPerSec).toFixed(2)}× | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.rssMb} |`);
  }
} finally {
  tessera.kill('SIGTERM');
  reference?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dir, { recursive: true, force: true });
}
