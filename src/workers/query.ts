/**
 * Query thread entry (see `QueryPool` in server/pool.ts): evaluates one `promql.eval` call per task, on a
 * thread that owns no shard, so a long evaluation holds up nothing but itself. The main thread stops it
 * through the shared cancel word, which the evaluator reads with its deadline checks.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { packWithViews, transferList, unpackWithViews } from '../engine/codec/msgpack.ts';
import { toWire } from '../engine/errors.ts';
import type { BatchMessage, CallResult, PromqlEvalArgs, TaskCall } from './protocol.ts';
import { promqlTasks } from './promql-tasks.ts';

/** A task: the packed call, and the shared cancel word (`PromqlEvalArgs.cancel`). */
export interface QueryTask { batch: BatchMessage; cancel: SharedArrayBuffer }

export default function runQuery(task: QueryTask): unknown {
  const [call] = unpackWithViews<TaskCall[]>(task.batch);
  let result: CallResult;
  try {
    if (call.op !== 'promql.eval') throw new Error(`query threads do not run ${call.op}`);
    const args = call.args as PromqlEvalArgs;
    args.cancel = new Int32Array(task.cancel);
    result = { ok: true, value: promqlTasks['promql.eval'](args) };
  } catch (err) {
    result = { ok: false, error: toWire(err) };
  }
  const reply: BatchMessage = packWithViews([result]);
  return move({ [transferableSymbol]: transferList(reply), [valueSymbol]: reply } as unknown as Parameters<typeof move>[0]);
}
