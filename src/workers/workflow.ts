/**
 * A workflow engine thread (one partition): drains its request ring in batches, runs each request on the
 * engine, commits the batch's changes as one commit (while the next batch is processed; durable in the
 * partition's commit log, LMDB written behind it: workflow/lmdb-kv.ts), and answers every request that
 * changed state once that commit is durable — an acknowledged event survives kill -9. Reads are answered at once. In real-clock mode a scheduler sleeps until the earliest due timer
 * (capped at one second, so clock jumps and very long waits are never trusted to one setTimeout), and a
 * retention step runs every few seconds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toWire } from '../engine/errors.ts';
import { packMessage, unpack } from '../engine/codec/msgpack.ts';
import { SpscRing } from '../engine/queue/spsc-ring.ts';
import { EVENT_COMMITS_IN_FLIGHT, openPartition, type WorkflowEngine } from '../engine/workflow/index.ts';
import { startIdleGc } from '../runtime/idle-gc.ts';
import { lmdbForegroundReadMs } from '../runtime/lmdb-test-hook.ts';
import type { WorkflowReply, WorkflowRequest, WorkflowRequestBatch, WorkflowWorkerInit } from './workflow-protocol.ts';

const BATCH = 1024;
const POLL_MS = 1000;
/** Background retention step period (real clock; with the test clock, the clock op sweeps). */
const SWEEP_MS = 10_000;

const init = workerData as WorkflowWorkerInit;
const port = parentPort!;
const post = (m: WorkflowReply): void => port.postMessage(m);
/**
 * Several replies go as one msgpack message whose buffer is transferred: the HTTP thread decodes it in less
 * than half the time structured cloning takes to rebuild the same objects (on the thread that has the
 * least CPU to spare under load). Records mode (`packMessage`): a batch's replies share a few shapes, each
 * written once. Copied out of the encoder's shared slab so that only these bytes move.
 */
const postAll = (list: WorkflowReply[]): void => {
  if (list.length === 0) return;
  if (list.length === 1) { post(list[0]); return; }
  const bytes = new Uint8Array(packMessage(list));
  port.postMessage({ type: 'packed', bytes } satisfies WorkflowReply, [bytes.buffer]);
};

async function main(): Promise<void> {
  const ring = SpscRing.attach(init.ring);
  const { engine, kv } = openedKv = await openPartition({
    dataDir: init.dataDir, partition: init.partition, partitions: init.partitions, testClock: init.testClock,
    cacheEntries: init.cacheEntries, retentionMs: init.retentionMs, allowPrivateWebhookTargets: init.allowPrivateWebhookTargets,
    lmdbForegroundReadMs: lmdbForegroundReadMs(),
  });
  // Damage LMDB's background consistency read finds fails the partition (fatal), which then serves nothing.
  kv.store.onDamage(fatal);
  const sched = new Scheduler(engine);
  // After a burst (a bulk load, a million timers fired) the garbage it left is collected once the thread is quiet.
  const idleGc = startIdleGc();
  if (!init.testClock) setInterval(() => { if (engine.sweep() > 0) void engine.flush().catch(fatal); }, SWEEP_MS).unref();

  /** Reads go out with the batch; everything else after the commit that covers it. */
  const handle = (req: WorkflowRequest, early: WorkflowReply[], late: WorkflowReply[]): void => {
    const done = engine.isQuery(req.op) ? early : late;
    let out: unknown;
    try { out = engine.call(req.op, req.args); } catch (err) { done.push({ type: 'reply', id: req.id, ok: false, error: toWire(err) }); return; }
    if (!(out instanceof Promise)) { done.push({ type: 'reply', id: req.id, ok: true, value: out }); return; }
    // Asynchronous work (a webhook, a busy contact, the test clock): answered after its own commit.
    out.then(
      (value) => engine.flush().then(() => post({ type: 'reply', id: req.id, ok: true, value })),
      (err) => engine.flush().then(() => post({ type: 'reply', id: req.id, ok: false, error: toWire(err) })),
    ).then(() => sched.arm(), fatal);
  };

  const loop = async (): Promise<void> => {
    for (;;) {
      let m = ring.tryRead();
      if (!m) {
        if (ring.closed) break;
        await ring.waitReadable();
        continue;
      }
      idleGc.busy();
      const early: WorkflowReply[] = [];
      const late: WorkflowReply[] = [];
      let n = 0;
      do {
        const reqs = unpack<WorkflowRequestBatch>(m);
        for (let i = 0; i < reqs.length; i++) handle(reqs[i], early, late);
        n += reqs.length;
      } while (n < BATCH && (m = ring.tryRead()));
      postAll(early);
      if (!init.testClock) await engine.runDue();
      // Not awaited: the next batch is processed while this one commits (commits stay in order); batches
      // that arrive while a commit is in flight share the next one (group commit, see `engine.flush`).
      if (late.length) void engine.flush(EVENT_COMMITS_IN_FLIGHT).then(() => postAll(late), fatal);
      sched.arm();
    }
    await engine.flush();
    await kv.close();
    process.exit(0);
  };

  // A pending Atomics.waitAsync does not keep a thread alive; the parent port does (the main thread
  // closes the ring, not the port, to stop this worker).
  port.on('message', () => undefined);

  // Start-up backfill: timers that came due while the process was down fire now, in fireAt order.
  await engine.runAllDue();
  await engine.flush();
  post({ type: 'ready', appliedLow: engine.st.state.appliedLow, appliedAbove: [...engine.st.above] });
  sched.arm();
  await loop();
}

/** Real-clock timer scheduler: sleeps until the earliest due timer, at most POLL_MS. */
class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly engine: WorkflowEngine) {}

  arm(): void {
    if (init.testClock) return;
    if (this.timer) clearTimeout(this.timer);
    const at = this.engine.nextFireAt();
    if (at === Infinity) { this.timer = null; return; }
    this.timer = setTimeout(() => this.tick(), Math.min(Math.max(at - Date.now(), 0), POLL_MS));
  }

  private tick(): void {
    this.timer = null;
    void Promise.resolve(this.engine.runDue()).then(() => this.engine.flush()).then(() => this.arm(), fatal);
  }
}

let openedKv: { kv: { close(): Promise<void> } } | null = null;
let exiting = false;

/**
 * A failed commit leaves changes in memory that LMDB refused: the thread reports and ends, and the main
 * thread restarts the partition from LMDB when the failure was a full disk (partition-link.ts). A damaged
 * environment (CORRUPTION) ends the thread too; the main thread marks the partition failed.
 */
function fatal(err: unknown): void {
  const wire = toWire(err);
  post({ type: 'fatal', error: wire });
  if ((wire.code !== 'DISK_FULL' && wire.code !== 'CORRUPTION') || exiting) return;
  exiting = true;
  void (openedKv?.kv.close() ?? Promise.resolve()).catch(() => undefined).finally(() => process.exit(75));
}

main().catch(fatal);
