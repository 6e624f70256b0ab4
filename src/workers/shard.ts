/**
 * Shard worker entry (one Piscina instance per thread). Decodes a batch, starts each call in order,
 * and answers all of them together once every call has settled.
 */
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { packWithViews, transferList, unpackWithViews } from '../engine/codec/msgpack.ts';
import { toWire } from '../engine/errors.ts';
import type { BatchMessage, CallResult, OpName, TaskCall, TaskHandler, WorkerInit } from './protocol.ts';
import { TASKS } from './tasks.ts';
import { startIdleGc } from '../runtime/idle-gc.ts';

const init = workerData as WorkerInit;
const idleGc = startIdleGc();

export default async function runBatch(message: BatchMessage): Promise<unknown> {
  idleGc.busy();
  const calls = unpackWithViews<TaskCall[]>(message);
  const results: (CallResult | Promise<CallResult>)[] = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) results[i] = start(calls[i]);
  // Transfer the reply bytes and out-of-band arrays, so large results are not cloned on the way back.
  const reply: BatchMessage = packWithViews(await Promise.all(results));
  return move({ [transferableSymbol]: transferList(reply), [valueSymbol]: reply } as unknown as Parameters<typeof move>[0]);
}

function start(call: TaskCall): CallResult | Promise<CallResult> {
  // The batch was typed when the main thread built it; the op name is checked again here because bytes came in.
  const handler = (Object.hasOwn(TASKS, call.op) ? TASKS[call.op] : undefined) as TaskHandler<OpName> | undefined;
  if (!handler) return { ok: false, error: toWire(new Error(`unknown worker op ${call.op}`)) };
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
