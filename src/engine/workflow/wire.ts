/**
 * Output shapes: workflows with their JSON-string fields rendered back as strings (as the note sends
 * them), statistics with every element listed, runs, journeys. Pure functions over the store.
 */
import type { Runner } from './runner.ts';
import type { ElementStats, Run, Timer, Workflow, WorkflowStatistics } from './model.ts';
import { contactKeyV1, emptyStatistics } from './model.ts';

export function statistics(r: Runner, wf: Workflow): WorkflowStatistics {
  const s = r.st.stats.get(String(wf.id)) ?? emptyStatistics();
  const elements: Record<string, ElementStats> = {};
  for (const e of wf.workflowElements) {
    const have = s.elements[e.displayId] ?? { arrived: 0 };
    const out: ElementStats = { arrived: have.arrived };
    if (e.type === 'Rule') { out.yes = have.yes ?? 0; out.no = have.no ?? 0; }
    if (e.type === 'Action') {
      for (const k of ['executed', 'skipped', 'expired', 'failed', 'waiting', 'held'] as const) out[k] = have[k] ?? 0;
    }
    elements[e.displayId] = out;
  }
  return { ...s, entryRejected: { ...s.entryRejected }, elements };
}

export function renderWorkflow(r: Runner, wf: Workflow): Record<string, unknown> {
  return {
    id: wf.id, platId: wf.platId, businessId: wf.businessId, type: wf.type, title: wf.title, description: wf.description,
    target: JSON.stringify(wf.target),
    workflowElements: wf.workflowElements.map((e) => ({
      id: e.id, displayId: e.displayId, workflowId: e.workflowId, type: e.type, metaString: e.metaString,
      incomings: JSON.stringify(e.incomings), outgoings: JSON.stringify(e.outgoings),
      properties: e.properties.map((p) => ({ id: p.id, elementId: p.elementId, name: p.name, operation: p.operation, value: p.value })),
      extensions: e.extensions === null || e.extensions === undefined ? null : JSON.stringify(e.extensions),
    })),
    statistics: statistics(r, wf), oneOff: wf.oneOff, enable: wf.enable, status: wf.status, createdBy: wf.createdBy,
    version: wf.version, createdDate: wf.createdDate, lastUpdate: wf.lastUpdate, properties: wf.properties, revision: wf.revision,
  };
}

export function renderRun(run: Run, withSteps: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: run.id, workflowId: run.workflowId, contactKey: run.contactKey, businessId: run.businessId, contactId: run.contactId,
    entryNo: run.entryNo, status: run.status, triggerEventId: run.triggerEventId, startedAt: run.startedAt, endedAt: run.endedAt,
  };
  if (run.reason) out.reason = run.reason;
  if (withSteps) out.steps = run.steps;
  return out;
}

export function renderTimer(t: Timer): Record<string, unknown> {
  const { businessId: _b, ...rest } = t;
  return rest;
}

/** Per-contact inspection: runs (entry order) with steps, chosen branches, timers and action-log entries. */
export interface Journey { workflowId: number; contactId: string; runs: Record<string, unknown>[]; pendingTimers: Timer[] }

export function journey(r: Runner, wf: Workflow, contactId: string): Journey {
  const runs: Record<string, unknown>[] = [];
  const st = r.st;
  const head = wf.businessId === null ? undefined : st.head(wf.id, contactKeyV1(wf.businessId, contactId));
  for (const id of head?.runs ?? []) {
    const run = st.runs.get(id);
    if (!run || run.contactId !== contactId) continue;
    const timers = st.timersOf(run);
    const actions = st.actionsOf(run);
    const branches = run.steps.filter((s) => s.outcome === 'yes' || s.outcome === 'no').map((s) => ({ elementDisplayId: s.elementDisplayId, branch: s.outcome }));
    runs.push({ ...renderRun(run, true), branches, timers: timers.map(renderTimer), actions });
  }
  runs.sort((a, b) => (a.entryNo as number) - (b.entryNo as number));
  const pendingTimers = runs.flatMap((x) => (x.timers as Timer[]).filter((t) => t.state === 'pending' || t.state === 'held'));
  return { workflowId: wf.id, contactId, runs, pendingTimers };
}
