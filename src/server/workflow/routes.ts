/**
 * Routes of the workflow service (port 8080, spec §11). Each handler parses the body and path/query
 * parameters, then hands one typed operation to the workflow worker through `WorkflowClient`; inbound
 * events go through the WAL first (`client.ingest`). Replies use the `{success, error, data}` envelope.
 */
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { Params, Router } from '../router.ts';
import { InvalidArgumentError, type WireError } from '../../engine/errors.ts';
import { WorkflowClient } from './client.ts';
import { jsonStructureProblem, MAX_JSON_DEPTH } from '../../engine/codec/json-structure.ts';
import { durationMs } from '../flags.ts';
import type { WorkflowArgs, WorkflowOpName } from '../../workers/protocol.ts';
import { errorResponse, invalidJson, itemError } from './errors.ts';
import { workflowEnvelope } from './fallbacks.ts';
import { registerJourneyRoutes } from './journey-routes.ts';

type Handler = (req: HttpRequest, p: Params) => Promise<unknown>;

const bad = (path: string, msg: string) => new InvalidArgumentError('WF_VALIDATION', `${path} ${msg}`, { path });
class BodyError extends Error {}

function json(req: HttpRequest): unknown {
  const text = req.body.toString('utf8');
  if (text.trim() === '') throw new BodyError('the request body is empty; a JSON document is required');
  let v: unknown;
  try { v = JSON.parse(text); } catch (err) { throw new BodyError(`the request body is not valid JSON: ${(err as Error).message}`); }
  // The engine walks bodies recursively; past this depth it would overflow the stack instead of answering.
  // Each level takes at least one character, so a body no longer than the limit cannot exceed it (the
  // check's pass and its buffer cost an event as much as the parse).
  const problem = text.length <= MAX_JSON_DEPTH ? null : jsonStructureProblem(text, MAX_JSON_DEPTH, Infinity, false);
  if (problem?.kind === 'depth') throw new BodyError(`the request body is nested deeper than ${MAX_JSON_DEPTH} levels (line ${problem.line}, column ${problem.col})`);
  return v;
}

function posInt(v: string, name: string): number {
  if (!/^\d{1,15}$/.test(v) || Number(v) <= 0) throw bad(name, `must be a positive integer, got [${v}]`);
  return Number(v);
}

function optInt(q: URLSearchParams, name: string, min = 0): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d{1,15}$/.test(v) || Number(v) < min) throw bad(name, `must be an integer >= ${min}, got [${v}]`);
  return Number(v);
}

function optBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (v !== 'true' && v !== 'false') throw bad(name, `must be true or false, got [${v}]`);
  return v === 'true';
}

const optStr = (q: URLSearchParams, name: string): string | undefined => q.get(name) || undefined;

/** Listing pages (runs, action log, outbox): `page` and `size`, or the cursor `after` (last id of the previous page). */
const MAX_PAGE_SIZE = 10_000;
function paging(q: URLSearchParams): { page?: number; size?: number; after?: string } {
  const size = optInt(q, 'size', 1);
  if (size !== undefined && size > MAX_PAGE_SIZE) throw bad('size', `must be <= ${MAX_PAGE_SIZE}`);
  return { page: optInt(q, 'page', 1), size, after: optStr(q, 'after') };
}

const answer = (data: unknown): HttpResponse => workflowEnvelope(200, '', data);
const failure = (err: unknown): HttpResponse => (err instanceof BodyError ? invalidJson(err.message) : errorResponse(err));

/** The envelope around a handler's answer or error (a handler may throw before its promise exists). */
function wrap(h: Handler): (req: HttpRequest, p: Params) => Promise<HttpResponse> {
  return (req, p) => {
    let out: Promise<unknown>;
    try { out = h(req, p); } catch (err) { return Promise.resolve(failure(err)); }
    return out.then(answer, failure);
  };
}

