/**
 * Query thread entry (see `QueryPool` in server/pool.ts): evaluates one `promql.eval` call per task, on a
 * thread that owns no shard, so a long evaluation holds up nothing but itself. The main thread stops it
 * through the shared cancel word, which the evaluator reads with its deadline checks.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { packWithViews, transferList, unpackWithViews } from '../engine/codec/msgpack.ts';
import { QueryCanceledError, formatMessage, toWire } from '../engine/errors.ts';
import { QUERY_CANCEL_WORD, QUERY_STARTED_WORD } from './protocol.ts';
import type { BatchMessage, CallResult, PromqlEvalArgs, TaskCall } from './protocol.ts';
import { promqlTasks } from './promql-tasks.ts';
import { startIdleGc, usedWithTransferredBytes } from '../runtime/idle-gc.ts';
import { releaseNow } from '../runtime/release-buffers.ts';
import { startLargeTaskRelease } from '../runtime/large-task-release.ts';

/** Bytes of a task's transferred buffers from which they are freed as soon as the task is answered (`releaseNow`). */
const RELEASE_AT_ONCE_BYTES = 4 * 1024 * 1024;

/** A task: the packed call, and its shared control words (`QUERY_CONTROL_WORDS` Int32 words). */
export interface QueryTask { batch: BatchMessage; control: SharedArrayBuffer }

// Tests only (TESSERA_TEST_HOOKS): a thread start as slow as a loaded machine running the TypeScript sources.
const startDelayMs = process.env.TESSERA_TEST_HOOKS === '1' ? Number(process.env.TESSERA_TEST_QUERY_THREAD_START_MS ?? 0) : 0;
if (startDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, startDelayMs);

/**
 * A query's selected samples arrive transferred (the shards' arrays, 16 bytes a sample: 0.7 GB for a 30-day
 * range over 1,000 series at 60 s) and are garbage once it is answered; V8 collects only when the thread
 * allocates again, so without this an idle query thread kept them resident (docs/benchmarks.md, issue 11).
 * Growth is measured with the transferred arrays, which the thread's own ArrayBuffer figure leaves out.
 */
const idleGc = startIdleGc(undefined, undefined, 0, usedWithTransferredBytes);
/** Freed at once, a 30-day query's chunks leave tens of MB free in malloc's arenas: trimmed once it is answered. */
const largeTasks = startLargeTaskRelease();

export default function runQuery(task: QueryTask): unknown {
  idleGc.busy();
  largeTasks.started();
  const control = new Int32Array(task.control);
  // Stored before the cancel word is read: the main thread, which stores the cancel word before it reads this
  // one, either sees the task started (and waits for the evaluator to notice) or is seen here to have cancelled.
  Atomics.store(control, QUERY_STARTED_WORD, 1);
  let result: CallResult;
  try {
    if (Atomics.load(control, QUERY_CANCEL_WORD) !== 0) throw new QueryCanceledError('QUERY_CANCELED', formatMessage('QUERY_CANCELED', ['query queue']));
    const [call] = unpackWithViews<TaskCall[]>(task.batch);
    if (call.op !== 'promql.eval') throw new Error(`query threads do not run ${call.op}`);
    const args = call.args as PromqlEvalArgs;
    args.cancel = control;
    result = { ok: true, value: promqlTasks['promql.eval'](args) };
  } catch (err) {
    result = { ok: false, error: toWire(err) };
  }
  const reply: BatchMessage = packWithViews([result]);
  // The call's buffers (the selected chunks) are dead once the reply is packed: large ones are freed now, not
  // at a later collection (the reply's JSON is a buffer of its own).
  const received = transferList(task.batch);
  let bytes = 0;
  for (const b of received) bytes += b.byteLength;
  if (bytes >= RELEASE_AT_ONCE_BYTES) releaseNow(received);
  largeTasks.ended(bytes >= RELEASE_AT_ONCE_BYTES ? bytes : 0);
  return move({ [transferableSymbol]: transferList(reply), [valueSymbol]: reply } as unknown as Parameters<typeof move>[0]);
}
