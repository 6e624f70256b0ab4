/**
 * The workflow engine's state on disk (docs/format.md "Workflow state", layout 2): record spaces read on
 * demand through bounded caches, secondary indexes as ordered key spaces, and the timer wheel over the
 * `due` index. Nothing proportional to the number of contacts, runs or timers is loaded at open: only the
 * catalog (workflows, channels, statistics) and the meta record.
 *
 * Index maintenance lives here (`indexRun`, `runEnded`, `indexTimer`, …) so that every state transition
 * updates the same keys; `docs/format.md` lists each index with its key layout.
 */
import { WORKFLOW_META_KEY, WORKFLOW_STATE_MIN_VERSION, WORKFLOW_STATE_VERSION } from '../codec/format-ids.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import type { KvBackend, KvCommitMetrics, KvWrite } from './kv.ts';
import { FullSpace, IndexSpace, SEP, Space, pad, prefixEnd } from './space.ts';
import { TimerWheel } from './timer-wheel.ts';
import type {
  ActionLogEntry, Channel, Contact, ContactChannelState, OutboxMessage, Run, Timer, ViewSession, Workflow,
  WorkflowStatistics,
} from './model.ts';

export interface Meta {
  /** Record layout version (docs/format.md "Workflow state"). */
  layout: number;
  seq: Record<string, number>;
  /** Highest event sequence number below which every event is applied, and the applied ones above it. */
  appliedLow: number;
  appliedAbove: number[];
  clock: number | null;
  /** This partition's number and the partition count (contacts are hashed over the partitions). */
  partition: number;
  partitions: number;
  /** Set while layout-1 state is being converted into this partition (`upgrade-v1.ts`). */
  converting?: boolean;
}

export interface ContactChannelRecord extends ContactChannelState {
  sessionDurationMs: number;
}

/** Per (workflow, contact): how many runs were entered, which one is active (entry checks, §4.5), and all of them. */
export interface RunHead { entries: number; active: string | null; runs: string[] }

export interface StoreOptions {
  /** Records kept per cached space (contacts' state, runs, timers, …); the hot-contact cache bound. */
  cacheEntries: number;
  partition: number;
  partitions: number;
}

export class WorkflowStore {
  readonly meta: FullSpace<Meta>;
  readonly workflows: FullSpace<Workflow>;
  readonly channels: FullSpace<Channel>;
  readonly stats: FullSpace<WorkflowStatistics>;
  readonly contactState: Space<ContactChannelRecord>;
  readonly viewSessions: Space<ViewSession>;
  readonly inboundEvents: Space<number>;
  readonly runs: Space<Run>;
  readonly runHeads: Space<RunHead>;
  readonly timers: Space<Timer>;
  readonly actionLog: Space<ActionLogEntry>;
  readonly outbox: Space<OutboxMessage>;
  readonly outboxKeys: Space<string>;
  readonly contacts: Space<Contact>;
  // ── indexes (docs/format.md "Workflow state" lists their keys) ──
  readonly wfRuns: IndexSpace;
  readonly wfActive: IndexSpace;
  readonly runsEnded: IndexSpace;
  readonly wfActions: IndexSpace;
  readonly contactActions: IndexSpace;
  readonly due: IndexSpace;
  readonly countdowns: IndexSpace;
  readonly held: IndexSpace;
  readonly running: IndexSpace;
  readonly repeatDone: IndexSpace;
  readonly outboxByContact: IndexSpace;
  readonly outboxByBusiness: IndexSpace;
  readonly wheel: TimerWheel;
  private readonly all: (Space<unknown> | IndexSpace)[] = [];
  /** Applied sequence numbers above `meta.appliedLow` (`meta.appliedAbove` is written from it on commit). */
  readonly above = new Set<number>();
  private m!: Meta;

  constructor(private readonly kv: KvBackend, readonly opts: StoreOptions) {
    const n = opts.cacheEntries;
    const full = <V>(name: string) => this.track(new FullSpace<V>(name, kv));
    const space = <V>(name: string, cap = n) => this.track(new Space<V>(name, kv, cap));
    const index = (name: string) => this.track(new IndexSpace(name, kv));
    this.meta = full('meta'); this.workflows = full('workflows'); this.channels = full('channels'); this.stats = full('statistics');
    this.contactState = space('contact_channel_state'); this.viewSessions = space('view_sessions', n >> 2);
    this.inboundEvents = space('inbound_events', n >> 2); this.runs = space('runs'); this.runHeads = space('run_heads');
    this.timers = space('timers'); this.actionLog = space('action_log', n >> 2); this.outbox = space('outbox', n >> 2);
    this.outboxKeys = space('outbox_keys', n >> 2); this.contacts = space('contacts');
    this.wfRuns = index('ix_workflow_runs'); this.wfActive = index('ix_workflow_active'); this.runsEnded = index('ix_runs_ended');
    this.wfActions = index('ix_workflow_actions'); this.contactActions = index('ix_contact_actions'); this.due = index('ix_timers_due');
    this.countdowns = index('ix_channel_countdowns'); this.held = index('ix_workflow_held'); this.running = index('ix_timers_running');
    this.repeatDone = index('ix_repeat_done'); this.outboxByContact = index('ix_contact_outbox'); this.outboxByBusiness = index('ix_business_outbox');
    this.wheel = new TimerWheel(this.due);
  }

