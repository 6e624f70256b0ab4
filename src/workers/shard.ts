/**
 * Shard worker entry (one Piscina instance per thread). Decodes a batch, starts each call in order, and
 * answers all of them together once every call has settled. Batches come as Piscina tasks (metrics calls,
 * whose replies transfer large typed arrays) or through the rings of the link the main thread attaches with
 * a first task (document calls; ring-link.ts). That attach task stays pending while the link is open, so
 * the main thread learns of the thread's death through its rejection.
 */
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { packMessage, packWithViews, transferList, unpack, unpackWithViews } from '../engine/codec/msgpack.ts';
import { SpscProducer, SpscRing } from '../engine/queue/spsc-ring.ts';
import { toWire } from '../engine/errors.ts';
import type { BatchMessage, CallResult, OpName, TaskCall, TaskHandler, WorkerInit } from './protocol.ts';
import { readMessages, writeFrames, type LinkBuffers } from './ring-link.ts';
import { isLazyOp, loadDocumentTasks, TASKS } from './tasks.ts';
import { BACKGROUND_CHECKS, startIdleGc } from '../runtime/idle-gc.ts';
import { startLargeTaskRelease } from '../runtime/large-task-release.ts';
import { createLogger, logProcessWarnings, type Level } from '../runtime/logger.ts';

const init = workerData as WorkerInit;
// WAL repairs and other warnings of the engine reach the node's structured log, marked with this worker.
logProcessWarnings(createLogger((init.options.logLevel as Level | undefined) ?? 'info'), { worker: init.workerId });
// Merges keep a worker busy for seconds after a bulk load: it collects during them once its clients have gone.
const idleGc = startIdleGc(undefined, undefined, BACKGROUND_CHECKS);
// A large select (a 30-day range) leaves the heap grown by tens of MB: shrunk again once it is answered.
const largeTasks = startLargeTaskRelease();

export default async function runBatch(message: BatchMessage | { link: LinkBuffers }): Promise<unknown> {
  if ('link' in message) return serveLink(message.link);
  idleGc.busy();
  const calls = unpackWithViews<TaskCall[]>(message);
  // Transfer the reply bytes and out-of-band arrays, so large results are not cloned on the way back.
  const reply: BatchMessage = packWithViews(await settleAll(calls));
  return move({ [transferableSymbol]: transferList(reply), [valueSymbol]: reply } as unknown as Parameters<typeof move>[0]);
}

/** Answers the batches that arrive on the link's request ring until the main thread closes it. */
async function serveLink(link: LinkBuffers): Promise<null> {
  const replies = new SpscProducer(SpscRing.attach(link.replies));
  await readMessages(SpscRing.attach(link.requests), (id, bytes) => {
    idleGc.busy();
    let calls: TaskCall[];
    // A batch that does not decode is answered with its error (the main thread fails the batch), not dropped.
    try { calls = unpack<TaskCall[]>(bytes); } catch (err) { void writeFrames(replies, id, packMessage([fail(err)])).catch(() => {}); return; }
    void settleAll(calls).then((results) => {
      let reply: Uint8Array;
      try { reply = packMessage(results); } catch (err) { reply = packMessage(results.map(() => fail(err))); }
      // Rejects only once the main thread closed the link (shutdown): nobody waits for the reply then.
      return writeFrames(replies, id, reply).catch(() => {});
    });
  });
  return null;
}

function settleAll(calls: TaskCall[]): Promise<CallResult[]> {
  largeTasks.started();
  const results: (CallResult | Promise<CallResult>)[] = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) results[i] = start(calls[i]);
  return Promise.all(results).finally(() => largeTasks.ended());
}

let documentTasksLoaded = false;

function start(call: TaskCall): CallResult | Promise<CallResult> {
  // The batch was typed when the main thread built it; the op name is checked again here because bytes came in.
  const handler = (Object.hasOwn(TASKS, call.op) ? TASKS[call.op] : undefined) as TaskHandler<OpName> | undefined;
  if (!handler) {
    // The documents areas load on their first call (tasks.ts); calls of one batch still start in order.
    if (isLazyOp(call.op) && !documentTasksLoaded) return loadDocumentTasks().then(() => { documentTasksLoaded = true; return start(call); }, fail);
    return { ok: false, error: toWire(new Error(`unknown worker op ${call.op}`)) };
  }
  try {
    const out = handler(call.args as never, init);
    if (out instanceof Promise) return out.then(ok, fail);
    return ok(out);
  } catch (err) {
    return fail(err);
  }
}

const ok = (value: unknown): CallResult => ({ ok: true, value: value === undefined ? null : value });
const fail = (err: unknown): CallResult => ({ ok: false, error: toWire(err) });
