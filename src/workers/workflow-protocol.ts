/**
 * Messages between the main thread and a workflow engine thread (one per partition). Requests travel over
 * the partition's SPSC ring, each ring message the msgpack of a `WorkflowRequestBatch` (the requests one
 * turn of the main thread's event loop made, in call order); replies come back with postMessage (several at
 * once msgpack-encoded).
 * Operation names and types: `WorkflowOps` in `protocol.ts`.
 */
import type { WireError } from '../engine/errors.ts';
import type { WorkflowOpName } from './protocol.ts';

// The pure routing function only (the main thread must not load the engine).
export { partitionOf } from '../engine/workflow/partition.ts';

export interface WorkflowWorkerInit {
  ring: SharedArrayBuffer;
  /** The data directory (the partition's environment is `workflow/p{partition}` in it). */
  dataDir: string;
  partition: number;
  partitions: number;
  testClock: boolean;
  /** Records per cached space (hot-contact cache bound). */
  cacheEntries: number;
  /** Retention of finished runs and their action-log entries (ms). */
  retentionMs: number;
  /** `--workflow.webhook.allow-private-targets`. */
  allowPrivateWebhookTargets: boolean;
}

export interface WorkflowRequest {
  id: number;
  op: WorkflowOpName;
  args: unknown;
}

/** One ring message: requests in call order (they are processed in this order). */
export type WorkflowRequestBatch = WorkflowRequest[];

export type WorkflowReply =
  /** Applied marks of the layout-1 WAL (events replayed from it at start-up are recognised by them). */
  | { type: 'ready'; appliedLow: number; appliedAbove: number[] }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  | { type: 'fatal'; error: WireError }
  /**
   * Several replies of one batch in one message (a postMessage per reply costs more than the reply): the
   * msgpack of a `WorkflowReply[]`, its buffer transferred.
   */
  | { type: 'packed'; bytes: Uint8Array };
