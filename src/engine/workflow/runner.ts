/**
 * Graph execution for one run (spec §3, §6, §7): arriving at elements, rule branches, fan-out and merge,
 * action scheduling with delay/countdown timers, the fire-time checks (runnable → held, expiry, guard,
 * repeat) and run completion. Zero-delay steps run synchronously; only webhook executions are async and
 * are collected on the `Job` so the caller can wait for them before replying.
 */
import { ACTIONS, ActionFailure, MAX_ATTEMPTS, RETRY_BACKOFF_MS, type ActionEnv } from './actions.ts';
import { channelKey, resolveProperty } from './contact-state.ts';
import { resolveCountdown } from './countdown.ts';
import { compileGraph, ruleBranches, type Graph } from './graph.ts';
import { compare, parseRuleProperty } from './properties.ts';
import { emptyStatistics } from './model.ts';
import type {
  ActionLogEntry, ActionSpec, ActionStatus, ElementStats, Run, StepOutcome, Timer, Workflow, WorkflowElement,
  WorkflowStatistics,
} from './model.ts';
import type { WorkflowStore } from './store.ts';

export interface Job { waits: Promise<void>[] }
export interface Clock { now(): number }

interface ExecOpts { scheduledAt: number; late: boolean; expiresAt: number | null; attempt: number }

export const isRunnable = (wf: Workflow): boolean => wf.enable && wf.status === 1 && !wf.deleted;

export class Runner {
  private readonly graphs = new Map<number, { revision: number; graph: Graph; els: Map<string, WorkflowElement> }>();
  /**
   * Set during a replicated management call: whether the workflow has runs in ANY partition (each partition
   * only sees its own), so that every partition takes the same save/409 decision. null: ask the store.
   */
  anyRuns: boolean | null = null;

  constructor(readonly st: WorkflowStore, readonly clock: Clock, readonly env: ActionEnv) {}

  graph(wf: Workflow): { graph: Graph; els: Map<string, WorkflowElement> } {
    const c = this.graphs.get(wf.id);
    if (c && c.revision === wf.revision) return c;
    const els = new Map<string, WorkflowElement>();
    for (const e of wf.workflowElements) if (!els.has(e.displayId)) els.set(e.displayId, e);
    const fresh = { revision: wf.revision, graph: compileGraph(wf.workflowElements), els };
    this.graphs.set(wf.id, fresh);
    return fresh;
  }

  stats(wfId: number): WorkflowStatistics {
    const k = String(wfId);
    let s = this.st.stats.get(k);
    if (!s) { s = emptyStatistics(); this.st.stats.set(k, s); } else this.st.stats.touch(k);
    return s;
  }

  elStats(wfId: number, displayId: string): ElementStats {
    const s = this.stats(wfId);
    return (s.elements[displayId] ??= { arrived: 0 });
  }

  bump(wfId: number, displayId: string, field: keyof ElementStats, by = 1): void {
    const e = this.elStats(wfId, displayId);
    e[field] = (e[field] ?? 0) + by;
  }

  step(run: Run, displayId: string, outcome: StepOutcome, reason?: string, detail?: unknown): void {
    const s: Run['steps'][number] = { runId: run.id, elementDisplayId: displayId, at: this.clock.now(), outcome };
    if (reason !== undefined) s.reason = reason;
    if (detail !== undefined) s.detail = detail;
    run.steps.push(s);
    this.st.runs.touch(run.id);
  }

  /** A run reaches an element; every caller holds `run.open` up while it traverses. */
  arrive(run: Run, wf: Workflow, displayId: string, job: Job): void {
    const el = this.graph(wf).els.get(displayId);
    if (!el || run.status !== 'active') return;
    run.open++;
    try {
      if (run.visited.includes(displayId)) { this.step(run, displayId, 'merged'); return; }
      run.visited.push(displayId);
      this.bump(wf.id, displayId, 'arrived');
      if (el.type === 'Event') {
        this.step(run, displayId, 'entered');
        this.followAll(run, wf, el, job);
      } else if (el.type === 'Rule') {
        this.arriveRule(run, wf, el, job);
      } else {
        this.arriveAction(run, wf, el, job);
      }
    } finally {
      run.open--;
      this.endIfDone(run);
    }
  }

  followAll(run: Run, wf: Workflow, el: WorkflowElement, job: Job): void {
    for (const o of el.outgoings) this.follow(run, wf, o, job);
  }

  follow(run: Run, wf: Workflow, path: string, job: Job): void {
    const targets = this.graph(wf).graph.targets.get(path);
    if (!targets) return;
    for (let i = 0; i < targets.length; i++) this.arrive(run, wf, targets[i], job);
  }

  private arriveRule(run: Run, wf: Workflow, el: WorkflowElement, job: Job): void {
    let ok = true;
    for (const p of el.properties) {
      const numeric = parseRuleProperty(p.name)?.numeric ?? false;
      if (!compare(resolveProperty(this.st, run.businessId, run.contactId, p.name), p.operation, p.value, numeric)) { ok = false; break; }
    }
    const outcome = ok ? 'yes' : 'no';
    const branches = ruleBranches(el);
    this.step(run, el.displayId, outcome);
    this.bump(wf.id, el.displayId, outcome);
    const path = ok ? branches.yes : branches.no;
    if (path) this.follow(run, wf, path, job);
  }

