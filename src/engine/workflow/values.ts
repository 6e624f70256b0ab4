/**
 * Encoding of the workflow engine's stored values (docs/format.md "Workflow state", values). A value is one
 * leading byte and msgpack:
 *
 * - `WORKFLOW_VALUE_RECORDS` (layout 4, written): msgpack records over `RECORD_STRUCTURES`. The hot records
 *   (runs, timers, contact state, run heads, steps) are written as a structure reference and their values
 *   instead of a map with every key spelled out: 0.4× the bytes, and the engine thread's encoding and
 *   LMDB's copying of them per event shrink with it.
 * - `STORE_VALUE_VERSION` (layouts 2–3, still read): plain msgpack maps, as `Store` wrote them.
 *
 * A partition written by an older build opens as it is; its values are rewritten in the new form only when
 * their records change.
 */
import { STORE_VALUE_VERSION, WORKFLOW_VALUE_RECORDS } from '../codec/format-ids.ts';
import { recordCodec, unpack } from '../codec/msgpack.ts';
import { CorruptionError } from '../errors.ts';

/**
 * The shared record structures, by position (the position is what a value refers to: APPEND ONLY, never
 * reorder or edit an entry). Each is the key order in which the engine creates a record of that shape;
 * a record whose keys differ (an optional field set, a field added later) is still written and read, with
 * its key list inline.
 */
export const RECORD_STRUCTURES: readonly (readonly string[])[] = [
  // 0 run (runner/ingest `startRun`)
  ['id', 'workflowId', 'contactKey', 'businessId', 'contactId', 'entryNo', 'status', 'triggerEventId', 'startedAt', 'endedAt',
    'visited', 'open', 'failed', 'steps', 'timerIds', 'actionIds'],
  // 1 countdown timer, 2 delay or retry timer (`Runner.createTimer`)
  ['id', 'runId', 'workflowId', 'elementDisplayId', 'kind', 'arrivedAt', 'fireAt', 'expiresAt', 'businessId', 'state', 'history',
    'channelId', 'countdownValue'],
  ['id', 'runId', 'workflowId', 'elementDisplayId', 'kind', 'arrivedAt', 'fireAt', 'expiresAt', 'businessId', 'state', 'history'],
  // 3 contact channel state (`ContactChannelRecord`)
  ['submitCount', 'applyCount', 'playCount', 'loosePlayDurationMs', 'sessionDurationMs', 'lastPlayType', 'playedLive', 'firstPlayAt',
    'lastPlayAt'],
  // 4 run head
  ['entries', 'active', 'runs'],
  // 5–7 step log entries (`Runner.step`): plain, with detail, with reason
  ['runId', 'elementDisplayId', 'at', 'outcome'],
  ['runId', 'elementDisplayId', 'at', 'outcome', 'detail'],
  ['runId', 'elementDisplayId', 'at', 'outcome', 'reason'],
  // 8 detail of a `scheduled` step, 9 timer history entry
  ['timerId', 'kind', 'fireAt'],
  ['at', 'fireAt', 'reason'],
  // 10 action-log entry (`Runner.log`)
  ['id', 'workflowId', 'runId', 'elementDisplayId', 'businessId', 'contactId', 'action', 'actionValue', 'status', 'attempt',
    'idempotencyKey', 'scheduledAt', 'executedAt'],
];

const records = recordCodec(RECORD_STRUCTURES);

/** The stored form of `v`: `WORKFLOW_VALUE_RECORDS`, then msgpack records. */
export function encodeValue(v: unknown): Uint8Array {
  return records.packBehind(WORKFLOW_VALUE_RECORDS, v);
}

/**
 * A stored value of any layout this build reads; `where` names it in a CorruptionError (a function: readers
 * pass the record's location without building its text for every value read).
 */
export function decodeValue(bytes: Uint8Array, where: string | (() => string)): unknown {
  if (bytes.length > 0) {
    if (bytes[0] === WORKFLOW_VALUE_RECORDS) return records.unpack(bytes.subarray(1));
    if (bytes[0] === STORE_VALUE_VERSION) return unpack(bytes.subarray(1));
  }
  throw new CorruptionError(typeof where === 'string' ? where : where(), 0, bytes.length === 0 ? 'empty value' : `value version ${bytes[0]}, want ${WORKFLOW_VALUE_RECORDS} or ${STORE_VALUE_VERSION}`);
}
