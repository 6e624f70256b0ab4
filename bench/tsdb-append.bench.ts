/**
 * Head ingestion through Tsdb.append (src/engine/tsdb/db.ts), the path every scraped or remote-written sample
 * takes inside a shard worker.
 *
 * Data: S series (`bench_metric{instance="i-<k % 100>", series="<k>"}`), one sample each per scrape round of
 * 15 s, counter values with irregular increments (seeded). One iteration appends one round (a batch of S
 * samples) for all series. Measured for the stable-series steady state (series already exist):
 *  - head only (in-memory WAL stand-in: no encoding to disk, no fsync): samples/s;
 *  - with the real WAL (snappy, fsync per batch, on os.tmpdir()): samples/s;
 *  - series creation: first round of new series, series/s;
 *  - WAL bytes written per sample (series records included);
 *  - heap bytes per series after the rounds (process.memoryUsage().heapUsed delta / S; roaring bitmaps are
 *    native and not counted there, so rss is shown too).
 * Run: node --expose-gc --import tsx bench/tsdb-append.bench.ts [S=100000]   (about 20 s)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tsdb } from '../src/engine/tsdb/index.ts';
import type { AppendBatch } from '../src/engine/tsdb/index.ts';
import { PromWal } from '../src/engine/tsdb/index.ts';
import { MemWalStore } from '../test/tsdb/support/mem-wal.ts';

const S = Number(process.argv[2] ?? 100_000);
const ROUNDS = 20;
const cpuMs = (since: NodeJS.CpuUsage): number => { const d = process.cpuUsage(since); return (d.user + d.system) / 1000; };
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function batchFor(round: number, flat: string[][]): AppendBatch {
  const sidx = new Uint32Array(S), ts = new Float64Array(S), vs = new Float64Array(S);
  for (let k = 0; k < S; k++) { sidx[k] = k; ts[k] = 1_704_067_200_000 + round * 15_000; vs[k] = round * 10 + ((k * 7919 + round) % 13); }
  return { flat, sidx, ts, vs }; // the flat label form, as the worker task receives it
}

async function run(name: string, open: (dir: string) => Promise<Tsdb>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tsdb-append-bench-'));
  const series = Array.from({ length: S }, (_, k) => ['__name__', 'bench_metric', 'instance', `i-${k % 100}`, 'series', String(k)]);
  const batches = Array.from({ length: ROUNDS }, (_, r) => batchFor(r, series));
  gc();
  const heap0 = process.memoryUsage().heapUsed, rss0 = process.memoryUsage().rss;
  const db = await open(dir);
  // CPU time (user+system of this process) as well as wall time: on a shared, overloaded machine the wall
  // clock mostly measures the scheduler.
  let c = process.cpuUsage();
  await db.append(batches[0]);
  const createMs = cpuMs(c);
  c = process.cpuUsage();
  const t = performance.now();
  for (let r = 1; r < ROUNDS; r++) await db.append(batches[r]);
  const wallMs = performance.now() - t;
  const ms = cpuMs(c);
  gc();
  const mem = process.memoryUsage();
  console.log(`${name}: create ${Math.round(S / createMs * 1000).toLocaleString()} series/CPU-s; steady ${(S * (ROUNDS - 1) / ms * 1000 / 1e6).toFixed(2)} M samples/CPU-s ` +
    `(${(S * (ROUNDS - 1) / wallMs * 1000 / 1e6).toFixed(2)} M/s wall); ` +
    `heap ${Math.round((mem.heapUsed - heap0) / S)} B/series, rss +${Math.round((mem.rss - rss0) / S)} B/series; ` +
    `WAL ${(db.wal.stats().bytesWritten / (S * ROUNDS)).toFixed(2)} B/sample`);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

await run('head only', (dir) => Tsdb.open({ dir, openWal: new MemWalStore().open }));
if (!process.argv.includes('--head-only')) await run('real WAL  ', (dir) => Tsdb.open({ dir, openWal: (d) => PromWal.open({ dir: d, compress: true }) }));
