/**
 * The workflow engine facade: one `call(op, args)` entry point used by the worker, per-contact serial
 * processing (a promise chain per contact, used only when a contact has asynchronous work in flight),
 * the timer loop (`runDue`, `advanceClock`), applied-event marks for exactly-once replay, and `flush`,
 * which commits every change since the last flush in one atomic write.
 */
import { InvalidArgumentError, toWire, type WireError } from '../errors.ts';
import { makeEnv } from './effects.ts';
import { parseEvent, processEvent, processViewlog, type EventResult, type ViewRecordResult } from './ingest.ts';
import type { KvBackend } from './kv.ts';
import { Runner, type Clock, type Job } from './runner.ts';
import { WorkflowStore } from './store.ts';
import { earliestFireAt, fireTimer, nextDue, wireTimers } from './timers.ts';
import { QUERIES } from './queries.ts';
import { MANAGE_OPS, type Replicated } from './manage-ops.ts';
import type { Timer } from './model.ts';
import { recoverRunning } from './timers.ts';
import { sweepFinished } from './retention.ts';

/** Timers fired per `runDue` step, and the pending writes after which a long run of steps commits. */
const DUE_STEP = 1000;
const COMMIT_WRITES = 20_000;
/** Commits that may be in flight at once (see `flush`): bulk work (timers firing), and inbound events. */
const MAX_IN_FLIGHT = 4;
export const EVENT_COMMITS_IN_FLIGHT = 1;
/** Default bound of each cached record space (the hot-contact cache). */
export const DEFAULT_CACHE_ENTRIES = 2_000;
/** Default retention of finished runs and their action-log entries: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;

export interface EngineOptions {
  kv: KvBackend;
  /** Records per cached space (the hot-contact cache bound); default 20,000. */
  cacheEntries?: number;
  /** This engine's partition and the partition count (default 0 of 1). */
  partition?: number;
  partitions?: number;
  /** Finished runs and their action-log entries older than this are deleted in the background (ms). */
  retentionMs?: number;
  /** Use a settable clock persisted across restarts (`--workflow.test-clock`). */
  testClock?: boolean;
  fetch?: typeof fetch;
  /** Webhooks may target loopback and private addresses (off by default; see webhook-target.ts). */
  allowPrivateWebhookTargets?: boolean;
  realNow?: () => number;
}

class SettableClock implements Clock {
  constructor(public t: number) {}
  now(): number { return this.t; }
}

/**
 * The real clock, except while an inbound event is processed: then it reads the event's receive time
 * (stamped into its WAL record), so that an event replayed after a crash is processed as of when it
 * was acknowledged (its delays count from then, and may already be due).
 */
class EventClock implements Clock {
  at: number | null = null;
  constructor(private readonly base: () => number) {}
  now(): number { return this.at ?? this.base(); }
}


async function drain(job: Job): Promise<void> {
  while (job.waits.length) await Promise.all(job.waits.splice(0));
}

export class WorkflowEngine {
  readonly st: WorkflowStore;
  readonly runner: Runner;
  readonly clock: Clock;
  readonly testClock: boolean;
  private readonly locks = new Map<string, Promise<unknown>>();
  private inFlightCount = 0;
  private readonly inFlightList: Promise<void>[] = [];
  private queued: Promise<void> | null = null;

  constructor(opts: EngineOptions) {
    this.st = new WorkflowStore(opts.kv, {
      cacheEntries: opts.cacheEntries ?? DEFAULT_CACHE_ENTRIES, partition: opts.partition ?? 0, partitions: opts.partitions ?? 1,
    });
    this.st.open();
    const realNow = opts.realNow ?? Date.now;
    this.testClock = opts.testClock ?? false;
    this.retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
    this.clock = this.testClock ? new SettableClock(this.st.state.clock ?? realNow()) : new EventClock(realNow);
    this.runner = new Runner(this.st, this.clock, makeEnv(this.st, opts.fetch ?? fetch, () => this.clock.now(), opts.allowPrivateWebhookTargets ?? false));
    wireTimers(this.runner);
    recoverRunning(this.runner);
  }

  readonly retentionMs: number;

  /**
   * Deletes up to `limit` finished runs that ended more than the retention period ago, with their timers
   * and action-log entries; returns how many. Called by the worker in the background, in small steps.
   */
  sweep(limit = 2000): number { return sweepFinished(this.st, this.clock.now() - this.retentionMs, limit); }

  /** Runs one operation; returns a promise only when asynchronous work (webhooks, a busy contact) is involved. */
  call(op: string, args: any): unknown {
    if (Object.hasOwn(INGEST, op)) return INGEST[op as keyof typeof INGEST](this, args);
    if (Object.hasOwn(QUERIES, op)) return (QUERIES[op as keyof typeof QUERIES] as (r: Runner, a: unknown) => unknown)(this.runner, args);
    if (Object.hasOwn(MANAGE_OPS, op)) {
      const m = MANAGE_OPS[op as keyof typeof MANAGE_OPS] as (r: Runner, a: unknown, job: Job) => unknown;
      return this.withJob((job) => this.replicated(args, () => m(this.runner, args, job)));
    }
    if (op === 'clock') return this.clockOp(args);
    if (op === 'sync') return null; // answered after the commit of everything before it (the worker's rule)
    throw new InvalidArgumentError('INVALID_ARGUMENT', `unknown workflow op ${op}`);
  }

