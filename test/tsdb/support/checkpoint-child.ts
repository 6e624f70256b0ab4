/**
 * Child process for the kill -9 test of block cuts and WAL checkpoints: appends batches to a TSDB shard with a
 * 1-minute block range, so nearly every tick cuts a block, truncates the head and checkpoints the WAL while the
 * next appends run. Prints `ack <total>` after each acknowledged batch. Sample k of series s has t = k·1000
 * and v = k. Usage: node --import tsx checkpoint-child.ts DIR SERIES
 */
import { PromWal, tick, Tsdb } from '../../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../../src/engine/tsdb/labels.ts';

const [dir, nSeries] = [process.argv[2], Number(process.argv[3] ?? 10)];
const db = await Tsdb.open({ dir, blockRangeMs: 60_000, openWal: (d) => PromWal.open({ dir: d, compress: true, segmentSizeBytes: 64 * 1024 }) });
const series = Array.from({ length: nSeries }, (_, i) => labelsFromRecord({ __name__: 'ingest', s: String(i) }));
let k = 0, acked = 0;
for (let round = 0; ; round++) {
  const per = 10;
  const sidx = new Uint32Array(per * nSeries), ts = new Float64Array(per * nSeries), vs = new Float64Array(per * nSeries);
  let n = 0;
  for (let j = 0; j < per; j++, k++) for (let s = 0; s < nSeries; s++) { sidx[n] = s; ts[n] = k * 1000; vs[n] = k; n++; }
  const r = await db.append({ series, sidx, ts, vs });
  acked += r.added;
  process.stdout.write(`ack ${acked}\n`);
  if (round % 3 === 0) void tick(db); // concurrently with the next appends, as the worker's timer does
}
