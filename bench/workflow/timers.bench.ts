/**
 * Timer scheduling cost with 1,000,000 pending countdown timers (src/engine/workflow).
 *
 * Set-up: one workflow whose action is a countdown on `livestream_rule_starttime_{ch}`, 1,000 channels and
 * 1,000,000 active runs each waiting on one pending countdown timer (1,000 per channel), inserted into the
 * engine's store the way `createTimer` does (timer record, due/channel/run index keys), committed in chunks
 * to an in-memory backend (`MemoryKv`: the "disk" here is the same heap).
 * Measured:
 *  - memory: V8 heap used by the runs + timers + indexes INCLUDING the MemoryKv copy (with LMDB, only the
 *    bounded caches stay in the heap; see loadtest/workflow-scale.ts for the process figures);
 *  - reschedule: `PUT`-equivalent startTime change of ONE channel (1,000 timers recomputed, history and
 *    step log appended, heap entries pushed), via the engine's `channels.update` op; and the same plus
 *    encoding every changed record (1,000 timers, 1,000 runs, stats) as the commit does;
 *  - earliest due: `nextFireAt()` with the heap full (what the scheduler calls after every batch);
 *  - baseline in the same run: a plain loop pushing 1,000 numbers into an array and sorting it.
 *
 * Run: node --expose-gc --import tsx bench/workflow/timers.bench.ts   (about 20 s, ~1.5 GB heap)
 */
import { Bench } from 'tinybench';
import { WorkflowEngine, MemoryKv } from '../../src/engine/workflow/index.ts';
import type { Run, Timer } from '../../src/engine/workflow/model.ts';
import { countdownPrefix } from '../../src/engine/workflow/store.ts';

const TIMERS = 1_000_000;
const CHANNELS = 1_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const engine = new WorkflowEngine({ kv: new MemoryKv(), realNow: () => 1_000_000 });
for (let c = 0; c < CHANNELS; c++) {
  engine.call('channels.upsert', { body: { businessId: 1, channelId: `ch${c}`, startTime: 100_000_000 } });
}
engine.call('workflow.save', { body: { version: 1, businessId: 1, title: 'bench', enable: true, status: 1, workflowElements: [
  { displayId: 'e1', type: 'Event', incomings: '[]', outgoings: '["p1"]', properties: [{ name: 'event', operation: 'in', value: 'livestream' }] },
  { displayId: 'a1', type: 'Action', incomings: '["p1"]', outgoings: '[]', properties: [], extensions: '{"action":"countdown","countdown":"livestream_rule_starttime_ch0","countdownValue":3600000}' },
] } });
const st = engine.st;
await st.commit(st.takeWrites());
gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < TIMERS; i++) {
  const ch = `ch${i % CHANNELS}`;
  const run: Run = {
    id: st.nextId('run', 'r'), workflowId: 1, contactKey: `b:1:c:c${i}`, businessId: 1, contactId: `c${i}`, entryNo: 1,
    status: 'active', timerIds: [], actionIds: [], triggerEventId: `ev${i}`, startedAt: 1_000_000, endedAt: null, visited: ['e1', 'a1'], open: 1, failed: false,
    steps: [{ runId: '', elementDisplayId: 'e1', at: 1_000_000, outcome: 'entered' }, { runId: '', elementDisplayId: 'a1', at: 1_000_000, outcome: 'scheduled' }],
  };
  const fireAt = 100_000_000 - 3_600_000;
  const t: Timer = {
    id: st.nextId('timer', 't'), runId: run.id, workflowId: 1, elementDisplayId: 'a1', kind: 'countdown', arrivedAt: 1_000_000,
    fireAt, expiresAt: null, businessId: 1, channelId: ch, countdownValue: 3_600_000, state: 'pending',
    history: [{ at: 1_000_000, fireAt, reason: 'scheduled' }],
  };
  st.runs.set(run.id, run);
  st.indexRun(run);
  st.timers.set(t.id, t);
  st.indexNewTimer(t, run);
  if (i % 10_000 === 9_999) await st.commit(st.takeWrites());
}
gc();
const used = process.memoryUsage().heapUsed - before;
console.log(`pending countdown timers: ${TIMERS.toLocaleString('en')} (+ their runs): heap ${(used / 2 ** 20).toFixed(0)} MiB, ${Math.round(used / TIMERS)} B per timer+run`);

let start = 200_000_000;
// A different channel every iteration, so that each timer is rescheduled a few times at most (a channel's
// start time changes rarely; repeating one channel would measure ever-growing histories instead).
let next = 0;
const forgetChanges = (): void => { st.takeWrites(); st.commit([]); };
const channel = (): string => `ch${next++ % CHANNELS}`;
const bench = new Bench({ time: 2000, iterations: 20 });
bench
  .add('reschedule one channel (1,000 of 1,000,000 timers)', () => {
    start += 1000;
    engine.call('channels.update', { businessId: 1, channelId: channel(), body: { startTime: start } });
    forgetChanges(); // what the next task encodes is one reschedule's changes only
  })
  .add('encode the changed records of one reschedule for the LMDB commit', () => {
    start += 1000;
    engine.call('channels.update', { businessId: 1, channelId: channel(), body: { startTime: start } });
    st.takeWrites();
  })
  .add('nextFireAt with 1,000,000 pending', () => { engine.nextFireAt(); })
  .add('baseline: push + sort 1,000 numbers', () => {
    const a: number[] = [];
    for (let i = 0; i < 1000; i++) a.push((i * 7919) % 1000);
    a.sort((x, y) => x - y);
  });
await bench.run();
console.log('| task | mean ms | ops/s |');
console.log('|---|---|---|');
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state !== 'completed') { console.error(`${t.name}: ${r.state}`); continue; }
  console.log(`| ${t.name} | ${r.latency.mean.toFixed(3)} | ${Math.round(1000 / r.latency.mean).toLocaleString('en')} |`);
}
const ch0 = st.ids(st.countdowns, countdownPrefix(1, 'ch0'), Infinity).map((id) => st.timers.get(id)!);
console.log(`ch0 timers still pending: ${ch0.filter((t) => t.state === 'pending').length}, history entries of one: ${ch0[0].history.length}`);
