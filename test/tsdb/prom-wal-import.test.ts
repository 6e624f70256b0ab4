/**
 * Import of a Prometheus data directory's WAL (src/engine/tsdb/prom-wal-import.ts): each shard takes exactly the
 * series the client routes to it, with samples after the directory's blocks and the tombstones; an unchanged
 * WAL is not imported twice, a grown one is; the directory is left as it was. The WAL here is written with
 * Tessera's writer, which lays records out as Prometheus's does (a WAL written by the real Prometheus is
 * replayed in prometheus-dirs.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MATCH_REGEXP, newMatcher } from '../../src/engine/tsdb/api.ts';
import { writeBlock } from '../../src/engine/tsdb/block-writer.ts';
import { importPrometheusWal } from '../../src/engine/tsdb/prom-wal-import.ts';
import { PromWal } from '../../src/engine/tsdb/prom-wal.ts';
import { encodeSamplesRecord, encodeSeriesRecord, encodeTombstonesRecord } from '../../src/engine/tsdb/prom-wal-records.ts';
import { labelsFromRecord, labelsToFlat, shardOfSeries } from '../../src/engine/tsdb/labels.ts';
import type { Tsdb } from '../../src/engine/tsdb/db.ts';
import { openTestDb, tempDir } from './support/db.ts';

const M = 60_000;
const SERIES = Array.from({ length: 12 }, (_, i) => ({ ref: 100 + i, labels: labelsFromRecord({ __name__: 'req', i: String(i) }) }));
const ALL = [newMatcher(MATCH_REGEXP, '__name__', 'req')];

/** Samples of minute k for every series, as Prometheus logs one scrape: value = k + 1000·i. */
function minute(k: number): Uint8Array {
  const refs = SERIES.map((s) => s.ref), ts = SERIES.map(() => k * M), vs = Float64Array.from(SERIES.map((_, i) => k + 1000 * i));
  return encodeSamplesRecord(refs, ts, vs, SERIES.map((_, i) => i), SERIES.length);
}

/** A Prometheus-shaped `wal/`: a checkpoint with the series and minutes [0, 30), segments with minutes [30, 60). */
async function writePromWal(root: string): Promise<void> {
  const wal = await PromWal.open({ dir: path.join(root, 'wal'), compress: true });
  await wal.log([encodeSeriesRecord(SERIES)]);
  for (let k = 0; k < 30; k++) await wal.log([minute(k)]);
  await wal.checkpoint([encodeSeriesRecord(SERIES), ...Array.from({ length: 30 }, (_, k) => minute(k))]);
  for (let k = 30; k < 60; k++) await wal.log([minute(k)]);
  await wal.log([encodeTombstonesRecord([{ ref: 105, mint: 40 * M, maxt: 44 * M }]), Uint8Array.of(4, 1, 2, 3)]);
  await wal.close();
}

function snapshotDir(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) { const p = path.join(e.parentPath, e.name); out.push(`${path.relative(dir, p)}:${statSync(p).size}:${readFileSync(p).toString('base64').slice(0, 40)}`); }
  }
  return out.sort();
}

test('each shard imports the series routed to it, samples after the blocks, tombstones; the directory is untouched', async () => {
  const { dir: root, cleanup } = tempDir('prom-import-');
  try {
    await writePromWal(root);
    // A block of the Prometheus directory covering [0, 10 min): WAL samples before its end are in it already.
    await writeBlock(root, [{ labels: SERIES[0].labels, t: Float64Array.of(0), v: Float64Array.of(0) }], 0, 10 * M);
    const before = snapshotDir(path.join(root, 'wal'));
    const shards: Tsdb[] = [];
    for (let w = 0; w < 3; w++) shards.push((await openTestDb(path.join(root, `shard-${w}`))).db);
    const summaries = [];
    for (let w = 0; w < 3; w++) summaries.push(await importPrometheusWal(shards[w], root, w, 3, () => {}));
    assert.deepEqual(snapshotDir(path.join(root, 'wal')), before, 'the Prometheus WAL is only read');
    let seen = 0;
    for (let w = 0; w < 3; w++) {
      for (const s of shards[w].select(ALL, -Infinity, Infinity)) {
        assert.equal(shardOfSeries(labelsToFlat(s.labels), 3), w, 'routed as the client routes');
        const i = Number(s.labels.find((l) => l.name === 'i')!.value);
        const want: number[] = [];
        for (let k = 10; k < 60; k++) if (i !== 5 || k < 40 || k > 44) want.push(k * M);
        assert.deepEqual([...s.t], want, `series ${i}`);
        assert.deepEqual([...s.v], want.map((t) => t / M + 1000 * i));
        seen++;
      }
    }
    assert.equal(seen, SERIES.length);
    const total = summaries.reduce((a, s) => a + s!.samples, 0);
    assert.equal(total, SERIES.length * 50);
    assert.equal(summaries.reduce((a, s) => a + s!.outOfBounds, 0), SERIES.length * 10, 'samples inside the block are skipped');
    assert.equal(summaries.reduce((a, s) => a + s!.skippedRecords, 0), 3, 'the exemplar record, seen by each shard');
    // Unchanged WAL: nothing to do. A grown one (Prometheus ran again) is imported again, duplicates skipped.
    assert.equal(await importPrometheusWal(shards[0], root, 0, 3, () => {}), null);
    const wal = await PromWal.open({ dir: path.join(root, 'wal') });
    await wal.log([minute(60)]);
    await wal.close();
    const again = await importPrometheusWal(shards[0], root, 0, 3, () => {});
    assert.ok(again);
    assert.equal(again.samples, SERIES.filter((s) => shardOfSeries(labelsToFlat(s.labels), 3) === 0).length, 'only minute 60 is new');
    for (const d of shards) await d.close();
  } finally { cleanup(); }
});
