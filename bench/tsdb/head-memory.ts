/**
 * Head memory per series, in process: SERIES series of three labels receive SAMPLES samples each at a 6 s
 * interval (time-major, as scrapes arrive), so every series closes SAMPLES/120 chunks; then a full GC and the
 * process's RssAnon (/proc/self/status) and V8 heap. Run against two checkouts to compare (the head's
 * constructor takes the chunk-file argument where it exists and ignores it where it does not).
 *
 *   node --expose-gc --import tsx bench/tsdb/head-memory.ts [series=20000] [samples=1440]
 *
 * Not a tinybench file (it measures memory, not time), so `npm run bench` does not run it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as headModule from '../../src/engine/tsdb/head.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';

const SERIES = Number(process.argv[2] ?? 20_000);
const SAMPLES = Number(process.argv[3] ?? 1440);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function rssAnonMb(): number {
  const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(m![1]) / 1024;
}

const dir = mkdtempSync(path.join(tmpdir(), 'head-memory-'));
gc();
const before = rssAnonMb();
let files: unknown = null;
try {
  const { HeadChunkFiles } = await import('../../src/engine/tsdb/head-chunks.ts');
  files = new HeadChunkFiles(path.join(dir, 'chunks_head'));
} catch { /* a checkout without head chunk files */ }
const HeadCtor = headModule.Head as unknown as new (range: number, files: unknown) => headModule.Head;
const head = new HeadCtor(7_200_000, files);
const series = [];
for (let i = 0; i < SERIES; i++) {
  series.push(head.getOrCreate(labelsFromRecord({ __name__: 'bench_requests_total', handler: `/api/v${i % 50}`, instance: `10.0.${i >> 8}.${i & 255}:9100` })).series);
}
const t0 = 1_700_000_000_000;
const started = performance.now();
for (let k = 0; k < SAMPLES; k++) {
  const t = t0 + k * 6_000;
  for (let i = 0; i < SERIES; i++) head.append(series[i], t, k * 3 + (i % 7));
}
const ms = performance.now() - started;
gc(); gc();
const after = rssAnonMb();
const heap = process.memoryUsage();
console.log(JSON.stringify({
  series: SERIES, samplesPerSeries: SAMPLES, chunks: head.numChunks(), appendNsPerSample: Math.round((ms * 1e6) / (SERIES * SAMPLES)),
  rssAnonMb: Math.round(after), rssAnonDeltaMb: Math.round(after - before), bytesPerSeries: Math.round(((after - before) * 1024 * 1024) / SERIES),
  heapUsedMb: Math.round(heap.heapUsed / 1048576), heapTotalMb: Math.round(heap.heapTotal / 1048576), externalMb: Math.round(heap.external / 1048576), arrayBuffersMb: Math.round(heap.arrayBuffers / 1048576),
}));
rmSync(dir, { recursive: true, force: true });
