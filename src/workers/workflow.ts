/**
 * The workflow worker thread: drains the request ring in batches, runs each request on the engine, commits
 * the batch's changes in one LMDB transaction, and only then replies (so a reply means "durable in
 * LMDB" as well as in the WAL). In real-clock mode a scheduler sleeps until the earliest due timer
 * (capped at one second, so clock jumps and very long waits are never trusted to one setTimeout).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../engine/errors.ts';
import { unpack } from '../engine/codec/msgpack.ts';
import { SpscRing } from '../engine/codec/spsc-ring.ts';
import { LmdbKv, WorkflowEngine } from '../engine/workflow/index.ts';
import type { WorkflowReply, WorkflowRequest, WorkflowWorkerInit } from './workflow-protocol.ts';

const BATCH = 1024;
const POLL_MS = 1000;

const init = workerData as WorkflowWorkerInit;
const port = parentPort!;
const post = (m: WorkflowReply): void => port.postMessage(m);

function main(): void {
  const ring = SpscRing.attach(init.ring);
  const kv = LmdbKv.open(init.storePath);
  const engine = new WorkflowEngine({ kv, testClock: init.testClock });
  let timer: NodeJS.Timeout | null = null;

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

  const handle = (req: WorkflowRequest, done: WorkflowReply[]): void => {
    let out: unknown;
    try { out = engine.call(req.op, req.args); } catch (err) { done.push({ type: 'reply', id: req.id, ok: false, error: toWire(err) }); return; }
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
      const done: WorkflowReply[] = [];
      let n = 0;
      do { handle(unpack<WorkflowRequest>(m), done); } while (++n < BATCH && (m = ring.tryRead()));
      if (!init.testClock) await engine.runDue();
      await engine.flush();
      for (const r of done) post(r);
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
    post({ type: 'ready', appliedLow: engine.st.meta.appliedLow, appliedAbove: [...engine.st.meta.appliedAbove] });
    arm();
    return loop();
  }).catch(fatal);
}

function fatal(err: unknown): void {
  post({ type: 'fatal', error: toWire(err) });
}

try { main(); } catch (err) { fatal(err); }