  private track<S extends Space<any> | IndexSpace>(s: S): S { this.all.push(s as Space<unknown> | IndexSpace); return s; }

  /** Loads the catalog and the meta record; a missing meta record means a new, empty partition. */
  open(): void {
    for (const s of [this.meta, this.workflows, this.channels, this.stats]) s.load();
    const m = this.meta.get(WORKFLOW_META_KEY);
    if (m && (m.layout < WORKFLOW_STATE_MIN_VERSION || m.layout > WORKFLOW_STATE_VERSION)) {
      throw new FormatVersionError('workflow state (wf2_meta)', m.layout, WORKFLOW_STATE_MIN_VERSION, WORKFLOW_STATE_VERSION);
    }
    if (m && (m.partition !== this.opts.partition || m.partitions !== this.opts.partitions)) {
      throw new CorruptionError('workflow state (wf2_meta)', 0, `holds partition ${m.partition} of ${m.partitions}, opened as ${this.opts.partition} of ${this.opts.partitions}`);
    }
    this.m = m ?? {
      layout: WORKFLOW_STATE_VERSION, seq: {}, appliedLow: 0, appliedAbove: [], clock: null,
      partition: this.opts.partition, partitions: this.opts.partitions,
    };
    if (!m) this.meta.set(WORKFLOW_META_KEY, this.m);
    // Layout 2 → 3 adds only the commit guard, which the backend creates when it opens (lmdb-kv.ts); 3 → 4
    // only the records value encoding, and values of the older form are read as they are (values.ts); 4 → 5
    // only the commit log, which the backend creates when it opens (lmdb-kv.ts `openLogged`).
    else if (m.layout !== WORKFLOW_STATE_VERSION) { m.layout = WORKFLOW_STATE_VERSION; this.metaChanged(); }
    for (const seq of this.m.appliedAbove) this.above.add(seq);
  }

  /** Whether this partition has ever been written (no meta record: a fresh directory, or one to convert). */
  static isEmpty(kv: KvBackend): boolean { return kv.get('meta', WORKFLOW_META_KEY) === undefined; }

  get state(): Meta { return this.m; }
  private metaChanged(): void { this.meta.touch(WORKFLOW_META_KEY); }

  /**
   * Next id of a kind: zero-padded so key order is creation order, then the partition number, so ids of
   * different partitions never collide and sort by creation count.
   */
  nextId(kind: string, prefix: string): string {
    const p = this.m.partitions > 1 ? String(this.m.partition) : '';
    return prefix + String(this.nextNumber(kind)).padStart(12, '0') + p;
  }

  nextNumber(kind: string): number {
    const n = (this.m.seq[kind] ?? 0) + 1;
    this.m.seq[kind] = n;
    this.metaChanged();
    return n;
  }

  /** Ensures a counter is at least `n` (ids given by clients). */
  bumpNumber(kind: string, n: number): void {
    if ((this.m.seq[kind] ?? 0) < n) { this.m.seq[kind] = n; this.metaChanged(); }
  }

  setClock(ms: number): void { if (this.m.clock !== ms) { this.m.clock = ms; this.metaChanged(); } }

  isApplied(seq: number): boolean {
    return seq <= this.m.appliedLow || this.above.has(seq);
  }

  /**
   * Events are applied out of order only while a contact waits on a webhook (its later events queue):
   * the ones applied above the contiguous low mark are kept in a set, written as an array at commit.
   */
  markApplied(seq: number): void {
    const m = this.m;
    if (seq <= m.appliedLow || this.above.has(seq)) return;
    if (seq === m.appliedLow + 1) {
      m.appliedLow = seq;
      while (this.above.has(m.appliedLow + 1)) this.above.delete(++m.appliedLow);
    } else this.above.add(seq);
    this.metaChanged();
  }

  // ── runs ──

  head(wfId: number, contactKey: string): RunHead | undefined { return this.runHeads.get(wfId + SEP + contactKey); }