export function registerWorkflowRoutes(router: Router, ctx: ServerContext): ServiceHooks {
  const testClock = ctx.flags['workflow.test-clock'];
  const client = new WorkflowClient({
    dataDir: ctx.dataDir, testClock, walRepair: ctx.flags['wal.repair'], log: ctx.log, cacheEntries: ctx.flags['workflow.cache-entries'],
    retentionMs: durationMs(ctx.flags['workflow.retention']), partitions: ctx.flags['workflow.partitions'],
    allowPrivateWebhookTargets: ctx.flags['workflow.webhook.allow-private-targets'],
  });
  const add = (m: string, path: string, h: Handler): void => { router.add(m, path, wrap(h)); };
  const call = <K extends WorkflowOpName>(op: K, args: WorkflowArgs<K>) => client.call(op, args);
  const wfId = (p: Params) => posInt(p.id, 'id');
  const biz = (p: Params) => posInt(p.businessId, 'businessId');

  add('POST', '/workflow/manage', async (req) => {
    const out = await call('workflow.save', { body: json(req) }) as { workflow: Record<string, unknown>; warnings: string[] };
    return { ...out.workflow, warnings: out.warnings };
  });
  add('GET', '/workflow/manage', async (req) => {
    const q = req.query;
    const size = optInt(q, 'size', 1) ?? 20;
    if (size > 1000) throw bad('size', 'must be <= 1000');
    return call('workflow.list', {
      businessId: optInt(q, 'businessId'), platId: optStr(q, 'platId'), version: optInt(q, 'version'),
      enable: optBool(q, 'enable'), status: optInt(q, 'status'), page: optInt(q, 'page', 1) ?? 1, size,
    });
  });
  add('POST', '/workflow/manage/validate', async (req) => call('workflow.validate', { body: json(req) }));
  add('GET', '/workflow/manage/:id', async (_r, p) => call('workflow.get', { id: wfId(p) }));
  add('DELETE', '/workflow/manage/:id', async (_r, p) => call('workflow.delete', { id: wfId(p) }));
  add('POST', '/workflow/manage/:id/enable', async (_r, p) => call('workflow.enable', { id: wfId(p), enable: true }));
  add('POST', '/workflow/manage/:id/disable', async (_r, p) => call('workflow.enable', { id: wfId(p), enable: false }));
  add('GET', '/workflow/manage/:id/statistics', async (_r, p) => call('workflow.statistics', { id: wfId(p) }));
  add('GET', '/workflow/manage/:id/runs', async (req, p) => call('workflow.runs', {
    id: wfId(p), contactId: optStr(req.query, 'contactId'), status: optStr(req.query, 'status'), ...paging(req.query),
  }));
  add('GET', '/workflow/manage/:id/contacts/:contactId/journey', async (_r, p) => call('workflow.journey', { id: wfId(p), contactId: p.contactId }));
  add('GET', '/workflow/actions', async (req) => call('workflow.actions', {
    workflowId: optInt(req.query, 'workflowId'), contactId: optStr(req.query, 'contactId'), status: optStr(req.query, 'status'), ...paging(req.query),
  }));
  add('GET', '/workflow/outbox', async (req) => call('workflow.outbox', {
    businessId: optInt(req.query, 'businessId'), contactId: optStr(req.query, 'contactId'), ...paging(req.query),
  }));

  // Not async: the ingest's own promise is the answer (an async wrapper costs a promise and ticks per event).
  add('POST', '/rest/livestream/event', (req) => client.ingest('event', json(req)));
  add('POST', '/rest/livestream/events', async (req) => {
    const out = await client.ingest('events', json(req)) as { results: { success: boolean; error: WireError | ''; data: unknown }[] };
    return { results: out.results.map((r) => (r.success ? { success: true, error: '', data: r.data } : itemError(r.error as WireError))) };
  });
  add('POST', '/rest/livestream/viewlog', async (req) => {
    const out = await client.ingest('viewlog', json(req)) as { results: { playId: string; ok: boolean; error?: { code: string; message: string } }[] };
    return { results: out.results.map((r) => (r.ok ? { playId: r.playId, success: true, error: '' } : { playId: r.playId, success: false, error: `${r.error!.code}: ${r.error!.message}` })) };
  });
  add('GET', '/rest/livestream/state/:businessId/:contactId', async (req, p) => call('state', { businessId: biz(p), contactId: p.contactId, channelId: optStr(req.query, 'channelId'), raw: optBool(req.query, 'raw') }));

  add('GET', '/livestream/channels/businessId/:businessId', async (_r, p) => call('channels.list', { businessId: biz(p) }));
  add('POST', '/livestream/channels', async (req) => call('channels.upsert', { body: json(req) }));
  const chPath = '/livestream/channels/businessId/:businessId/channelId/:channelId';
  add('PUT', chPath, async (req, p) => call('channels.update', { businessId: biz(p), channelId: p.channelId, body: json(req) }));
  add('DELETE', chPath, async (_r, p) => call('channels.delete', { businessId: biz(p), channelId: p.channelId }));
  add('POST', `${chPath}/status`, async (req, p) => call('channels.status', { businessId: biz(p), channelId: p.channelId, body: json(req) }));

  add('GET', '/contacts/:businessId/:contactId/tags', async (_r, p) => call('contacts.tags', { businessId: biz(p), contactId: p.contactId }));
  add('GET', '/contacts/:businessId/:contactId', async (_r, p) => call('contacts.get', { businessId: biz(p), contactId: p.contactId }));
  add('GET', '/health', async () => call('health', {}));
  if (testClock) add('POST', '/__test__/clock', async (req) => call('clock', json(req)));
  registerJourneyRoutes(router);

  return {
    start: () => client.start(),
    stop: () => client.stop(),
  };
}