  isQuery(op: string): boolean { return Object.hasOwn(QUERIES, op); }

  /**
   * Runs a management call with the inputs every partition must share to reach the same result: whether
   * the workflow has runs in any partition, and (real clock) the time the server received the call.
   */
  private replicated<T>(args: Replicated | null, fn: () => T): T {
    this.runner.anyRuns = typeof args?.anyRuns === 'boolean' ? args.anyRuns : null;
    const clock = this.clock instanceof EventClock && typeof args?.at === 'number' ? this.clock : null;
    if (clock) clock.at = args!.at!;
    try { return fn(); } finally { this.runner.anyRuns = null; if (clock) clock.at = null; }
  }

  private withJob<T>(fn: (job: Job) => T): T | Promise<T> {
    const job: Job = { waits: [] };
    const v = fn(job);
    return job.waits.length ? drain(job).then(() => v) : v;
  }

  /** Serial per contact: runs now unless the contact has asynchronous work queued, then after it. */
  withContact<T>(key: string, fn: (job: Job) => T): T | Promise<T> {
    const prev = this.locks.get(key);
    if (!prev) {
      const job: Job = { waits: [] };
      const v = fn(job);
      if (!job.waits.length) return v;
      return this.setTail(key, drain(job).then(() => v));
    }
    return this.setTail(key, prev.then(() => {
      const job: Job = { waits: [] };
      const v = fn(job);
      return drain(job).then(() => v);
    }));
  }

  private setTail<T>(key: string, p: Promise<T>): Promise<T> {
    const tail = p.then(() => undefined, () => undefined);
    this.locks.set(key, tail);
    void tail.then(() => { if (this.locks.get(key) === tail) this.locks.delete(key); });
    return p;
  }

  /** One inbound event with its WAL sequence number; a replayed, already-applied one has no effect. */
  ingestEvent(seq: number, body: unknown, at?: number): EventResult | Replayed | Promise<EventResult> {
    if (seq > 0 && this.st.isApplied(seq)) return { replayed: true };
    let e;
    try { e = parseEvent(body); } catch (err) { this.applied(seq); throw err; }
    return this.withContact(`${e.businessId}|${e.contactId}`, (job) => {
      const clock = this.clock instanceof EventClock && at !== undefined ? this.clock : null;
      if (clock) clock.at = at!;
      try { return processEvent(this.runner, e, job); } finally { this.applied(seq); if (clock) clock.at = null; }
    });
  }

  private applied(seq: number): void { if (seq > 0) this.st.markApplied(seq); }

  /** Fires every timer due at `now` in fireAt order, each under its contact's lock. */
  /**
   * Fires up to `limit` due timers. Bounded so that the changes of one step stay small: the caller commits
   * and calls again while `nextFireAt() <= now` (a million timers due at once are a thousand steps).
   */
  runDue(limit = DUE_STEP): Promise<void> | void {
    const waits: Promise<unknown>[] = [];
    let n = 0;
    for (let t = nextDue(this.runner, this.clock.now()); t; t = n < limit ? nextDue(this.runner, this.clock.now()) : null) {
      n++;
      const r = this.fire(t);
      if (r instanceof Promise) waits.push(r);
    }
    if (waits.length) return Promise.all(waits).then(() => undefined);
  }

  /** Fires everything due now, committing between steps; the start-up backfill and the test clock use it. */
  async runAllDue(): Promise<void> {
    const commits: Promise<void>[] = [];
    while (this.nextFireAt() <= this.clock.now()) {
      await this.runDue();
      if (this.st.pendingWrites() < COMMIT_WRITES) continue;
      // Commits overlap with the next steps; only when MAX_IN_FLIGHT are pending does firing wait for one.
      const p = this.flush();
      commits.push(p);
      if (this.inFlightCount >= MAX_IN_FLIGHT) await p;
    }
    await Promise.all(commits);
  }

  private fire(t: Timer): unknown {
    const run = this.st.runs.get(t.runId);
    // The contact may be busy (a webhook in flight): by the time this runs, a reschedule may have moved
    // the timer into the future (it then has a fresh heap entry) or it may be gone.
    return this.withContact(`${run?.businessId}|${run?.contactId}`, (job) => {
      if (t.state === 'pending' && t.fireAt !== null && t.fireAt <= this.clock.now()) fireTimer(this.runner, t, job);
    });
  }

  /** Earliest pending fire time (Infinity when none); the worker's scheduler sleeps until then. */
  nextFireAt(): number { return earliestFireAt(this.runner); }

