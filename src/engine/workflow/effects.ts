/**
 * Internal action effects over the engine's keyed state. Each is idempotent by construction (tag sets,
 * attribute overwrite, outbox unique by idempotency key), so a re-execution never duplicates them.
 */
import type { ActionContext, ActionEnv } from './actions.ts';
import { contactKey } from './contact-state.ts';
import type { Contact } from './model.ts';
import type { WorkflowStore } from './store.ts';

export function contactRecord(st: WorkflowStore, businessId: number | null, contactId: string): Contact {
  const k = contactKey(businessId, contactId);
  let c = st.contacts.get(k);
  if (!c) { c = { businessId: businessId ?? 0, contactId, tags: [], attributes: {} }; st.contacts.set(k, c); } else st.contacts.touch(k);
  return c;
}

export function makeEnv(st: WorkflowStore, fetchImpl: typeof fetch, now: () => number, allowPrivateTargets = false): ActionEnv {
  return {
    fetch: fetchImpl,
    allowPrivateTargets,
    addTags(b, c, tags) {
      const rec = contactRecord(st, b, c);
      for (const t of tags) if (!rec.tags.includes(t)) rec.tags.push(t);
    },
    removeTags(b, c, tags) {
      const rec = contactRecord(st, b, c);
      rec.tags = rec.tags.filter((t) => !tags.includes(t));
    },
    setAttribute(b, c, key, value) {
      contactRecord(st, b, c).attributes[key] = value;
    },
    appendOutbox(ctx: ActionContext, channel, templateId, content) {
      const existing = st.outboxKeys.get(ctx.idempotencyKey);
      if (existing !== undefined) return existing;
      const id = st.nextId('outbox', 'm');
      const m = {
        id, workflowId: ctx.workflowId, runId: ctx.runId, elementDisplayId: ctx.elementDisplayId, businessId: ctx.businessId,
        contactId: ctx.contactId, channel, templateId, content, at: now(), idempotencyKey: ctx.idempotencyKey,
      };
      st.outbox.set(id, m);
      st.indexOutbox(m);
      return id;
    },
  };
}
