/**
 * Workflow service data model (docs: ../shared/docs/workflow.md §1). Wire-facing JSON-string fields
 * (`target`, `incomings`, `outgoings`, `extensions`) are kept parsed here; `wire.ts` renders them back
 * as strings. Everything in this file is plain data so that it survives msgpack and structured clone.
 */

export type Operation =
  | 'in' | 'notIn' | 'equals' | 'notEquals'
  | 'greaterThan' | 'greaterThanOrEqual' | 'lessThan' | 'lessThanOrEqual';

export const OPERATIONS: readonly Operation[] = [
  'in', 'notIn', 'equals', 'notEquals', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual',
];

export type ElementType = 'Event' | 'Rule' | 'Action';
export type LiveStatus = 'unStart' | 'live' | 'end' | 'waiting' | 'playback' | 'stop';
export const LIVE_STATUSES: readonly LiveStatus[] = ['unStart', 'live', 'end', 'waiting', 'playback', 'stop'];
export type EventType = 'submit' | 'apply' | 'play';
export const EVENT_TYPES: readonly EventType[] = ['submit', 'apply', 'play'];

export type Target =
  | { type: 'all' }
  | { type: 'contacts'; contactIds: string[] }
  | { type: 'tags'; tags: string[]; match?: 'any' | 'all' };

export interface ElementProperty {
  id: number;
  elementId: number;
  name: string;
  operation: Operation;
  value: string;
}

export interface ActionSpec {
  action: string;
  actionValue: unknown;
  delay: number | null;
  within: number | null;
  rule: string | null;
  ruleValue: string | null;
  ruleOperation: Operation | null;
  repeat: boolean | number | null;
  countdown: string | null;
  countdownValue: number | null;
}

export interface WorkflowElement {
  id: number;
  displayId: string;
  workflowId: number;
  type: ElementType;
  metaString: string;
  incomings: string[];
  outgoings: string[];
  properties: ElementProperty[];
  /** Parsed `extensions` exactly as sent (echoed back as a string); null when absent. */
  extensions: unknown;
  /** Validated action settings (Action elements with extensions), internal. */
  action: ActionSpec | null;
}

export interface Workflow {
  id: number;
  platId: string | null;
  businessId: number | null;
  type: number;
  title: string;
  description: string | null;
  target: Target;
  workflowElements: WorkflowElement[];
  oneOff: boolean;
  enable: boolean;
  status: 0 | 1 | 2;
  createdBy: string | null;
  version: 0 | 1;
  createdDate: number;
  lastUpdate: number;
  properties: unknown[] | null;
  revision: number;
  deleted: boolean;
}

export interface Channel {
  id: number;
  businessId: number;
  channelId: string;
  name: string;
  liveStatus: LiveStatus;
  watchUrl: string | null;
  startTime: number | null;
  status: number;
  createTime: number;
  updateTime: number;
}

export interface ContactChannelState {
  submitCount: number;
  applyCount: number;
  playCount: number;
  /** Durations of play events that carried no play_id (ms); view sessions are summed separately. */
  loosePlayDurationMs: number;
  lastPlayType: 'live' | 'vod' | null;
  playedLive: boolean;
  firstPlayAt: number | null;
  lastPlayAt: number | null;
}

export interface ViewSession {
  businessId: number;
  playId: string;
  contactId: string;
  channelId: string;
  durationMs: number;
  playType: 'live' | 'vod' | null;
  startedAt: number | null;
}

export type StepOutcome =
  | 'entered' | 'yes' | 'no' | 'scheduled' | 'rescheduled' | 'executed' | 'skipped'
  | 'expired' | 'failed' | 'held' | 'cancelled' | 'merged';

export interface StepLog {
  runId: string;
  elementDisplayId: string;
  at: number;
  outcome: StepOutcome;
  reason?: string;
  detail?: unknown;
}

export type RunStatus = 'active' | 'completed' | 'failed' | 'cancelled';

export interface Run {
  id: string;
  workflowId: number;
  contactKey: string;
  businessId: number | null;
  contactId: string;
  entryNo: number;
  status: RunStatus;
  triggerEventId: string;
  startedAt: number;
  endedAt: number | null;
  /** Elements reached in this run (a merge executes once). */
  visited: string[];
  /** Timers pending/held plus action executions in flight; the run completes when it reaches 0. */
  open: number;
  failed: boolean;
  steps: StepLog[];
  reason?: string;
  /** A branch of this run was cancelled (channel deleted); decides the final status with `failed`. */
  cancelledBranch?: boolean;
  /** Every timer and action-log entry of the run, in creation order (journey, cancellation, retention). */
  timerIds: string[];
  actionIds: string[];
}

export type TimerState = 'pending' | 'held' | 'running' | 'done' | 'cancelled' | 'expired' | 'skipped';
export type TimerKind = 'delay' | 'countdown' | 'retry';

export interface Timer {
  id: string;
  runId: string;
  workflowId: number;
  elementDisplayId: string;
  kind: TimerKind;
  arrivedAt: number;
  fireAt: number | null;
  expiresAt: number | null;
  businessId: number | null;
  channelId?: string;
  countdownValue?: number;
  /** For retry timers: the attempt the firing will make. */
  attempt?: number;
  state: TimerState;
  history: { at: number; fireAt: number | null; reason: string }[];
}

export type ActionStatus = 'succeeded' | 'failed' | 'skipped' | 'expired' | 'cancelled';

export interface ActionLogEntry {
  id: string;
  workflowId: number;
  runId: string;
  elementDisplayId: string;
  businessId: number | null;
  contactId: string;
  action: string;
  actionValue: unknown;
  status: ActionStatus;
  reason?: string;
  attempt: number;
  idempotencyKey: string;
  scheduledAt: number;
  executedAt: number | null;
  late?: boolean;
  result?: unknown;
}

export interface OutboxMessage {
  id: string;
  workflowId: number;
  runId: string;
  elementDisplayId: string;
  businessId: number | null;
  contactId: string;
  channel: string;
  templateId: string | null;
  content: string | null;
  at: number;
  idempotencyKey: string;
}

export interface Contact {
  businessId: number;
  contactId: string;
  tags: string[];
  attributes: Record<string, unknown>;
}

export interface ElementStats {
  arrived: number;
  yes?: number;
  no?: number;
  executed?: number;
  skipped?: number;
  expired?: number;
  failed?: number;
  waiting?: number;
  held?: number;
}

export interface WorkflowStatistics {
  entered: number;
  active: number;
  completed: number;
  failed: number;
  cancelled: number;
  entryRejected: { oneOff: number; active_run: number; disabled: number; target: number };
  elements: Record<string, ElementStats>;
}

export function emptyStatistics(): WorkflowStatistics {
  return {
    entered: 0, active: 0, completed: 0, failed: 0, cancelled: 0,
    entryRejected: { oneOff: 0, active_run: 0, disabled: 0, target: 0 },
    elements: {},
  };
}

/** Contact key per identity scheme (§9). Livestream events only ever produce version-1 keys. */
export function contactKeyV1(businessId: number, contactId: string): string {
  return `b:${businessId}:c:${contactId}`;
}