  /** Test clock: steps through every timer due before the target, each at its own fire time. */
  private async clockOp(args: unknown): Promise<{ now: number }> {
    if (!this.testClock) throw new InvalidArgumentError('INVALID_ARGUMENT', 'the test clock is not enabled');
    const a = (args ?? {}) as { set?: unknown; advance?: unknown };
    const ok = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v));
    if (typeof args !== 'object' || args === null || !ok(a.set) || !ok(a.advance) || (a.set === undefined && a.advance === undefined)) {
      throw new InvalidArgumentError('WF_VALIDATION', 'body must be {"set"?: ms, "advance"?: ms} with at least one number', { path: 'body' });
    }
    if (typeof a.advance === 'number' && a.advance < 0) throw new InvalidArgumentError('WF_VALIDATION', 'advance must be >= 0', { path: 'advance' });
    const clock = this.clock as SettableClock;
    const target = (a.set as number | undefined ?? clock.t) + ((a.advance as number | undefined) ?? 0);
    for (;;) {
      const at = this.nextFireAt();
      if (at > target) break;
      clock.t = Math.max(clock.t, at);
      await this.runAllDue();
    }
    clock.t = target;
    this.st.setClock(target);
    await this.runAllDue();
    while (this.sweep() > 0) { /* retention runs as of the new time, so tests can observe it */ }
    return { now: target };
  }

  /**
   * Commits every change made so far in one atomic write; resolves once it and every earlier commit are
   * durable (in the partition's commit log; LMDB is written behind it). Up to `inFlight` commits overlap;
   * beyond that, calls share the next commit, which takes whatever changed up to the moment it starts
   * (group commit).
   *
   * Inbound events pass EVENT_COMMITS_IN_FLIGHT (1): an LMDB commit of this layout touches a dozen named
   * databases and costs about as much CPU as 6–7 events (bench/workflow/ingest-lmdb.bench.ts, batches of 4
   * against 32), so under load it pays to let the events that arrive during a commit share the next one
   * rather than start commits of a few events each; an idle partition still commits each event at once.
   */
  flush(inFlight = MAX_IN_FLIGHT): Promise<void> {
    if (this.inFlightCount < inFlight) return this.startCommit();
    this.queued ??= this.oldest!.then(() => { this.queued = null; return this.startCommit(); });
    return this.queued;
  }

  private startCommit(): Promise<void> {
    if (this.testClock) this.st.setClock((this.clock as SettableClock).t);
    if (!this.st.hasChanges()) return this.st.durable;
    this.inFlightCount++;
    const p = this.st.commit(this.st.takeWrites()).finally(() => { this.inFlightCount--; this.inFlightList.shift(); });
    this.inFlightList.push(p);
    return p;
  }

  private get oldest(): Promise<void> | undefined { return this.inFlightList[0]; }
}

/**
 * Inbound data. `seq` (> 0) is set only for events replayed from a layout-1 WAL at start-up: applied ones
 * are recognised by it. `at`: the receive time the event is processed as (WAL replay, real clock).
 */
export interface IngestArgs { seq?: number; body: unknown; at?: number }
export interface Replayed { replayed: true }
export interface BatchItem { success: boolean; error: WireError | ''; data: unknown }

const INGEST = {
  event: (e: WorkflowEngine, a: IngestArgs) => e.ingestEvent(a.seq ?? 0, a.body, a.at),
  /** Batch: item i carries sequence number seq+i so a partial batch replays exactly the rest. */
  events: (e: WorkflowEngine, a: IngestArgs) => ingestBatch(e, a.seq ?? 0, a.body, a.at),
  viewlog: (e: WorkflowEngine, a: IngestArgs): { results: ViewRecordResult[] } | Replayed => {
    const seq = a.seq ?? 0;
    if (seq > 0 && e.st.isApplied(seq)) return { replayed: true };
    try { return { results: processViewlog(e.runner, a.body) }; } finally { if (seq > 0) e.st.markApplied(seq); }
  },
};

/**
 * Every operation of the engine with its argument and result types (`src/workers/protocol.ts`
 * `WorkflowOps` is checked against this).
 */
type Fn = (...a: any[]) => unknown;
type OpsOf<T extends Record<string, Fn>> = { [K in keyof T]: { args: Parameters<T[K]>[1]; result: Awaited<ReturnType<T[K]>> } };
export type EngineOps = OpsOf<typeof INGEST> & OpsOf<typeof QUERIES> & OpsOf<typeof MANAGE_OPS> & {
  /** Validated by the engine (the body of POST /__test__/clock). */
  clock: { args: unknown; result: { now: number } };
  sync: { args: Record<string, never>; result: null };
};

async function ingestBatch(e: WorkflowEngine, seq: number, body: unknown, at?: number): Promise<{ results: BatchItem[] }> {
  const events = (body as { events?: unknown })?.events;
  if (!Array.isArray(events)) {
    if (seq > 0) e.st.markApplied(seq);
    throw new InvalidArgumentError('WF_VALIDATION', 'events must be an array', { path: 'events' });
  }
  if (events.length === 0 && seq > 0) e.st.markApplied(seq);
  const results: BatchItem[] = [];
  for (let i = 0; i < events.length; i++) {
    try {
      results.push({ success: true, error: '', data: await e.ingestEvent(seq > 0 ? seq + i : 0, events[i], at) });
    } catch (err) {
      results.push({ success: false, error: toWire(err), data: null });
    }
  }
  return { results };
}
