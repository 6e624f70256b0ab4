/**
 * Internal action effects over the engine's keyed state. Each is idempotent by construction (tag sets,
 * attribute overwrite, outbox unique by idempotency key), so a re-execution never duplicates them.
 */
import type { ActionContext, ActionEnv } from './actions.ts';
import type { Contact } from './model.ts';
import type { WorkflowStore } from './store.ts';

export function contactRecord(st: WorkflowStore, businessId: number | null, contactId: string): Contact {
  const k = `${businessId}|${contactId}`;
  let c = st.contacts.get(k);
  if (!c) { c = { businessId: businessId ?? 0, contactId, tags: [], attributes: {} }; st.contacts.set(k, c); } else st.contacts.touch(k);
  return c;
}

export function makeEnv(st: WorkflowStore, fetchImpl: typeof fetch, now: () => number): ActionEnv {
  return {
    fetch: fetchImpl,
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
      if (st.outboxKeys.has(ctx.idempotencyKey)) {
        for (const m of st.outbox.values()) if (m.idempotencyKey === ctx.idempotencyKey) return m.id;
      }
      const id = st.nextId('outbox', 'm');
      st.outbox.set(id, {
        id, workflowId: ctx.workflowId, runId: ctx.runId, elementDisplayId: ctx.elementDisplayId, businessId: ctx.businessId,
        contactId: ctx.contactId, channel, templateId, content, at: now(), idempotencyKey: ctx.idempotencyKey,
      });
      st.outboxKeys.add(ctx.idempotencyKey);
      return id;
    },
  };
}
