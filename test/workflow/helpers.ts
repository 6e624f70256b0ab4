/**
 * Helpers for the workflow end-to-end tests: a child server with the test clock, a tiny JSON client, and
 * builders for the spec's element shorthand (`E(ch,type)`, rules, `A(x)`).
 */
import { startServer, type TestServer } from '../support/server.ts';

export interface Reply<T = any> { status: number; body: { success: boolean; error: string; data: T } }

export interface Flow {
  server: TestServer;
  api<T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>>;
  /** Sends a raw body string (bad-input tests). */
  raw(method: string, path: string, body: string): Promise<Reply>;
  clock(arg: { set?: number; advance?: number }): Promise<number>;
  now(): Promise<number>;
}

export function client(server: TestServer): Flow {
  const raw = async (method: string, path: string, body?: string): Promise<Reply> => {
    const r = await fetch(server.flowUrl + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body });
    const text = await r.text();
    let parsed: any;
    try { parsed = JSON.parse(text); } catch { parsed = { success: false, error: `non-JSON reply: ${text}`, data: null }; }
    return { status: r.status, body: parsed };
  };
  const f: Flow = {
    server,
    api: (method, path, body) => raw(method, path, body === undefined ? undefined : JSON.stringify(body)),
    raw,
    clock: async (arg) => {
      const r = await raw('POST', '/__test__/clock', JSON.stringify(arg));
      if (r.status !== 200) throw new Error(`clock: ${r.status} ${r.body.error}`);
      return r.body.data.now as number;
    },
    now: async () => (await raw('GET', '/health')).body.data.now as number,
  };
  return f;
}

export async function startFlow(extraArgs: string[] = []): Promise<Flow> {
  // Webhook receivers in tests listen on loopback, which production nodes refuse (see webhook-target.ts).
  // Two partitions whatever the machine's default, so routing, replication and merging are always covered.
  return client(await startServer({ services: ['workflow'], args: ['--workflow.test-clock', '--workflow.webhook.allow-private-targets', '--workflow.partitions', '2', ...extraArgs] }));
}

export const H = 3_600_000;
export const M = 60_000;

export function E(ch: string, type: string, displayId = 'block-e1', outgoings: string[] = ['path-1']): Record<string, unknown> {
  return {
    displayId, type: 'Event', metaString: '{"x":1}', incomings: '[]', outgoings: JSON.stringify(outgoings),
    properties: [
      { name: 'event', operation: 'in', value: 'livestream' },
      { name: 'eventValue', operation: 'in', value: `livestream-${type}-${ch}` },
    ],
  };
}

export function R(displayId: string, props: [string, string, string][], incomings: string[], outgoings: string[], ext?: unknown): Record<string, unknown> {
  return {
    displayId, type: 'Rule', metaString: '', incomings: JSON.stringify(incomings), outgoings: JSON.stringify(outgoings),
    properties: props.map(([name, operation, value]) => ({ name, operation, value })),
    ...(ext === undefined ? {} : { extensions: JSON.stringify(ext) }),
  };
}

export function A(displayId: string, ext: Record<string, unknown>, incomings: string[], outgoings: string[] = []): Record<string, unknown> {
  return {
    displayId, type: 'Action', metaString: '', incomings: JSON.stringify(incomings), outgoings: JSON.stringify(outgoings),
    properties: [], extensions: JSON.stringify(ext),
  };
}

export function workflow(businessId: number, elements: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1, businessId, platId: null, type: 1, title: 'scenario', description: null, target: '{"type":"all"}',
    workflowElements: elements, statistics: null, oneOff: false, enable: true, status: 1, createdBy: 'test',
    properties: null, ...extra,
  };
}

/** Creates ch1 and ch2 for a business with startTime = t0 + 2h, as in the spec's shared setup. */
export async function channels(f: Flow, businessId: number, t0: number, liveStatus = 'unStart'): Promise<void> {
  for (const channelId of ['ch1', 'ch2']) {
    const r = await f.api('POST', '/livestream/channels', { businessId, channelId, name: 'Demo', liveStatus, startTime: t0 + 2 * H, status: 1 });
    if (r.status !== 200) throw new Error(`channel setup: ${r.body.error}`);
  }
}

export async function save(f: Flow, body: Record<string, unknown>): Promise<number> {
  const r = await f.api('POST', '/workflow/manage', body);
  if (r.status !== 200) throw new Error(`save: ${r.status} ${r.body.error}`);
  return r.body.data.id as number;
}

export async function event(f: Flow, body: Record<string, unknown>): Promise<Reply> {
  return f.api('POST', '/rest/livestream/event', body);
}

/** Each scenario runs on its own business id and one day after the previous clock (timers of others are harmless). */
let nextBusiness = 170;
export async function scenario(f: Flow): Promise<{ b: number; t0: number }> {
  const t0 = (await f.now()) + 24 * H;
  await f.clock({ set: t0 });
  return { b: nextBusiness++, t0 };
}
