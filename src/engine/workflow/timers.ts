/**
 * Timer transitions (spec §6, §7, §10, §13): firing (compare-and-set from `pending`), holding while the
 * workflow is not runnable, releasing held timers on enable, countdown rescheduling when a channel's
 * `startTime` changes, and cancellation. The persisted timer record is the source of truth; every state
 * change goes through `WorkflowStore.setTimerState`/`setTimerFireAt` so the on-disk indexes (`due`,
 * `held`, `countdowns`, `running`) follow it, and the wheel only says which record to look at next.
 */
import { channelKey } from './contact-state.ts';
import { resolveCountdown } from './countdown.ts';
import { isRunnable, type Job, type Runner } from './runner.ts';
import { SEP, pad } from './space.ts';
import { countdownPrefix } from './store.ts';
import type { Run, Timer, Workflow } from './model.ts';

/** The earliest pending timer with fireAt ≤ now, dropping stale wheel entries; null when none is due. */
export function nextDue(r: Runner, now: number): Timer | null {
  const w = r.st.wheel;
  for (;;) {
    const at = w.peekAt();
    if (at > now) return null;
    const id = w.peekId()!;
    w.pop();
    const t = r.st.timers.get(id);
    if (t && t.state === 'pending' && t.fireAt === at) return t;
  }
}

/** Earliest fire time among pending timers (stale wheel entries are dropped), or Infinity. */
export function earliestFireAt(r: Runner): number {
  const w = r.st.wheel;
  for (;;) {
    const at = w.peekAt();
    if (at === Infinity) return at;
    const t = r.st.timers.get(w.peekId()!);
    if (t && t.state === 'pending' && t.fireAt === at) return at;
    w.pop();
  }
}

function context(r: Runner, t: Timer): { run: Run; wf: Workflow } | null {
  const run = r.st.runs.get(t.runId);
  const wf = r.st.workflows.get(String(t.workflowId));
  if (!run || !wf || run.status !== 'active') return null;
  return { run, wf };
}

/** Wires immediate firing into the runner (the runner cannot import this module: cycle). */
export function wireTimers(r: Runner): void {
  r.fireNow = (t, job) => fireTimer(r, t, job);
}

/** A pending timer came due: hold it if the workflow is paused, else run it. */
export function fireTimer(r: Runner, t: Timer, job: Job): void {
  if (t.state !== 'pending') return;
  const c = context(r, t);
  if (!c) { cancelTimer(r, t, 'run_ended'); return; }
  if (!isRunnable(c.wf)) {
    r.st.setTimerState(t, 'held');
    r.bump(t.workflowId, t.elementDisplayId, 'waiting', -1);
    r.bump(t.workflowId, t.elementDisplayId, 'held');
    r.step(c.run, t.elementDisplayId, 'held', 'disabled');
    return;
  }
  r.bump(t.workflowId, t.elementDisplayId, 'waiting', -1);
  runTimer(r, t, c.run, c.wf, job);
}

/** Executes a timer whose state is pending or held; the countdown "passed" rule is re-checked here. */
function runTimer(r: Runner, t: Timer, run: Run, wf: Workflow, job: Job): void {
  const now = r.clock.now();
  const st = r.st;
  st.setTimerState(t, 'running');
  const el = r.graph(wf).els.get(t.elementDisplayId);
  if (!el) { st.setTimerState(t, 'cancelled'); run.open--; r.endIfDone(run); return; }
  if (t.kind === 'countdown' && t.businessId !== null) {
    const ch = st.channels.get(channelKey(t.businessId, t.channelId!));
    if (!ch) { st.setTimerState(t, 'done'); r.finalFailure(run, wf, el, 'CHANNEL_NOT_FOUND', 1, t.arrivedAt); return end(r, run); }
    if (ch.startTime !== null && ch.startTime <= now) { st.setTimerState(t, 'skipped'); r.logSkip(run, wf, el, 'countdown_passed', t.arrivedAt); return end(r, run); }
  }
  const late = t.fireAt !== null && now > t.fireAt;
  const outcome = r.execute(run, wf, el, { scheduledAt: t.arrivedAt, late, expiresAt: t.expiresAt, attempt: t.attempt ?? 1 }, job,
    () => st.setTimerState(t, 'done'));
  // An asynchronous execution leaves the timer `running` (persisted: a crash retries the call on start-up).
  if (outcome !== 'async') st.setTimerState(t, outcome);
  end(r, run);
}

function end(r: Runner, run: Run): void {
  run.open--;
  r.endIfDone(run);
}

