/**
 * Child process for the kill -9 test of the shared block directory: two TSDB shards of a sharded TSDB at DIR
 * (real WALs, 1-minute block range) take the series routed to them, while a maintenance loop cuts both heads
 * into parts, merges the parts into the shared blocks, compacts them and reloads both shards, as the client's
 * tick does. Prints `ack <total>` after each acknowledged batch. Sample k of series s has t = k·1000 and v = k.
 * Usage: node --import tsx shared-child.ts DIR SERIES
 */
import path from 'node:path';
import { maintainShared, PromWal, SharedBlocks, tick, Tsdb } from '../../../src/engine/tsdb/index.ts';
import { labelsFromRecord, labelsToFlat, shardOfSeries } from '../../../src/engine/tsdb/labels.ts';

const [dir, nSeries] = [process.argv[2], Number(process.argv[3] ?? 10)];
const R = 60_000;
const dbs: Tsdb[] = [];
for (let i = 0; i < 2; i++) {
  dbs.push(await Tsdb.open({
    dir: path.join(dir, `shard-${i}`), blockRangeMs: R, maxBlockDurationMs: 9 * R,
    openWal: (d) => PromWal.open({ dir: d, compress: true, segmentSizeBytes: 64 * 1024 }),
    shared: { dir, shard: i, shards: 2, serve: true, writer: i === 0 },
  }));
}
const shared = new SharedBlocks({ dir, blockRangeMs: R, maxBlockDurationMs: 9 * R, now: Date.now });
const series = Array.from({ length: nSeries }, (_, i) => labelsFromRecord({ __name__: 'ingest', s: String(i) }));
const mine = [0, 1].map((w) => series.filter((ls) => shardOfSeries(labelsToFlat(ls), 2) === w));
let maintaining = false;
async function maintain(): Promise<void> {
  for (const d of dbs) await tick(d);
  await maintainShared(shared);
  for (const d of dbs) await d.reloadBlocks();
}
let k = 0, acked = 0;
for (let round = 0; ; round++) {
  const per = 2;
  const appends = [0, 1].map((w) => {
    const n = per * mine[w].length;
    const sidx = new Uint32Array(n), ts = new Float64Array(n), vs = new Float64Array(n);
    let j = 0;
    for (let q = 0; q < per; q++) for (let s = 0; s < mine[w].length; s++) { sidx[j] = s; ts[j] = (k + q) * 1000; vs[j] = k + q; j++; }
    return dbs[w].append({ series: mine[w], sidx, ts, vs });
  });
  k += per;
  for (const r of await Promise.all(appends)) acked += r.added;
  process.stdout.write(`ack ${acked}\n`);
  // Paced (2 s of data per 10 ms) so that cutting keeps up: a tick cuts until the head spans at most 1.5
  // block ranges, which appends faster than the cuts would postpone for ever.
  await new Promise((r) => setTimeout(r, 10));
  if (round % 3 === 0 && !maintaining) {
    maintaining = true;
    void maintain().finally(() => { maintaining = false; }); // concurrently with the next appends, as the timer does
  }
}
