/**
 * Workflow and channel management (spec §10, §11): save (create/upsert/update with edit rules), stop,
 * soft delete, enable/disable, and the business-service channel API with countdown rescheduling.
 */
import { ConflictError, InvalidArgumentError, NotFoundError } from '../errors.ts';
import { channelKey } from './contact-state.ts';
import { checkGraph } from './graph.ts';
import { wfError } from './properties.ts';
import { parseWorkflowInput } from './validate.ts';
import { LIVE_STATUSES, type Channel, type LiveStatus, type Workflow, type WorkflowElement } from './model.ts';
import { isRunnable, type Job, type Runner } from './runner.ts';
import { cancelRun, cancelTimer, releaseHeld, rescheduleChannel } from './timers.ts';
import { countdownPrefix } from './store.ts';

export function getWorkflow(r: Runner, id: number): Workflow {
  const wf = r.st.workflows.get(String(id));
  if (!wf || wf.deleted) throw NotFoundError.of('WF_NOT_FOUND', [id], { id });
  return wf;
}

export function saveWorkflow(r: Runner, body: unknown, job: Job): { workflow: Workflow; warnings: string[] } {
  precheckConflict(r, body);
  const input = parseWorkflowInput(body);
  const check = checkGraph(input.elements);
  if ((input.status === 1 || input.enable) && check.errors.length) {
    throw wfError('WF_GRAPH_INVALID', `${check.errors[0].path}: ${check.errors[0].message}`, check.errors[0].path);
  }
  const existing = input.id === null ? undefined : r.st.workflows.get(String(input.id));
  if (existing?.deleted) throw NotFoundError.of('WF_NOT_FOUND', [input.id], { id: input.id });
  if (existing) checkUpdate(r, existing, input.version, input.businessId, input.status);
  const now = r.clock.now();
  const id = input.id ?? r.st.nextNumber('workflow');
  if (input.id !== null) r.st.bumpNumber('workflow', input.id);
  const oldIds = new Map((existing?.workflowElements ?? []).map((e) => [e.displayId, e.id] as const));
  const elements: WorkflowElement[] = input.elements.map((e) => {
    const elId = oldIds.get(e.displayId) ?? r.st.nextNumber('element');
    return {
      id: elId, displayId: e.displayId, workflowId: id, type: e.type, metaString: e.metaString,
      incomings: e.incomings, outgoings: e.outgoings, extensions: e.extensions, action: e.action,
      properties: e.properties.map((p) => ({ id: r.st.nextNumber('property'), elementId: elId, name: p.name, operation: p.operation, value: p.value })),
    };
  });
  const wf: Workflow = {
    id, platId: input.platId, businessId: input.businessId, type: input.type, title: input.title, description: input.description,
    target: input.target, workflowElements: elements, oneOff: input.oneOff, enable: input.enable, status: input.status,
    createdBy: input.createdBy, version: input.version, createdDate: existing?.createdDate ?? now, lastUpdate: now,
    properties: input.properties, revision: (existing?.revision ?? 0) + 1, deleted: false,
  };
  r.st.workflows.set(String(id), wf);
  r.stats(id);
  if (existing) afterUpdate(r, existing, wf, job);
  return { workflow: wf, warnings: check.warnings };
}

/** Identity changes of a workflow with runs are a conflict whatever else is wrong with the body (409 first). */
function precheckConflict(r: Runner, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const b = body as { id?: unknown; version?: unknown; businessId?: unknown; status?: unknown };
  if (typeof b.id !== 'number') return;
  const old = r.st.workflows.get(String(b.id));
  if (!old || old.deleted) return;
  checkUpdate(r, old, (b.version ?? 0) as 0 | 1, (b.businessId ?? null) as number | null, (b.status ?? 0) as number);
}

function checkUpdate(r: Runner, old: Workflow, version: 0 | 1, businessId: number | null, status: number): void {
  const hasRuns = r.anyRuns ?? r.st.hasRuns(old.id);
  if (hasRuns && (old.version !== version || old.businessId !== businessId)) {
    throw ConflictError.of('WF_CONFLICT', ['version and businessId cannot change once the workflow has runs'], { id: old.id });
  }
  if (old.status === 2 && status !== 2) throw ConflictError.of('WF_CONFLICT', ['a stopped workflow (status=2) cannot be reactivated'], { id: old.id });
}

/** Edit rules: removed elements cancel the runs waiting on them; stop cancels all; enable releases held timers. */
function afterUpdate(r: Runner, old: Workflow, wf: Workflow, job: Job): void {
  if (wf.status === 2 && old.status !== 2) { cancelAll(r, wf, 'stopped'); return; }
  const keep = new Set(wf.workflowElements.map((e) => e.displayId));
  for (const runId of r.st.activeRunIds(wf.id, Infinity)) {
    const run = r.st.runs.get(runId);
    if (!run || run.status !== 'active') continue;
    const waiting = r.st.openTimersOf(run).some((t) => !keep.has(t.elementDisplayId));
    if (waiting) cancelRun(r, run, 'element_removed');
  }
  if (isRunnable(wf)) releaseHeld(r, wf, job);
}

export function cancelAll(r: Runner, wf: Workflow, reason: string): { cancelledRuns: number; cancelledTimers: number } {
  let cancelledRuns = 0, cancelledTimers = 0;
  for (const runId of r.st.activeRunIds(wf.id, Infinity)) {
    const run = r.st.runs.get(runId);
    if (!run || run.status !== 'active') continue;
    cancelledTimers += cancelRun(r, run, reason);
    cancelledRuns++;
  }
  return { cancelledRuns, cancelledTimers };
}