  /** A new run: its head (entry count, active run) and the workflow indexes. */
  indexRun(r: Run): void {
    const hk = r.workflowId + SEP + r.contactKey;
    const h = this.runHeads.get(hk);
    if (h) {
      h.entries = Math.max(h.entries, r.entryNo);
      h.active = r.id;
      h.runs.push(r.id);
      this.runHeads.touch(hk);
    } else this.runHeads.set(hk, { entries: r.entryNo, active: r.id, runs: [r.id] });
    const w = pad(r.workflowId) + SEP;
    this.wfRuns.addNew(w + r.id);
    this.wfActive.addNew(w + r.id);
  }

  /** A run left `active`. */
  runEnded(r: Run): void {
    const hk = r.workflowId + SEP + r.contactKey;
    const h = this.runHeads.get(hk);
    if (h && h.active === r.id) { h.active = null; this.runHeads.touch(hk); }
    this.wfActive.remove(pad(r.workflowId) + SEP + r.id);
    this.runsEnded.addNew(pad(r.endedAt ?? 0) + SEP + r.id);
  }

  hasRuns(wfId: number): boolean { return this.wfRuns.scan(pad(wfId) + SEP, prefixEnd(pad(wfId) + SEP), 1).length > 0; }

  /** Ids after the prefix of index keys `prefix…SEP id` (the id is the last part). */
  static lastPart(key: string): string { return key.slice(key.lastIndexOf(SEP) + 1); }

  /** Up to `limit` ids from an index under `prefix`, after the id-bearing key `after` (exclusive). */
  ids(ix: IndexSpace, prefix: string, limit: number, afterId?: string): string[] {
    const start = afterId === undefined ? prefix : prefix + afterId + '\u0000';
    return ix.scan(start, prefixEnd(prefix), limit).map(WorkflowStore.lastPart);
  }

  activeRunIds(wfId: number, limit: number): string[] { return this.ids(this.wfActive, pad(wfId) + SEP, limit); }

  // ── actions ──

  /** A new action-log entry of `run` (the run lists it). */
  indexAction(a: ActionLogEntry, run: Run): void {
    (run.actionIds ??= []).push(a.id);
    this.runs.touch(run.id);
    this.wfActions.addNew(pad(a.workflowId) + SEP + a.id);
    this.contactActions.addNew(a.contactId + SEP + a.id);
    if (a.status === 'succeeded') this.repeatDone.add(repeatKey(a.workflowId, a.businessId, a.contactId, a.elementDisplayId));
  }

  succeeded(wfId: number, businessId: number | null, contactId: string, displayId: string): boolean {
    return this.repeatDone.has(repeatKey(wfId, businessId, contactId, displayId));
  }

  // ── timers ──

  /** A new timer record of `run` (creation or conversion; the run lists it). */
  indexNewTimer(t: Timer, run: Run): void {
    (run.timerIds ??= []).push(t.id);
    this.runs.touch(run.id);
    this.indexTimer(t);
  }

  /** Adds the keys of a timer's current state (pending/held/running). */
  indexTimer(t: Timer): void {
    if (t.state === 'running') { this.running.add(t.id); return; }
    if (t.state !== 'pending' && t.state !== 'held') return;
    if (t.state === 'pending' && t.fireAt !== null) this.wheel.schedule(t.fireAt, t.id);
    if (t.state === 'held') this.held.add(pad(t.workflowId) + SEP + t.id);
    if (t.kind === 'countdown' && t.channelId !== undefined) this.countdowns.add(countdownPrefix(t.businessId, t.channelId) + t.id);
  }

  /** Removes the keys of a timer's current state; call before changing `state` or `fireAt`. */
  unindexTimer(t: Timer): void {
    if (t.state === 'running') { this.running.remove(t.id); return; }
    if (t.state === 'pending' && t.fireAt !== null) this.wheel.unschedule(t.fireAt, t.id);
    if (t.state === 'held') this.held.remove(pad(t.workflowId) + SEP + t.id);
    if (t.kind === 'countdown' && t.channelId !== undefined) this.countdowns.remove(countdownPrefix(t.businessId, t.channelId) + t.id);
  }

  /** Moves a timer to another state, keeping its index keys in step. */
  setTimerState(t: Timer, state: Timer['state']): void {
    if (t.state === state) return;
    this.unindexTimer(t);
    t.state = state;
    this.indexTimer(t);
    this.timers.touch(t.id);
  }

  setTimerFireAt(t: Timer, fireAt: number | null): void {
    this.unindexTimer(t);
    t.fireAt = fireAt;
    this.indexTimer(t);
    this.timers.touch(t.id);
  }

