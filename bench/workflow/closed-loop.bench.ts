/**
 * The engine thread's group commit under a closed loop, in-process (no HTTP, no ring): `clients` senders
 * each submit one event for a new contact and send the next once it is acknowledged, as the 64 keep-alive
 * connections of `loadtest/workflow-scale.ts events` do. A turn of the loop takes every event submitted
 * since the last turn, processes them, and acknowledges them once `engine.flush(inFlight)` resolves (what
 * the worker does with EVENT_COMMITS_IN_FLIGHT). Prints events/s, ack latency p50/p99, the commit batch
 * sizes, commit durations and commits in flight, the process's CPU per event, and this thread's own (the engine
 * thread's: `support/thread-cost.ts`) with the bytes its isolate allocated per event.
 *
 * `rttMs`: a sender's next event arrives a random 0..rttMs after its acknowledgement (the HTTP round trip and
 * the client), which spreads arrivals over a commit as in the load test.
 *
 * Run: node --import tsx bench/workflow/closed-loop.bench.ts [events=30000] [clients=64] [inFlight=1] [rttMs=2]
 */
import { rmSync } from 'node:fs';
import { openLaunchPartition } from './launch-partition.ts';
import { startThreadCost } from '../support/thread-cost.ts';

const [events = 30_000, clients = 64, inFlight = 1, rttMs = 2] = process.argv.slice(2).map(Number);
const { engine, kv, dir } = await openLaunchPartition();

// Commit batch sizes: events taken by each commit, and its duration until durable.
let sinceCommit = 0;
const batchSizes: number[] = [];
const commitMs: number[] = [];
const inFlightAtStart: number[] = [];
let commitsOpen = 0;
const takeWrites = engine.st.takeWrites.bind(engine.st);
const commit = engine.st.commit.bind(engine.st);
engine.st.takeWrites = () => { batchSizes.push(sinceCommit); sinceCommit = 0; return takeWrites(); };
engine.st.commit = (w) => {
  const t = performance.now();
  inFlightAtStart.push(commitsOpen++);
  return commit(w).finally(() => { commitsOpen--; commitMs.push(performance.now() - t); });
};

let next = 0;
let acked = 0;
const pending: { contact: number; at: number }[] = [];
const latency: number[] = [];
let turnQueued = false;
let finish!: () => void;
const finished = new Promise<void>((r) => { finish = r; });
const submit = (): void => {
  if (next >= events) return;
  pending.push({ contact: next++, at: performance.now() });
  if (!turnQueued) { turnQueued = true; setImmediate(turn); }
};
function turn(): void {
  turnQueued = false;
  const batch = pending.splice(0);
  for (const p of batch) {
    const r = engine.call('event', { body: { event: 'submit', channel_id: 'ch1', business_id: 170, contact_id: `c${p.contact}` } });
    if (r instanceof Promise) throw new Error('unexpected asynchronous event');
  }
  sinceCommit += batch.length;
  void engine.flush(inFlight).then(() => {
    const now = performance.now();
    // Each sender's next event arrives after its own round trip through HTTP (spread over 0..rttMs).
    for (const p of batch) { latency.push(now - p.at); acked++; setTimeout(submit, Math.random() * rttMs); }
    if (acked === events) finish();
  });
}

const cpu0 = process.cpuUsage();
const stopThreadCost = startThreadCost();
const t0 = performance.now();
for (let i = 0; i < clients; i++) submit();
await finished;
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const own = stopThreadCost();
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const s = engine.call('workflow.statistics', { id: 1 }) as { entered: number };
console.log(`events ${events}, clients ${clients}, commits in flight ≤ ${inFlight}: entered ${s.entered}; ${Math.round(events / wallMs * 1000)} events/s, ack p50 ${q(latency, 0.5).toFixed(1)} ms, p99 ${q(latency, 0.99).toFixed(1)} ms`);
console.log(`commits ${batchSizes.length}: events per commit mean ${mean(batchSizes).toFixed(1)}, p50 ${q(batchSizes, 0.5)}, p90 ${q(batchSizes, 0.9)}; start→durable p50 ${q(commitMs, 0.5).toFixed(2)} ms, p90 ${q(commitMs, 0.9).toFixed(2)} ms; already in flight at start: mean ${mean(inFlightAtStart).toFixed(2)}`);
console.log(`process CPU per event ${((cpu.user + cpu.system) / events).toFixed(1)} µs; this thread's own ${(own.cpuUs / events).toFixed(1)} µs, its isolate allocated ${Math.round(own.allocatedBytes / events)} B per event (${own.gcs} GCs)`);
const m = kv.commitMetrics();
const per = (x: number) => (x / m.txns).toFixed(2);
console.log(`LMDB per transaction: ${per(m.txnMs)} ms writing, ${per(m.syncMs)} ms syncing, ${(m.pagesWritten / m.txns).toFixed(1)} pages (${m.txns} transactions)`);
await kv.close();
rmSync(dir, { recursive: true, force: true });