export function deleteWorkflow(r: Runner, id: number): { id: number; cancelledRuns: number; cancelledTimers: number } {
  const wf = getWorkflow(r, id);
  const out = cancelAll(r, wf, 'deleted');
  wf.deleted = true;
  wf.lastUpdate = r.clock.now();
  r.st.workflows.touch(String(id));
  return { id, ...out };
}

export function setEnable(r: Runner, id: number, enable: boolean, job: Job): Workflow {
  const wf = getWorkflow(r, id);
  if (wf.enable === enable) return wf;
  if (enable) {
    const check = checkGraph(wf.workflowElements);
    if (check.errors.length) throw wfError('WF_GRAPH_INVALID', `${check.errors[0].path}: ${check.errors[0].message}`, check.errors[0].path);
  }
  wf.enable = enable;
  wf.lastUpdate = r.clock.now();
  r.st.workflows.touch(String(id));
  if (isRunnable(wf)) releaseHeld(r, wf, job);
  return wf;
}

// ── channels ───────────────────────────────────────────────────────────────

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (path: string, msg: string) => new InvalidArgumentError('WF_VALIDATION', `${path} ${msg}`, { path });

interface ChannelFields { name?: string; liveStatus?: LiveStatus; watchUrl?: string | null; startTime?: number | null; status?: number }

function channelFields(b: Record<string, unknown>): ChannelFields {
  const f: ChannelFields = {};
  if (b.name !== undefined) { if (typeof b.name !== 'string') throw bad('name', 'must be a string'); f.name = b.name; }
  if (b.liveStatus !== undefined) {
    if (!(LIVE_STATUSES as readonly unknown[]).includes(b.liveStatus)) throw bad('liveStatus', `must be one of ${LIVE_STATUSES.join(', ')}`);
    f.liveStatus = b.liveStatus as LiveStatus;
  }
  if (b.watchUrl !== undefined) { if (b.watchUrl !== null && typeof b.watchUrl !== 'string') throw bad('watchUrl', 'must be a string or null'); f.watchUrl = b.watchUrl as string | null; }
  if (b.startTime !== undefined) {
    if (b.startTime !== null && (typeof b.startTime !== 'number' || !Number.isSafeInteger(b.startTime) || b.startTime < 0)) throw bad('startTime', 'must be an integer >= 0 or null');
    f.startTime = b.startTime as number | null;
  }
  if (b.status !== undefined) { if (typeof b.status !== 'number' || !Number.isSafeInteger(b.status)) throw bad('status', 'must be an integer'); f.status = b.status; }
  return f;
}

export function getChannel(r: Runner, businessId: number, channelId: string): Channel {
  const ch = r.st.channels.get(channelKey(businessId, channelId));
  if (!ch) throw NotFoundError.of('WF_CHANNEL_NOT_FOUND', [channelId, businessId], { channelId, businessId });
  return ch;
}

export function upsertChannel(r: Runner, body: unknown, job: Job): Channel {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const businessId = body.businessId;
  if (typeof businessId !== 'number' || !Number.isSafeInteger(businessId) || businessId <= 0) throw bad('businessId', 'must be a positive integer');
  const channelId = typeof body.channelId === 'number' ? String(body.channelId) : body.channelId;
  if (typeof channelId !== 'string' || channelId === '') throw bad('channelId', 'must be a non-empty string');
  const f = channelFields(body);
  const existing = r.st.channels.get(channelKey(businessId, channelId));
  if (existing) return applyChannel(r, existing, f, job);
  const now = r.clock.now();
  const ch: Channel = {
    id: r.st.nextNumber('channel'), businessId, channelId, name: f.name ?? channelId, liveStatus: f.liveStatus ?? 'unStart',
    watchUrl: f.watchUrl ?? null, startTime: f.startTime ?? null, status: f.status ?? 1, createTime: now, updateTime: now,
  };
  r.st.channels.set(channelKey(businessId, channelId), ch);
  return ch;
}

export function updateChannel(r: Runner, businessId: number, channelId: string, body: unknown, job: Job): Channel {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  return applyChannel(r, getChannel(r, businessId, channelId), channelFields(body), job);
}

export function setChannelStatus(r: Runner, businessId: number, channelId: string, body: unknown, job: Job): Channel {
  if (!isObj(body) || body.liveStatus === undefined) throw bad('liveStatus', 'is required');
  return applyChannel(r, getChannel(r, businessId, channelId), channelFields({ liveStatus: body.liveStatus }), job);
}

function applyChannel(r: Runner, ch: Channel, f: ChannelFields, job: Job): Channel {
  const startChanged = f.startTime !== undefined && f.startTime !== ch.startTime;
  Object.assign(ch, f);
  ch.updateTime = r.clock.now();
  r.st.channels.touch(channelKey(ch.businessId, ch.channelId));
  if (startChanged) rescheduleChannel(r, ch.businessId, ch.channelId, job);
  return ch;
}

export function deleteChannel(r: Runner, businessId: number, channelId: string): { channel: Channel; cancelledTimers: number } {
  const ch = getChannel(r, businessId, channelId);
  r.st.channels.delete(channelKey(businessId, channelId));
  let cancelledTimers = 0;
  for (const id of r.st.ids(r.st.countdowns, countdownPrefix(businessId, channelId), Infinity)) {
    const t = r.st.timers.get(id);
    if (!t || !cancelTimer(r, t, 'channel_deleted')) continue;
    cancelledTimers++;
    const run = r.st.runs.get(t.runId);
    if (run) { run.cancelledBranch = true; r.endIfDone(run); }
  }
  return { channel: ch, cancelledTimers };
}

export function listChannels(r: Runner, businessId: number): Channel[] {
  const out: Channel[] = [];
  for (const ch of r.st.channels.values()) if (ch.businessId === businessId) out.push(ch);
  return out.sort((a, b) => a.id - b.id);
}
