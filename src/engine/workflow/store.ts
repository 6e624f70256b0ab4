/**
 * The workflow engine's state: keyed record spaces (one per suggested LMDB database, spec §1 "Storage")
 * with dirty tracking, plus the in-memory indices rebuilt on load. Values are msgpack-encoded at commit
 * time, so a record mutated after a snapshot cannot leak into an earlier commit.
 */
import { pack, unpack } from '../codec/msgpack.ts';
import { WORKFLOW_META_KEY, WORKFLOW_STATE_VERSION } from '../codec/format-ids.ts';
import { FormatVersionError } from '../errors.ts';
import type { KvBackend, KvWrite } from './kv.ts';
import { TimerHeap, TimerIndex } from './timer-queue.ts';
import type {
  ActionLogEntry, Channel, Contact, ContactChannelState, OutboxMessage, Run, Timer, ViewSession, Workflow,
  WorkflowStatistics,
} from './model.ts';

export class Space<V> {
  readonly map = new Map<string, V>();
  readonly dirty = new Set<string>();
  constructor(readonly name: string) {}
  get(key: string): V | undefined { return this.map.get(key); }
  has(key: string): boolean { return this.map.has(key); }
  set(key: string, v: V): void { this.map.set(key, v); this.dirty.add(key); }
  /** Marks an in-place mutation of an existing record. */
  touch(key: string): void { this.dirty.add(key); }
  delete(key: string): void { this.map.delete(key); this.dirty.add(key); }
  values(): IterableIterator<V> { return this.map.values(); }
}

export interface Meta {
  /** Record layout version (docs/format.md "Workflow state"). */
  layout: number;
  seq: Record<string, number>;
  /** Highest event sequence number below which every event is applied, and the applied ones above it. */
  appliedLow: number;
  appliedAbove: number[];
  clock: number | null;
}

export interface ContactChannelRecord extends ContactChannelState {
  sessionDurationMs: number;
}

export class WorkflowStore {
  readonly workflows = new Space<Workflow>('workflows');
  readonly channels = new Space<Channel>('channels');
  readonly contactState = new Space<ContactChannelRecord>('contact_channel_state');
  readonly viewSessions = new Space<ViewSession>('view_sessions');
  readonly inboundEvents = new Space<number>('inbound_events');
  readonly runs = new Space<Run>('runs');
  readonly timers = new Space<Timer>('timers');
  readonly actionLog = new Space<ActionLogEntry>('action_log');
  readonly outbox = new Space<OutboxMessage>('outbox');
  readonly contacts = new Space<Contact>('contacts');
  readonly stats = new Space<WorkflowStatistics>('statistics');
  private readonly spaces: Space<unknown>[] = [
    this.workflows, this.channels, this.contactState, this.viewSessions, this.inboundEvents, this.runs,
    this.timers, this.actionLog, this.outbox, this.contacts, this.stats,
  ] as Space<unknown>[];
  meta: Meta = { layout: WORKFLOW_STATE_VERSION, seq: {}, appliedLow: 0, appliedAbove: [], clock: null };
  /** Applied sequence numbers above `meta.appliedLow` (`meta.appliedAbove` is written from it on commit). */
  readonly above = new Set<number>();
  private metaDirty = false;

  // ── indices (derived, never persisted) ──
  readonly runsByWorkflow = new Map<number, string[]>();
  readonly activeRun = new Map<string, string>();
  readonly entryCount = new Map<string, number>();
  readonly succeeded = new Set<string>();
  readonly outboxKeys = new Set<string>();
  readonly heap = new TimerHeap();
  readonly countdownsByChannel = new TimerIndex();
  readonly heldByWorkflow = new TimerIndex();
  readonly timersByRun = new TimerIndex();
  /** Every timer and action-log entry of a run (journey) and every entry of a workflow (action log query). */
  readonly allTimersByRun = new Map<string, string[]>();
  readonly actionsByRun = new Map<string, string[]>();
  readonly actionsByWorkflow = new Map<number, string[]>();

  constructor(private readonly kv: KvBackend) {}

  load(): void {
    for (const s of this.spaces) for (const [k, v] of this.kv.load(s.name)) s.map.set(k, unpack(v));
    for (const [k, v] of this.kv.load('meta')) if (k === WORKFLOW_META_KEY) this.meta = unpack<Meta>(v);
    const layout = this.meta.layout ?? WORKFLOW_STATE_VERSION;
    if (layout !== WORKFLOW_STATE_VERSION) throw new FormatVersionError('workflow state (wf_meta)', layout, WORKFLOW_STATE_VERSION, WORKFLOW_STATE_VERSION);
    for (const seq of this.meta.appliedAbove) this.above.add(seq);
    for (const r of this.runs.values()) this.indexRun(r);
    for (const a of this.actionLog.values()) this.indexAction(a);
    for (const o of this.outbox.values()) this.outboxKeys.add(o.idempotencyKey);
    for (const t of this.timers.values()) {
      // A call that was in flight when the process died runs again (external effects are at least once).
      if (t.state === 'running') { t.state = 'pending'; t.history.push({ at: t.fireAt ?? 0, fireAt: t.fireAt, reason: 'restarted' }); this.timers.touch(t.id); this.bumpWaiting(t); }
      this.indexNewTimer(t);
    }
    // `open` counted in-flight work of the dead process: recount from the persisted timers.
    for (const r of this.runs.values()) if (r.status === 'active') r.open = this.timersByRun.get(r.id).length;
  }