  /** Timers of a run (all states), in creation order. */
  timersOf(run: Run): Timer[] {
    return (run.timerIds ?? []).map((id) => this.timers.get(id)!).filter((t) => t !== undefined);
  }

  /** Pending/held timers of a run. */
  openTimersOf(run: Run): Timer[] { return this.timersOf(run).filter((t) => t.state === 'pending' || t.state === 'held'); }

  /** Action-log entries of a run, in creation order. */
  actionsOf(run: Run): ActionLogEntry[] {
    return (run.actionIds ?? []).map((id) => this.actionLog.get(id)!).filter((a) => a !== undefined);
  }

  // ── outbox ──

  indexOutbox(m: OutboxMessage): void {
    this.outboxKeys.set(m.idempotencyKey, m.id);
    this.outboxByContact.addNew(m.contactId + SEP + m.id);
    this.outboxByBusiness.addNew(pad(m.businessId ?? 0) + SEP + m.id);
  }

  // ── commits ──

  /** Records and index keys changed since the last commit started. */
  pendingWrites(): number {
    let n = 0;
    for (const s of this.all) n += s.changed;
    return n;
  }

  hasChanges(): boolean {
    for (const s of this.all) if (s.changed) return true;
    return false;
  }

  /** Encodes every changed record (and the meta record) and moves them to the committing state. */
  takeWrites(): KvWrite[] {
    this.m.appliedAbove = [...this.above];
    const out: KvWrite[] = [];
    for (const s of this.all) s.takeWrites(out);
    return out;
  }

  private tail: Promise<void> = Promise.resolve();
  /**
   * The first commit that failed to become durable: nothing committed after it may be acknowledged (the
   * thread ends on it). A commit that is durable but could not be made readable (with a commit log: LMDB
   * failed behind it) is not one: its log record replays at the next open, so it is acknowledged — refusing it
   * answered a write as failed that the restarted partition then served (the disk-full test saw it) — and the
   * backend refuses every later commit.
   */
  private failure: unknown = null;

  /**
   * Resolves once every commit started so far is durable; rejects once one has failed. A flush with nothing
   * new to write answers with this, and its requests' changes may have gone out in a commit another flush
   * started (group commit): that commit's failure must reach them too.
   */
  get durable(): Promise<void> {
    return this.tail.then(() => { if (this.failure !== null) throw this.failure; });
  }

  /**
   * Commits `writes` (from `takeWrites`); resolves once they and every earlier commit are durable. Commits
   * may overlap: each space keeps its in-flight snapshots, and they retire in the order they were taken.
   */
  commit(writes: KvWrite[]): Promise<void> {
    const started = performance.now();
    this.commitCount++;
    this.committedWrites += writes.length;
    const done = this.kv.commit(writes);
    // The snapshots stay readable until the backend can serve them (with a commit log, LMDB is written after
    // the commit is durable), and retire in the order they were taken.
    const readable = this.kv.applied?.() ?? done;
    this.retired = Promise.all([this.retired, readable]).then(() => { for (const s of this.all) s.committed(); })
      .catch(() => undefined); // snapshots stay readable (and in memory) until the thread ends
    const p = Promise.all([this.tail, done]).then(() => {
      if (this.failure !== null) throw this.failure;
      this.commitMs += performance.now() - started;
    });
    this.tail = p.catch((e: unknown) => { this.failure ??= e; });
    return p;
  }

  private retired: Promise<void> = Promise.resolve();

  private commitCount = 0;
  private committedWrites = 0;
  private commitMs = 0;

  /**
   * Commits since the partition opened (in `health`; a load test divides its events by the difference):
   * how many, records written, the summed time from start to durable, and what the backend reports of
   * its own work (LMDB: transactions, time in them, time syncing, pages written).
   */
  commitFigures(): { commits: number; committedWrites: number; commitMs: number; kv: KvCommitMetrics | null } {
    return { commits: this.commitCount, committedWrites: this.committedWrites, commitMs: this.commitMs, kv: this.kv.commitMetrics?.() ?? null };
  }

  /** Cache sizes and the wheel's in-memory timers (memory accounting in `health`). */
  figures(): { cachedContacts: number; cachedRuns: number; cachedTimers: number; timersInMemory: number } {
    return {
      cachedContacts: this.contactState.cached, cachedRuns: this.runs.cached, cachedTimers: this.timers.cached,
      timersInMemory: this.wheel.inMemory,
    };
  }
}

export const repeatKey = (wfId: number, businessId: number | null, contactId: string, displayId: string): string =>
  wfId + SEP + businessId + SEP + contactId + SEP + displayId;

export const countdownPrefix = (businessId: number | null, channelId: string): string => businessId + SEP + channelId + SEP;
