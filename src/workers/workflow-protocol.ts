/**
 * Messages between the main thread and the workflow worker. Requests travel over the shared SPSC ring
 * (msgpack of `WorkflowRequest`); replies come back with postMessage.
 */
import type { WireError } from '../engine/errors.ts';

export interface WorkflowWorkerInit {
  ring: SharedArrayBuffer;
  /** Directory of the workflow LMDB environment. */
  storePath: string;
  testClock: boolean;
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
