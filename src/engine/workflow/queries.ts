/**
 * Read-only operations (spec §11): workflow fetch/list/statistics/runs/journey, action log, outbox,
 * contact state and tags, channel listing, dry-run validation, health.
 */
import { EngineError, InvalidArgumentError, toWire } from '../errors.ts';
import { contactKey, resolvedState, stateKey } from './contact-state.ts';
import { page, pageIds, type PageArgs } from './listing.ts';
import { contactKeyV1 } from './model.ts';
import { SEP, pad } from './space.ts';
import type { ActionLogEntry, OutboxMessage, Run } from './model.ts';
import { checkGraph } from './graph.ts';
import { getWorkflow, listChannels } from './manage.ts';
import { parseWorkflowInput } from './validate.ts';
import { checkViewlog } from './ingest.ts';
import type { Runner } from './runner.ts';
import { journey, renderRun, renderWorkflow, statistics } from './wire.ts';

type Query = (r: Runner, args: any) => unknown;

export interface ListArgs {
  businessId?: number; platId?: string; version?: number; enable?: boolean; status?: number; page: number; size: number;
}

export const QUERIES = {
  'workflow.get': (r: Runner, a: { id: number }) => renderWorkflow(r, getWorkflow(r, a.id)),
  'workflow.list': (r: Runner, a: ListArgs) => {
    const all = [...r.st.workflows.values()].filter((w) => !w.deleted
      && (a.businessId === undefined || w.businessId === a.businessId) && (a.platId === undefined || w.platId === a.platId)
      && (a.version === undefined || w.version === a.version) && (a.enable === undefined || w.enable === a.enable)
      && (a.status === undefined || w.status === a.status)).sort((x, y) => x.id - y.id);
    const items = all.slice((a.page - 1) * a.size, a.page * a.size).map((w) => renderWorkflow(r, w));
    return { items, total: all.length, page: a.page, size: a.size };
  },
  'workflow.statistics': (r: Runner, a: { id: number }) => statistics(r, getWorkflow(r, a.id)),
  'workflow.runs': (r: Runner, a: RunsArgs) => {
    const wf = getWorkflow(r, a.id);
    const w = pad(wf.id) + SEP;
    const st = r.st;
    const accept = (run: Run) => (a.contactId === undefined || run.contactId === a.contactId) && (a.status === undefined || run.status === a.status);
    const load = (id: string) => st.runs.get(id);
    if (a.contactId !== undefined) {
      // A contact's runs are listed in its run head (runs only exist for version-1 workflows: businessId is set).
      const head = wf.businessId === null ? undefined : st.head(wf.id, contactKeyV1(wf.businessId, a.contactId));
      return pageIds(head?.runs ?? [], a, load, accept).map((run) => renderRun(run, false));
    }
    return page(a.status === 'active' ? st.wfActive : st.wfRuns, w, a, load, accept).map((run) => renderRun(run, false));
  },
  'workflow.journey': (r: Runner, a: { id: number; contactId: string }) => journey(r, getWorkflow(r, a.id), a.contactId),
  'workflow.actions': (r: Runner, a: ActionsArgs) => {
    const st = r.st;
    // The most selective index: a contact's entries, else a workflow's, else all (grouped by workflow).
    const [ix, prefix] = a.contactId !== undefined ? [st.contactActions, a.contactId + SEP]
      : a.workflowId !== undefined ? [st.wfActions, pad(a.workflowId) + SEP] : [st.wfActions, ''];
    if (prefix === '' && a.after !== undefined) throw cursorNeedsFilter('workflowId or contactId');
    const accept = (e: ActionLogEntry) => (a.workflowId === undefined || e.workflowId === a.workflowId)
      && (a.contactId === undefined || e.contactId === a.contactId) && (a.status === undefined || e.status === a.status);
    return page(ix, prefix, a, (id) => st.actionLog.get(id), accept);
  },
  'workflow.outbox': (r: Runner, a: OutboxArgs) => {
    const st = r.st;
    const [ix, prefix] = a.contactId !== undefined ? [st.outboxByContact, a.contactId + SEP]
      : a.businessId !== undefined ? [st.outboxByBusiness, pad(a.businessId) + SEP] : [st.outboxByBusiness, ''];
    if (prefix === '' && a.after !== undefined) throw cursorNeedsFilter('businessId or contactId');
    const accept = (m: OutboxMessage) => (a.businessId === undefined || m.businessId === a.businessId) && (a.contactId === undefined || m.contactId === a.contactId);
    return page(ix, prefix, a, (id) => st.outbox.get(id), accept);
  },
  'workflow.validate': (_r: Runner, a: { body: unknown }) => {
    try {
      const input = parseWorkflowInput(a.body);
      const g = checkGraph(input.elements);
      const errors = g.errors.map((e) => ({ code: 'GRAPH_INVALID', message: e.message, path: e.path }));
      return { valid: errors.length === 0, errors, warnings: g.warnings };
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      const w = toWire(err);
      return { valid: false, errors: [{ code: w.code.replace(/^WF_/, ''), message: w.message, path: w.details.path ?? null }], warnings: [] };
    }
  },
  state: (r: Runner, a: { businessId: number; contactId: string; channelId?: string; raw?: boolean }) => {
    const channels = a.channelId !== undefined ? [a.channelId] : listChannels(r, a.businessId).map((c) => c.channelId);
    const out: Record<string, unknown> = {};
    for (const ch of channels) Object.assign(out, resolvedState(r.st, a.businessId, a.contactId, ch));
    if (!a.raw) return out;
    // `?raw=true`: the stored per-channel counters behind the properties (submit/apply counts included).
    const raw: Record<string, unknown> = {};
    for (const ch of channels) raw[ch] = r.st.contactState.get(stateKey(a.businessId, a.contactId, ch)) ?? null;
    return { ...out, contactChannelState: raw };
  },
  'channels.list': (r: Runner, a: { businessId: number }) => listChannels(r, a.businessId),
  'contacts.tags': (r: Runner, a: { businessId: number; contactId: string }) => r.st.contacts.get(contactKey(a.businessId, a.contactId))?.tags ?? [],
  'contacts.get': (r: Runner, a: { businessId: number; contactId: string }) => {
    const c = r.st.contacts.get(contactKey(a.businessId, a.contactId));
    return { businessId: a.businessId, contactId: a.contactId, tags: c?.tags ?? [], attributes: c?.attributes ?? {} };
  },
  health: (r: Runner, _a: Record<string, never>) => ({
    status: 'ok', workflows: r.st.workflows.size, now: r.clock.now(), ...r.st.figures(), commits: r.st.commitFigures(),
  }),
  /** Whether this partition has runs of the workflow (the server asks every partition before a save). */
  'workflow.hasRuns': (r: Runner, a: { id: number }) => r.st.hasRuns(a.id),
  /** Validates a viewlog body without applying it (the server checks before splitting it over partitions). */
  'viewlog.check': (_r: Runner, a: { body: unknown }) => { checkViewlog(a.body); return null; },
} satisfies Record<string, Query>;

export interface RunsArgs extends PageArgs { id: number; contactId?: string; status?: string }
export interface ActionsArgs extends PageArgs { workflowId?: number; contactId?: string; status?: string }
export interface OutboxArgs extends PageArgs { businessId?: number; contactId?: string }

const cursorNeedsFilter = (what: string) =>
  new InvalidArgumentError('WF_VALIDATION', `after (a cursor) needs a filter: ${what}`, { path: 'after' });