/** On enable: every held timer of the workflow runs now, in fireAt order. */
export function releaseHeld(r: Runner, wf: Workflow, job: Job): void {
  const ids = r.st.ids(r.st.held, pad(wf.id) + SEP, Infinity);
  const held = ids.map((id) => r.st.timers.get(id)!).filter((t) => t && t.state === 'held');
  held.sort((a, b) => (a.fireAt ?? 0) - (b.fireAt ?? 0));
  for (const t of held) {
    const c = context(r, t);
    r.bump(t.workflowId, t.elementDisplayId, 'held', -1);
    if (!c) { r.st.setTimerState(t, 'cancelled'); continue; }
    runTimer(r, t, c.run, c.wf, job);
  }
}

/** Recomputes every pending/held countdown of a channel after its startTime changed (§7). */
export function rescheduleChannel(r: Runner, businessId: number, channelId: string, job: Job): number {
  const ids = r.st.ids(r.st.countdowns, countdownPrefix(businessId, channelId), Infinity);
  const timers = ids.map((id) => r.st.timers.get(id)!).filter((t) => t && (t.state === 'pending' || t.state === 'held'));
  const ch = r.st.channels.get(channelKey(businessId, channelId));
  const now = r.clock.now();
  for (const t of timers) {
    const c = context(r, t);
    if (!c) continue;
    const res = resolveCountdown(ch ? ch.startTime : undefined, t.countdownValue ?? 0, now);
    const fireAt = res.kind === 'at' || res.kind === 'late' ? res.fireAt : null;
    t.history.push({ at: now, fireAt, reason: 'startTime_changed' });
    r.st.timers.touch(t.id);
    r.step(c.run, t.elementDisplayId, 'rescheduled', 'startTime_changed', { timerId: t.id, fireAt });
    if (res.kind === 'missing') { cancelTimer(r, t, 'channel_deleted'); continue; }
    const wasHeld = t.state === 'held';
    if (res.kind === 'passed') {
      r.bump(t.workflowId, t.elementDisplayId, wasHeld ? 'held' : 'waiting', -1);
      r.st.setTimerState(t, 'skipped');
      const el = r.graph(c.wf).els.get(t.elementDisplayId);
      if (el) r.logSkip(c.run, c.wf, el, 'countdown_passed', t.arrivedAt);
      end(r, c.run);
      continue;
    }
    r.st.setTimerFireAt(t, fireAt);
    if (wasHeld && res.kind === 'late') continue; // still due while paused: stays held
    if (wasHeld) {
      r.bump(t.workflowId, t.elementDisplayId, 'held', -1);
      r.bump(t.workflowId, t.elementDisplayId, 'waiting');
      r.st.setTimerState(t, 'pending');
    }
    if (res.kind === 'late') fireTimer(r, t, job);
  }
  return timers.length;
}

/** Cancels one pending/held timer; the run's open count drops with it. */
export function cancelTimer(r: Runner, t: Timer, reason: string): boolean {
  if (t.state !== 'pending' && t.state !== 'held') return false;
  const wasHeld = t.state === 'held';
  r.st.setTimerState(t, 'cancelled');
  t.history.push({ at: r.clock.now(), fireAt: t.fireAt, reason });
  r.bump(t.workflowId, t.elementDisplayId, wasHeld ? 'held' : 'waiting', -1);
  const run = r.st.runs.get(t.runId);
  const wf = r.st.workflows.get(String(t.workflowId));
  if (run && wf && run.status === 'active') {
    const el = r.graph(wf).els.get(t.elementDisplayId) ?? { displayId: t.elementDisplayId, action: null };
    r.log(run, wf, el, 'cancelled', { reason, attempt: t.attempt ?? 1, scheduledAt: t.arrivedAt });
    r.step(run, t.elementDisplayId, 'cancelled', reason);
    run.open--;
  }
  return true;
}

/** Cancels a run with all its timers; returns how many timers were cancelled. */
export function cancelRun(r: Runner, run: Run, reason: string): number {
  let n = 0;
  for (const t of r.st.openTimersOf(run)) if (cancelTimer(r, t, reason)) n++;
  if (run.status === 'active') r.finishRun(run, 'cancelled', reason);
  return n;
}

/** Start-up: a call that was in flight when the process died runs again (external effects are at least once). */
export function recoverRunning(r: Runner): number {
  const ids = r.st.running.scan('', '\uffff', Infinity);
  for (const id of ids) {
    const t = r.st.timers.get(id);
    if (!t || t.state !== 'running') { r.st.running.remove(id); continue; }
    t.history.push({ at: t.fireAt ?? 0, fireAt: t.fireAt, reason: 'restarted' });
    r.st.setTimerState(t, 'pending');
    r.bump(t.workflowId, t.elementDisplayId, 'waiting');
  }
  return ids.length;
}