  private arriveAction(run: Run, wf: Workflow, el: WorkflowElement, job: Job): void {
    const a = el.action ?? NOOP;
    const now = this.clock.now();
    const expiresAt = a.within ? now + a.within : null;
    if (a.countdown) {
      const channelId = parseRuleProperty(a.countdown)!.channelId;
      const ch = run.businessId === null ? undefined : this.st.channels.get(channelKey(run.businessId, channelId));
      const res = resolveCountdown(ch === undefined ? undefined : ch.startTime, a.countdownValue ?? 0, now);
      if (res.kind === 'missing') { this.finalFailure(run, wf, el, 'CHANNEL_NOT_FOUND', 1, now); return; }
      if (res.kind === 'passed') { this.logSkip(run, wf, el, 'countdown_passed', now); return; }
      const fireAt = res.kind === 'wait' ? null : res.fireAt;
      if (res.kind === 'late' && !ASYNC_ACTIONS.has(a.action)) { this.execute(run, wf, el, { scheduledAt: now, late: true, expiresAt, attempt: 1 }, job); return; }
      const t = this.createTimer(run, wf, el, 'countdown', fireAt, expiresAt, { channelId, countdownValue: a.countdownValue ?? 0 });
      if (res.kind === 'late') this.fireNow(t, job);
      return;
    }
    const fireAt = now + (a.delay ?? 0);
    if (fireAt > now) { this.createTimer(run, wf, el, 'delay', fireAt, expiresAt, {}); return; }
    if (!ASYNC_ACTIONS.has(a.action)) { this.execute(run, wf, el, { scheduledAt: now, late: false, expiresAt, attempt: 1 }, job); return; }
    // An asynchronous execution goes through a timer record in state `running`, so that a crash before
    // it settles leaves a persisted trace and the call is retried on start-up (at least once, §13).
    this.fireNow(this.createTimer(run, wf, el, 'delay', fireAt, expiresAt, {}), job);
  }

  /** Set by the timer module: fires one timer immediately (avoids a module cycle). */
  fireNow: (t: Timer, job: Job) => void = () => { throw new Error('timer firing not wired'); };

  createTimer(run: Run, wf: Workflow, el: WorkflowElement, kind: Timer['kind'], fireAt: number | null, expiresAt: number | null,
    extra: { channelId?: string; countdownValue?: number; attempt?: number; arrivedAt?: number }): Timer {
    const now = this.clock.now();
    const t: Timer = {
      id: this.st.nextId('timer', 't'), runId: run.id, workflowId: wf.id, elementDisplayId: el.displayId, kind,
      arrivedAt: extra.arrivedAt ?? now, fireAt, expiresAt, businessId: run.businessId, state: 'pending',
      history: [{ at: now, fireAt, reason: kind === 'retry' ? 'retry' : 'scheduled' }],
    };
    if (extra.channelId !== undefined) t.channelId = extra.channelId;
    if (extra.countdownValue !== undefined) t.countdownValue = extra.countdownValue;
    if (extra.attempt !== undefined) t.attempt = extra.attempt;
    this.st.timers.set(t.id, t);
    this.st.indexNewTimer(t, run);
    run.open++;
    this.step(run, el.displayId, 'scheduled', kind === 'retry' ? 'retry' : undefined, { timerId: t.id, kind, fireAt });
    this.bump(wf.id, el.displayId, 'waiting');
    return t;
  }

  /** Fire-time checks and the handler call (§6 step 2). */
  execute(run: Run, wf: Workflow, el: WorkflowElement, o: ExecOpts, job: Job, onSettled?: () => void): 'done' | 'expired' | 'skipped' | 'async' {
    const a = el.action ?? NOOP;
    const now = this.clock.now();
    if (o.expiresAt !== null && now > o.expiresAt) {
      this.log(run, wf, el, 'expired', { reason: 'within', attempt: o.attempt, scheduledAt: o.scheduledAt, late: o.late });
      this.step(run, el.displayId, 'expired');
      this.bump(wf.id, el.displayId, 'expired');
      return 'expired';
    }
    if (a.rule) {
      const numeric = parseRuleProperty(a.rule)?.numeric ?? false;
      const v = resolveProperty(this.st, run.businessId, run.contactId, a.rule);
      if (!compare(v, a.ruleOperation ?? 'in', a.ruleValue ?? '', numeric)) { this.logSkip(run, wf, el, 'rule', o.scheduledAt); return 'skipped'; }
    }
    if (!a.repeat && this.st.succeeded(run.workflowId, run.businessId, run.contactId, el.displayId)) {
      this.logSkip(run, wf, el, 'repeat', o.scheduledAt);
      this.followAll(run, wf, el, job);
      return 'skipped';
    }
    const ctx = {
      workflowId: wf.id, runId: run.id, elementDisplayId: el.displayId, businessId: run.businessId,
      contactId: run.contactId, now, idempotencyKey: `${run.id}:${el.displayId}`, actionValue: a.actionValue,
    };
    let result: unknown;
    try { result = ACTIONS[a.action].execute(ctx, this.env); } catch (err) { this.onFailure(run, wf, el, o, err); return 'done'; }
    if (!(result instanceof Promise)) { this.onSuccess(run, wf, el, o, result, job); return 'done'; }
    run.open++;
    // The run object is used again when the call settles: keep it the one `get` returns meanwhile.
    this.st.runs.pin(run.id, run);
    job.waits.push(result.then(
      (v) => { if (run.status === 'active') this.onSuccess(run, wf, el, o, v, job); },
      (err) => { if (run.status === 'active') this.onFailure(run, wf, el, o, err); },
    ).finally(() => { onSettled?.(); run.open--; this.endIfDone(run); this.st.runs.unpin(run.id); }));
    return 'async';
  }

