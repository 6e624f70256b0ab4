/**
 * Messages between the main thread and the workflow worker. Requests travel over the shared SPSC ring
 * (msgpack of `WorkflowRequest`); replies come back with postMessage.
 */
import type { WireError } from '../engine/errors.ts';

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
}

export interface WorkflowRequest {
  id: number;
  op: string;
  args: unknown;
}

export type WorkflowReply =
  | { type: 'ready'; appliedLow: number; appliedAbove: number[] }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  | { type: 'fatal'; error: WireError }
  /** Several replies of one batch in one message (a postMessage per reply costs more than the reply). */
  | { type: 'replies'; replies: WorkflowReply[] };