  private bumpWaiting(t: Timer): void {
    const s = this.stats.get(String(t.workflowId));
    if (!s) return;
    const e = (s.elements[t.elementDisplayId] ??= { arrived: 0 });
    e.waiting = (e.waiting ?? 0) + 1;
    this.stats.touch(String(t.workflowId));
  }

  /** Next id of a kind, zero-padded so key order is creation order. */
  nextId(kind: string, prefix: string): string {
    return prefix + String(this.nextNumber(kind)).padStart(12, '0');
  }

  nextNumber(kind: string): number {
    const n = (this.meta.seq[kind] ?? 0) + 1;
    this.meta.seq[kind] = n;
    this.metaDirty = true;
    return n;
  }

  /** Ensures a counter is at least `n` (ids given by clients). */
  bumpNumber(kind: string, n: number): void {
    if ((this.meta.seq[kind] ?? 0) < n) { this.meta.seq[kind] = n; this.metaDirty = true; }
  }

  setClock(ms: number): void { this.meta.clock = ms; this.metaDirty = true; }

  isApplied(seq: number): boolean {
    return seq <= this.meta.appliedLow || this.above.has(seq);
  }

  /**
   * Events are applied out of order only while a contact waits on a webhook (its later events queue):
   * the ones applied above the contiguous low mark are kept in a set, and the meta record carries them as
   * an array (rebuilt at commit time).
   */
  markApplied(seq: number): void {
    const m = this.meta;
    if (seq <= m.appliedLow || this.above.has(seq)) return;
    if (seq === m.appliedLow + 1) {
      m.appliedLow = seq;
      while (this.above.has(m.appliedLow + 1)) this.above.delete(++m.appliedLow);
    } else this.above.add(seq);
    this.metaDirty = true;
  }

  indexRun(r: Run): void {
    const list = this.runsByWorkflow.get(r.workflowId);
    if (list) list.push(r.id); else this.runsByWorkflow.set(r.workflowId, [r.id]);
    const key = `${r.workflowId}|${r.contactKey}`;
    this.entryCount.set(key, Math.max(this.entryCount.get(key) ?? 0, r.entryNo));
    if (r.status === 'active') this.activeRun.set(key, r.id);
  }

  indexAction(a: ActionLogEntry): void {
    push(this.actionsByRun, a.runId, a.id);
    push(this.actionsByWorkflow, a.workflowId, a.id);
    if (a.status === 'succeeded') this.succeeded.add(`${a.workflowId}|${a.businessId}|${a.contactId}|${a.elementDisplayId}`);
  }

  /** Called once per timer record (creation or load). */
  indexNewTimer(t: Timer): void {
    push(this.allTimersByRun, t.runId, t.id);
    this.indexTimer(t);
  }

  indexTimer(t: Timer): void {
    if (t.state !== 'pending' && t.state !== 'held') return;
    this.timersByRun.add(t.runId, t.id);
    if (t.state === 'pending' && t.fireAt !== null) this.heap.push(t.fireAt, t.id);
    if (t.state === 'held') this.heldByWorkflow.add(String(t.workflowId), t.id);
    if (t.kind === 'countdown' && t.channelId !== undefined) this.countdownsByChannel.add(`${t.businessId}|${t.channelId}`, t.id);
  }

  unindexTimer(t: Timer): void {
    this.timersByRun.remove(t.runId, t.id);
    this.heldByWorkflow.remove(String(t.workflowId), t.id);
    if (t.kind === 'countdown') this.countdownsByChannel.remove(`${t.businessId}|${t.channelId}`, t.id);
  }

  hasChanges(): boolean {
    if (this.metaDirty) return true;
    for (const s of this.spaces) if (s.dirty.size) return true;
    return false;
  }

  /** Encodes every changed record (and the meta record) and clears the dirty sets. */
  takeWrites(): KvWrite[] {
    const out: KvWrite[] = [];
    for (const s of this.spaces) {
      for (const k of s.dirty) {
        const v = s.map.get(k);
        out.push({ space: s.name, key: k, value: v === undefined ? null : pack(v) });
      }
      s.dirty.clear();
    }
    this.meta.appliedAbove = [...this.above];
    out.push({ space: 'meta', key: WORKFLOW_META_KEY, value: pack(this.meta) });
    this.metaDirty = false;
    return out;
  }

  commit(writes: KvWrite[]): Promise<void> { return this.kv.commit(writes); }
}

function push<K>(m: Map<K, string[]>, k: K, v: string): void {
  const list = m.get(k);
  if (list) list.push(v); else m.set(k, [v]);
}
