/**
 * Action handlers (spec §8): a small pluggable registry. Internal effects (tags, attributes, outbox) go
 * through `ActionEnv`, which the engine implements over its keyed state so that they are exactly once by
 * idempotency key; `webhook` is the only handler that leaves the process and the only asynchronous one.
 */
import { wfError } from './properties.ts';
import { webhookTargetRefusal } from './webhook-target.ts';

export interface ActionContext {
  workflowId: number;
  runId: string;
  elementDisplayId: string;
  businessId: number | null;
  contactId: string;
  now: number;
  idempotencyKey: string;
  actionValue: unknown;
}

export interface ActionEnv {
  addTags(businessId: number | null, contactId: string, tags: string[]): void;
  removeTags(businessId: number | null, contactId: string, tags: string[]): void;
  setAttribute(businessId: number | null, contactId: string, key: string, value: unknown): void;
  appendOutbox(ctx: ActionContext, channel: string, templateId: string | null, content: string | null): string;
  /** `fetch` as configured; tests may inject one. */
  fetch: typeof fetch;
  /** Webhooks may call loopback, private and link-local addresses (`--workflow.webhook.allow-private-targets`). */
  allowPrivateTargets: boolean;
}

/** A failed execution; `retryable` failures are retried with backoff (network errors, 5xx). */
export class ActionFailure extends Error {
  constructor(message: string, readonly retryable: boolean, readonly result?: unknown) { super(message); }
}

export interface ActionHandler {
  validate(actionValue: unknown, path: string): void;
  execute(ctx: ActionContext, env: ActionEnv): unknown | Promise<unknown>;
}

const tagList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);

function validateTags(v: unknown, path: string): void {
  const ok = (typeof v === 'string' && v !== '') || (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x !== ''));
  if (!ok) throw wfError('WF_VALIDATION', `${path} must be a tag or a non-empty array of tags`, path);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const MESSAGE_CHANNELS = new Set(['sms', 'wechat', 'email']);
const WEBHOOK_TIMEOUT_MS = 5000;

export const ACTIONS: Record<string, ActionHandler> = {
  countdown: { validate() {}, execute: () => ({ waited: true }) },
  noop: { validate() {}, execute: () => null },
  tag: {
    validate: validateTags,
    execute(ctx, env) { env.addTags(ctx.businessId, ctx.contactId, tagList(ctx.actionValue)); return { tags: tagList(ctx.actionValue) }; },
  },
  untag: {
    validate: validateTags,
    execute(ctx, env) { env.removeTags(ctx.businessId, ctx.contactId, tagList(ctx.actionValue)); return { tags: tagList(ctx.actionValue) }; },
  },
  setAttribute: {
    validate(v, path) {
      if (!isObj(v) || typeof v.key !== 'string' || v.key === '' || !('value' in v)) {
        throw wfError('WF_VALIDATION', `${path} must be {"key":string,"value":any}`, path);
      }
    },
    execute(ctx, env) {
      const v = ctx.actionValue as { key: string; value: unknown };
      env.setAttribute(ctx.businessId, ctx.contactId, v.key, v.value);
      return { key: v.key };
    },
  },
  message: {
    validate(v, path) {
      if (typeof v === 'string') return; // shorthand: the content itself, sent on the default channel
      if (!isObj(v) || typeof v.channel !== 'string' || !MESSAGE_CHANNELS.has(v.channel)) {
        throw wfError('WF_VALIDATION', `${path} must be {"channel":"sms"|"wechat"|"email",...}`, path);
      }
      if (v.templateId !== undefined && typeof v.templateId !== 'string') throw wfError('WF_VALIDATION', `${path}.templateId must be a string`, path);
      if (v.content !== undefined && typeof v.content !== 'string') throw wfError('WF_VALIDATION', `${path}.content must be a string`, path);
    },
    execute(ctx, env) {
      const v = typeof ctx.actionValue === 'string' ? { channel: 'sms', content: ctx.actionValue } : ctx.actionValue as Record<string, string>;
      const id = env.appendOutbox(ctx, v.channel, v.templateId ?? null, v.content ?? null);
      return { outboxId: id };
    },
  },
  webhook: {
    validate(v, path) {
      if (!isObj(v) || typeof v.url !== 'string' || !/^https?:\/\//.test(v.url)) {
        throw wfError('WF_VALIDATION', `${path}.url must be an http(s) URL`, path);
      }
      try { new URL(v.url); } catch { throw wfError('WF_VALIDATION', `${path}.url must be an http(s) URL`, path); }
      if (v.method !== undefined && (typeof v.method !== 'string' || !/^[A-Za-z]+$/.test(v.method))) throw wfError('WF_VALIDATION', `${path}.method must be an HTTP method`, path);
      if (v.headers !== undefined && (!isObj(v.headers) || Object.values(v.headers).some((h) => typeof h !== 'string'))) {
        throw wfError('WF_VALIDATION', `${path}.headers must map names to strings`, path);
      }
    },
    execute: callWebhook,
  },
};

/** Calls only the URL configured on the action; the idempotency key travels as `Idempotency-Key`. */
async function callWebhook(ctx: ActionContext, env: ActionEnv): Promise<unknown> {
  const v = ctx.actionValue as { url: string; method?: string; headers?: Record<string, string> };
  // The spec's envelope; a configured `body` travels inside `actionValue` (and is not sent bare).
  const body = {
    workflowId: ctx.workflowId, runId: ctx.runId, elementDisplayId: ctx.elementDisplayId,
    businessId: ctx.businessId, contactId: ctx.contactId, at: ctx.now, actionValue: ctx.actionValue,
  };
  let refusal: string | null;
  try {
    refusal = await webhookTargetRefusal(v.url, env.allowPrivateTargets);
  } catch (err) {
    throw new ActionFailure(`webhook call failed: ${(err as Error).message}`, true);
  }
  if (refusal !== null) throw new ActionFailure(refusal, false);
  let res: Response;
  try {
    res = await env.fetch(v.url, {
      method: (v.method ?? 'POST').toUpperCase(),
      headers: { 'content-type': 'application/json', ...(v.headers ?? {}), 'Idempotency-Key': ctx.idempotencyKey },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      // A redirect could lead to a target the check above would refuse.
      redirect: 'manual',
    });
    await drainCapped(res);
  } catch (err) {
    throw new ActionFailure(`webhook call failed: ${(err as Error).message}`, true);
  }
  if (res.status >= 500) throw new ActionFailure(`webhook answered ${res.status}`, true, { status: res.status });
  if (res.status >= 400) throw new ActionFailure(`webhook answered ${res.status}`, false, { status: res.status });
  return { status: res.status };
}

/** Response bytes read (and dropped) at most: only the status is used, and a huge reply must not fill memory. */
export const WEBHOOK_MAX_RESPONSE_BYTES = 1024 * 1024;

/** Reads the response body up to the cap (so a small reply's connection can be reused), then stops. */
async function drainCapped(res: Response): Promise<void> {
  if (res.body === null) return;
  const reader = res.body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    bytes += value.byteLength;
    if (bytes > WEBHOOK_MAX_RESPONSE_BYTES) { await reader.cancel(); return; }
  }
}

/** Backoff before attempt 2 and 3 (ms); a third failure is final. */
export const RETRY_BACKOFF_MS: readonly number[] = [1000, 5000];
export const MAX_ATTEMPTS = 3;