  private onSuccess(run: Run, wf: Workflow, el: WorkflowElement, o: ExecOpts, result: unknown, job: Job): void {
    this.log(run, wf, el, 'succeeded', { attempt: o.attempt, scheduledAt: o.scheduledAt, late: o.late, result, executedAt: this.clock.now() });
    this.step(run, el.displayId, 'executed', undefined, o.late ? { late: true } : undefined);
    this.bump(wf.id, el.displayId, 'executed');
    run.open++;
    try { this.followAll(run, wf, el, job); } finally { run.open--; }
  }

  private onFailure(run: Run, wf: Workflow, el: WorkflowElement, o: ExecOpts, err: unknown): void {
    const f = err instanceof ActionFailure ? err : new ActionFailure((err as Error)?.message ?? String(err), false);
    if (f.retryable && o.attempt < MAX_ATTEMPTS) {
      const fireAt = this.clock.now() + RETRY_BACKOFF_MS[o.attempt - 1];
      this.createTimer(run, wf, el, 'retry', fireAt, o.expiresAt, { attempt: o.attempt + 1, arrivedAt: o.scheduledAt });
      return;
    }
    this.finalFailure(run, wf, el, f.message, o.attempt, o.scheduledAt, f.result);
  }

  finalFailure(run: Run, wf: Workflow, el: WorkflowElement, reason: string, attempt: number, scheduledAt: number, result?: unknown): void {
    this.log(run, wf, el, 'failed', { reason, attempt, scheduledAt, executedAt: this.clock.now(), result });
    this.step(run, el.displayId, 'failed', reason);
    this.bump(wf.id, el.displayId, 'failed');
    run.failed = true;
  }

  logSkip(run: Run, wf: Workflow, el: WorkflowElement, reason: string, scheduledAt: number): void {
    this.log(run, wf, el, 'skipped', { reason, attempt: 1, scheduledAt });
    this.step(run, el.displayId, 'skipped', reason);
    this.bump(wf.id, el.displayId, 'skipped');
  }

  log(run: Run, wf: Workflow, el: WorkflowElement | { displayId: string; action: ActionSpec | null }, status: ActionStatus,
    o: { reason?: string; attempt: number; scheduledAt: number; late?: boolean; result?: unknown; executedAt?: number }): ActionLogEntry {
    const a = el.action ?? NOOP;
    const e: ActionLogEntry = {
      id: this.st.nextId('action', 'a'), workflowId: wf.id, runId: run.id, elementDisplayId: el.displayId,
      businessId: run.businessId, contactId: run.contactId, action: a.action, actionValue: a.actionValue, status,
      attempt: o.attempt, idempotencyKey: `${run.id}:${el.displayId}`, scheduledAt: o.scheduledAt,
      executedAt: o.executedAt ?? (status === 'succeeded' || status === 'failed' ? this.clock.now() : null),
    };
    if (o.reason !== undefined) e.reason = o.reason;
    if (o.late) e.late = true;
    if (o.result !== undefined) e.result = o.result;
    this.st.actionLog.set(e.id, e);
    this.st.indexAction(e, run);
    return e;
  }

  /** Ends the run once nothing is open: failed > cancelled > completed. */
  endIfDone(run: Run): void {
    if (run.status !== 'active' || run.open > 0) return;
    this.finishRun(run, run.failed ? 'failed' : run.cancelledBranch ? 'cancelled' : 'completed');
  }

  finishRun(run: Run, status: 'completed' | 'failed' | 'cancelled', reason?: string): void {
    run.status = status;
    run.endedAt = this.clock.now();
    if (reason) run.reason = reason;
    this.st.runs.touch(run.id);
    const s = this.stats(run.workflowId);
    s.active--;
    s[status]++;
    this.st.runEnded(run);
  }
}

/** Handlers whose execution leaves the process (and is awaited). */
const ASYNC_ACTIONS: ReadonlySet<string> = new Set(['webhook']);

const NOOP: ActionSpec = {
  action: 'noop', actionValue: null, delay: null, within: null, rule: null, ruleValue: null, ruleOperation: null,
  repeat: true, countdown: null, countdownValue: null,
};
