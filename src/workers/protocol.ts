/**
 * Message shapes between the main thread and the shard workers. A task is a batch: every call the main
 * thread made for one worker during one event-loop turn, msgpack-encoded into one transferred buffer.
 * Calls in a batch start in order (so per-shard order is kept) and may complete concurrently (so their
 * WAL appends share one fsync).
 */
import type { WireError } from '../engine/errors.ts';
import type { PackedMessage } from '../engine/codec/msgpack.ts';

/** What a worker thread is started with (Piscina `workerData`). */
export interface WorkerInit {
  workerId: number;
  workerCount: number;
  dataDir: string;
  /** Service options the engine needs in the worker (WAL compression, segment size, retention, …). */
  options: Record<string, unknown>;
}

export interface TaskCall {
  op: string;
  args: unknown;
}

/**
 * One batch on the wire: msgpack of `TaskCall[]` plus the typed arrays marked `outOfBand`, whose buffers are
 * transferred beside it (replies have the same shape, with `CallResult[]`).
 */
export type BatchMessage = PackedMessage;

export type CallResult = { ok: true; value: unknown } | { ok: false; error: WireError };

/** A worker-side task: runs engine code for one call. May return a promise (e.g. waiting for fsync). */
export type TaskHandler = (args: any, ctx: WorkerInit) => unknown;
export type TaskTable = Record<string, TaskHandler>;
