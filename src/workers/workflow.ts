/**
 * The workflow worker thread: drains the request ring in batches, runs each request on the engine, commits
 * the batch's changes in one LMDB transaction. Inbound events (durable in the WAL before they got here)
 * and queries are answered once processed; management calls once committed. In real-clock mode a scheduler sleeps until the earliest due timer
 * (capped at one second, so clock jumps and very long waits are never trusted to one setTimeout).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../engine/errors.ts';
import { unpack } from '../engine/codec/msgpack.ts';
import { SpscRing } from '../engine/queue/spsc-ring.ts';
import { openPartition } from '../engine/workflow/index.ts';
import type { WorkflowReply, WorkflowRequest, WorkflowWorkerInit } from './workflow-protocol.ts';

const BATCH = 1024;
const EARLY_OPS: ReadonlySet<string> = new Set(['event', 'events', 'viewlog']);
const POLL_MS = 1000;
/** Longest an applied inbound event waits for its LMDB commit (it is in the WAL meanwhile). */
const LAZY_COMMIT_MS = 50;

const init = workerData as WorkflowWorkerInit;
const port = parentPort!;
const post = (m: WorkflowReply): void => port.postMessage(m);

/** Background retention step period (real clock; with the test clock, the clock op sweeps). */
const SWEEP_MS = 10_000;

async function main(): Promise<void> {
  const ring = SpscRing.attach(init.ring);
  const { engine, kv } = await openPartition({
    dataDir: init.dataDir, partition: init.partition, partitions: init.partitions, testClock: init.testClock,
    cacheEntries: init.cacheEntries, retentionMs: init.retentionMs,
  });
  if (!init.testClock) {
    setInterval(() => { if (engine.sweep() > 0) void engine.flush().catch(fatal); }, SWEEP_MS).unref();
  }
  let timer: NodeJS.Timeout | null = null;
  let lazy: NodeJS.Timeout | null = null;

  const arm = (): void => {
    if (init.testClock) return;
    if (timer) clearTimeout(timer);
    const at = engine.nextFireAt();
    if (at === Infinity) { timer = null; return; }
    timer = setTimeout(tick, Math.min(Math.max(at - Date.now(), 0), POLL_MS));
  };
  const tick = (): void => {
    timer = null;
    void Promise.resolve(engine.runDue()).then(() => engine.flush()).then(arm, fatal);
  };

  /**
   * Inbound events are already durable in the WAL (replayed until applied), and queries change nothing: those
   * are answered as soon as they are processed. Everything else (management, the test clock) is answered
   * after the LMDB commit that makes it durable.
   */
  const handle = (req: WorkflowRequest, early: WorkflowReply[], late: WorkflowReply[]): void => {
    const done = EARLY_OPS.has(req.op) || engine.isQuery(req.op) ? early : late;
    let out: unknown;
    const walRecord = (req.args as { walRecord?: Uint8Array } | null)?.walRecord;
    const args = walRecord ? unpack(walRecord) : req.args;
    try { out = engine.call(req.op, args); } catch (err) { done.push({ type: 'reply', id: req.id, ok: false, error: toWire(err) }); return; }
    if (!(out instanceof Promise)) { done.push({ type: 'reply', id: req.id, ok: true, value: out }); return; }
    out.then(
      (value) => engine.flush().then(() => post({ type: 'reply', id: req.id, ok: true, value })),
      (err) => engine.flush().then(() => post({ type: 'reply', id: req.id, ok: false, error: toWire(err) })),
    ).then(arm, fatal);
  };

  const loop = async (): Promise<void> => {
    for (;;) {
      let m = ring.tryRead();
      if (!m) {
        if (ring.closed) break;
        await ring.waitReadable();
        continue;
      }
      const early: WorkflowReply[] = [];
      const late: WorkflowReply[] = [];
      let n = 0;
      do { handle(unpack<WorkflowRequest>(m), early, late); } while (++n < BATCH && (m = ring.tryRead()));
      if (early.length) post(early.length === 1 ? early[0] : { type: 'replies', replies: early });
      if (!init.testClock) await engine.runDue();
      if (late.length) {
        // Not awaited: the next batch is processed while this one commits (commits stay in order).
        void engine.flush().then(() => post(late.length === 1 ? late[0] : { type: 'replies', replies: late }), fatal);
      } else if (!lazy) {
        // Only WAL-backed events (and reads) in this batch: commit a little later, together with more of
        // them. LMDB page writes and fsyncs contend with the WAL's fsync on the same file system.
        lazy = setTimeout(() => { lazy = null; void engine.flush().catch(fatal); }, LAZY_COMMIT_MS);
      }
      arm();
    }
    await engine.flush();
    await kv.close();
    process.exit(0);
  };

  // A pending Atomics.waitAsync does not keep a thread alive; the parent port does (the main thread
  // closes the ring, not the port, to stop this worker).
  port.on('message', () => undefined);

  // Start-up backfill: timers that came due while the process was down fire now, in fireAt order.
  void Promise.resolve(engine.runDue()).then(() => engine.flush()).then(() => {
    post({ type: 'ready', appliedLow: engine.st.state.appliedLow, appliedAbove: [...engine.st.above] });
    arm();
    return loop();
  }).catch(fatal);
}

function fatal(err: unknown): void {
  post({ type: 'fatal', error: toWire(err) });
}

main().catch(fatal);
