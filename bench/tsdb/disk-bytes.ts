/**
 * Bytes per sample on disk, Tessera against Prometheus 2.42 on the same samples (issue 11's figure).
 * The PromQL benchmarks' data set (bench/promql/support/dataset.ts: 1,000 counters and 600 histogram buckets over
 * 6 h at 15 s, 10,000 gauges over the last hour at 60 s; seeded, the same bytes each run) is written as one
 * OpenMetrics file and backfilled into 2 h blocks by `promtool tsdb create-blocks-from openmetrics` and by
 * `tessera tsdb create-blocks-from openmetrics`. For each side: the blocks' `index` bytes, `chunks/` bytes and
 * sample count (meta.json `stats.numSamples`), and (index + chunks) / samples. Needs `promtool` on PATH.
 *
 *   node --import tsx bench/tsdb/disk-bytes.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDataset } from '../promql/support/dataset.ts';

interface BlockBytes { blocks: number; samples: number; chunks: number; series: number; indexBytes: number; chunkBytes: number }

/** Sums every block directory (one with a meta.json) under `tsdbDir`. */
function blockBytes(tsdbDir: string): BlockBytes {
  const sum: BlockBytes = { blocks: 0, samples: 0, chunks: 0, series: 0, indexBytes: 0, chunkBytes: 0 };
  for (const name of readdirSync(tsdbDir)) {
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

{
  const dir = mkdtempSync(join(tmpdir(), 'tsdb-disk-bytes-'));
  try {
    const om = join(dir, 'data.om');
    await writeDataset(om, true);
    const pt = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', om, join(dir, 'prom')], { encoding: 'utf8' });
    if (pt.status !== 0) throw new Error(`promtool: ${pt.stderr}`);
    const tt = spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/tessera'), 'tsdb', 'create-blocks-from', 'openmetrics', '--quiet', om, join(dir, 'tessera')], { encoding: 'utf8' });
    if (tt.status !== 0) throw new Error(`tessera import: ${tt.stderr}`);
    console.log(bytesTable([['tessera create-blocks-from', blockBytes(join(dir, 'tessera'))], ['promtool create-blocks-from', blockBytes(join(dir, 'prom'))]]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
