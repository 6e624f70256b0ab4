/**
 * In-process cost of one durable workflow event on one partition (src/engine/workflow over LMDB), without
 * HTTP or threads: what a workflow engine thread spends per event in `loadtest/workflow-scale.ts events`.
 *
 * Set-up: a fresh partition in a temp directory, the issue-15 workflow (Event livestream-submit-ch1 →
 * countdown 1 h before ch1's start 30 days out → tag) and its channel. Measured: `events` distinct contacts
 * each send one submit, `batch` events per engine batch, then `flush()` as the worker does (commits
 * overlap, up to the engine's limit); CPU time of this thread per event (user+system, which includes
 * lmdb-js's native work on this thread but not its write thread), wall time, and records (and their value
 * bytes) written per event.
 *
 * Run: node --import tsx bench/workflow/ingest-lmdb.bench.ts [events=50000] [batch=32]
 */
import { rmSync } from 'node:fs';
import { openLaunchPartition } from './launch-partition.ts';

const [events = 50_000, batch = 32] = process.argv.slice(2).map(Number);
const { engine, kv, dir } = await openLaunchPartition();

let writes = 0;
let bytes = 0;
const takeWrites = engine.st.takeWrites.bind(engine.st);
engine.st.takeWrites = () => {
  const w = takeWrites();
  writes += w.length;
  for (let i = 0; i < w.length; i++) bytes += w[i].value?.length ?? 0;
  return w;
};

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const inflight: Promise<void>[] = [];
let commits = 0;
for (let i = 0; i < events; i += batch) {
  for (let j = i; j < Math.min(i + batch, events); j++) {
    const r = engine.call('event', { body: { event: 'submit', channel_id: 'ch1', business_id: 170, contact_id: `c${j}` } });
    if (r instanceof Promise) await r;
  }
  inflight.push(engine.flush());
  commits++;
  // The worker keeps going while commits are in flight; bound them as a loaded worker would see.
  if (inflight.length >= 4) await inflight.shift();
}
await Promise.all(inflight);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const s = engine.call('workflow.statistics', { id: 1 }) as { entered: number };
console.log(`events ${events}, batch ${batch}: entered ${s.entered}; ${commits} batches, ${(writes / events).toFixed(1)} records written per event, ${Math.round(bytes / events)} value bytes`);
console.log(`cpu per event ${((cpu.user + cpu.system) / events).toFixed(1)} µs (user ${(cpu.user / events).toFixed(1)}, system ${(cpu.system / events).toFixed(1)}); wall ${(wallMs * 1000 / events).toFixed(1)} µs per event, ${Math.round(events / wallMs * 1000)} events/s`);
await kv.close();
rmSync(dir, { recursive: true, force: true });
