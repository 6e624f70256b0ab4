/**
 * Retention of finished runs (spec §12 keeps counting them: statistics are counters, not scans). A run that
 * ended before the cut-off is deleted with its timers (all terminal by then) and its action-log entries,
 * found through the `runs_ended` index (ordered by end time), so a sweep touches only what it deletes.
 * Kept: run heads (entry numbers and `oneOff` need them), the repeat marks of succeeded actions (§6
 * "repeat" looks at any earlier run), the outbox (delivered messages) and the statistics.
 */
import { SEP, pad } from './space.ts';
import { WorkflowStore } from './store.ts';

/** Deletes up to `limit` runs that ended before `cutoffMs`; returns how many were deleted. */
export function sweepFinished(st: WorkflowStore, cutoffMs: number, limit: number): number {
  if (cutoffMs <= 0) return 0;
  const keys = st.runsEnded.scan('', pad(cutoffMs), limit);
  for (let i = 0; i < keys.length; i++) {
    st.runsEnded.remove(keys[i]);
    const id = WorkflowStore.lastPart(keys[i]);
    const run = st.runs.get(id);
    if (!run || run.status === 'active') continue;
    for (const t of st.timersOf(run)) {
      st.unindexTimer(t); // terminal timers have no state keys; a stray pending one must not fire later
      st.timers.delete(t.id);
    }
    for (const a of st.actionsOf(run)) {
      st.wfActions.remove(pad(a.workflowId) + SEP + a.id);
      st.contactActions.remove(a.contactId + SEP + a.id);
      st.actionLog.delete(a.id);
    }
    st.wfRuns.remove(pad(run.workflowId) + SEP + id);
    const head = st.head(run.workflowId, run.contactKey);
    if (head) {
      head.runs = head.runs.filter((x) => x !== id);
      st.runHeads.touch(run.workflowId + SEP + run.contactKey);
    }
    st.runs.delete(id);
  }
  return keys.length;
}
