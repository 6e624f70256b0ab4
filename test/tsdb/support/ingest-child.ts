/**
 * Child process for the kill -9 test: appends batches to a TSDB shard (real WAL, fsync per batch) forever and
 * prints `ack <total>` after each batch is acknowledged. Sample k of series s has t = k·1000 and v = k.
 * Usage: node --import tsx ingest-child.ts DIR SERIES
 */
import { PromWal, Tsdb } from '../../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../../src/engine/tsdb/labels.ts';

const [dir, nSeries] = [process.argv[2], Number(process.argv[3] ?? 10)];
const db = await Tsdb.open({ dir, openWal: (d) => PromWal.open({ dir: d, compress: true }) });
const series = Array.from({ length: nSeries }, (_, i) => labelsFromRecord({ __name__: 'ingest', s: String(i) }));
let k = 0, acked = 0;
for (;;) {
  const per = 20;
  const sidx = new Uint32Array(per * nSeries), ts = new Float64Array(per * nSeries), vs = new Float64Array(per * nSeries);
  let n = 0;
  for (let j = 0; j < per; j++, k++) for (let s = 0; s < nSeries; s++) { sidx[n] = s; ts[n] = k * 1000; vs[n] = k; n++; }
  const r = await db.append({ series, sidx, ts, vs });
  acked += r.added;
  process.stdout.write(`ack ${acked}\n`);
}
