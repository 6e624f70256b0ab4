/**
 * Bytes per sample on disk, Tessera against Prometheus 2.42 on the same samples (issue 11's figure).
 * The PromQL benchmarks' data set (bench/promql/support/dataset.ts: 1,000 counters and 600 histogram buckets over
 * 6 h at 15 s, 10,000 gauges over the last hour at 60 s; seeded, the same bytes each run) is written as one
 * OpenMetrics file and backfilled into 2 h blocks by `promtool tsdb create-blocks-from openmetrics` and by
 * `tessera tsdb create-blocks-from openmetrics`. For each side: the blocks' `index` bytes, `chunks/` bytes and
 * sample count (meta.json `stats.numSamples`), and (index + chunks) / samples. Needs `promtool` on PATH.
 *
 *   node --import tsx bench/tsdb/disk-bytes.ts
 *
 * `ingest`: the same comparison through ingestion, head → block. 1,600 counters (1,000 with random increments
 * of 0–9, 600 of 0–4; seeded) over 4 h at 15 s from a 2 h-aligned start, remote-written time-major in requests
 * of 500 samples to Prometheus 2.42 and then to Tessera (each with an empty TSDB, remote-write receiver on);
 * each cuts its head's first 2 h into a block once the head spans 3 h (at its next maintenance tick, within
 * about a minute); the first block that appears (at most 180 s) is measured. Needs `prometheus` on PATH.
 *
 *   node --import tsx bench/tsdb/disk-bytes.ts ingest
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDataset } from '../promql/support/dataset.ts';
import { mulberry32 } from '../support/mulberry32.ts';
import { freePort } from '../../loadtest/support/run.ts';
import { encodeWriteRequest } from '../../src/engine/remote/remote-write-codec.ts';
import type { IngestSample } from '../../src/engine/scrape/sample-sink.ts';

interface BlockBytes { blocks: number; samples: number; chunks: number; series: number; indexBytes: number; chunkBytes: number }

/** Sums every block directory (a ULID name; not a block still being written) under `tsdbDir`. */
function blockBytes(tsdbDir: string): BlockBytes {
  const sum: BlockBytes = { blocks: 0, samples: 0, chunks: 0, series: 0, indexBytes: 0, chunkBytes: 0 };
  for (const name of existsSync(tsdbDir) ? readdirSync(tsdbDir) : []) {
    if (!/^[0-9A-Z]{26}$/.test(name)) continue;
    const dir = join(tsdbDir, name);
    let meta: { stats: { numSamples: number; numChunks: number; numSeries: number } };
    try { meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')); } catch { continue; }
    sum.blocks++;
    sum.samples += meta.stats.numSamples;
    sum.chunks += meta.stats.numChunks;
    sum.series += meta.stats.numSeries;
    sum.indexBytes += statSync(join(dir, 'index')).size;
    for (const seg of readdirSync(join(dir, 'chunks'))) sum.chunkBytes += statSync(join(dir, 'chunks', seg)).size;
  }
  return sum;
}

/** Markdown rows comparing two sides' block bytes, the second as the ratio's base. */
function bytesTable(rows: [string, BlockBytes][]): string {
  const base = rows[rows.length - 1][1];
  const perSample = (b: BlockBytes): number => (b.indexBytes + b.chunkBytes) / b.samples;
  const out = ['| blocks of | blocks | series (sum over blocks) | samples | chunks | index bytes | chunks/ bytes | bytes per sample | chunks/ bytes per sample | ratio |',
    '|---|---|---|---|---|---|---|---|---|---|'];
  for (const [name, b] of rows) {
    out.push(`| ${name} | ${b.blocks} | ${b.series} | ${b.samples} | ${b.chunks} | ${b.indexBytes} | ${b.chunkBytes} | ${perSample(b).toFixed(3)} | ${(b.chunkBytes / b.samples).toFixed(3)} | ${(perSample(b) / perSample(base)).toFixed(3)}× |`);
  }
  return out.join('\n');
}

/** Remote-write bodies: 4 h at 15 s of SERIES counters, time-major, 500 samples a request. */
async function ingestBodies(startMs: number): Promise<Buffer[]> {
  const SERIES = 1600, rnd = mulberry32(7);
  const labels = Array.from({ length: SERIES }, (_, i) => i < 1000
    ? [{ name: '__name__', value: 'bench_http_requests_total' }, { name: 'handler', value: `/h${i % 20}` }, { name: 'instance', value: `i${i}` }, { name: 'job', value: `job${i % 10}` }]
    : [{ name: '__name__', value: 'bench_latency_seconds_bucket' }, { name: 'instance', value: `i${i}` }, { name: 'le', value: String(i % 12) }]);
  const counters = new Float64Array(SERIES), out: Buffer[] = [];
  let batch: IngestSample[] = [];
  for (let t = startMs; t < startMs + 4 * 3_600_000; t += 15_000) {
    for (let i = 0; i < SERIES; i++) {
      batch.push({ labels: labels[i], t, v: (counters[i] += Math.floor(rnd() * (i < 1000 ? 10 : 5))) });
      if (batch.length === 500) { out.push(await encodeWriteRequest(batch)); batch = []; }
    }
  }
  if (batch.length) out.push(await encodeWriteRequest(batch));
  return out;
}

/** Sends every body in order, waits for the first block under `tsdbDir`, and returns its figures. */
async function ingestToBlock(name: string, child: ChildProcess, port: number, tsdbDir: string, list: Buffer[]): Promise<[string, BlockBytes]> {
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      try { if ((await fetch(`${base}/-/ready`)).ok) break; } catch { /* starting */ }
      if (i > 600) throw new Error(`${name} not ready`);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const body of list) {
      const r = await fetch(`${base}/api/v1/write`, { method: 'POST', body, headers: { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf' } });
      if (!r.ok) throw new Error(`${name}: remote write answered ${r.status} ${await r.text()}`);
    }
    const t0 = Date.now();
    while (blockBytes(tsdbDir).blocks === 0) {
      if (Date.now() - t0 > 180_000) throw new Error(`${name}: no block after 180 s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    return [`${name} head → block`, blockBytes(tsdbDir)];
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

async function ingestCase(dir: string): Promise<void> {
  const startMs = Math.floor((Date.now() - 8 * 3_600_000) / 7_200_000) * 7_200_000;
  const list = await ingestBodies(startMs);
  writeFileSync(join(dir, 'empty.yml'), 'global: {}\n');
  let port = await freePort();
  const prom = spawn('prometheus', [`--config.file=${join(dir, 'empty.yml')}`, `--storage.tsdb.path=${join(dir, 'prom')}`, `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver', '--log.level=error'], { stdio: 'ignore' });
  const promRow = await ingestToBlock('prometheus 2.42', prom, port, join(dir, 'prom'), list);
  port = await freePort();
  const tessera = spawn(process.execPath, [join(import.meta.dirname, '../../bin/tessera'), '--path.data', join(dir, 'data'), '--services', 'metrics',
    '--web.listen-address', `127.0.0.1:${port}`, '--config.file', join(dir, 'empty.yml'), '--web.enable-remote-write-receiver', '--log.level', 'error'], { stdio: 'ignore' });
  const tesseraRow = await ingestToBlock('tessera', tessera, port, join(dir, 'data', 'tsdb'), list);
  console.log(bytesTable([tesseraRow, promRow]));
}

{
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-disk-bytes-'));
  try {
    if (process.argv[2] === 'ingest') {
      await ingestCase(dir);
    } else {
      const om = join(dir, 'data.om');
      await writeDataset(om, true);
      const pt = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', om, join(dir, 'prom')], { encoding: 'utf8' });
      if (pt.status !== 0) throw new Error(`promtool: ${pt.stderr}`);
      const tt = spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/tessera'), 'tsdb', 'create-blocks-from', 'openmetrics', '--quiet', om, join(dir, 'tessera')], { encoding: 'utf8' });
      if (tt.status !== 0) throw new Error(`tessera import: ${tt.stderr}`);
      console.log(bytesTable([['tessera create-blocks-from', blockBytes(join(dir, 'tessera'))], ['promtool create-blocks-from', blockBytes(join(dir, 'prom'))]]));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
