/**
 * Conversion of workflow state layout 1 (every record in the shared LMDB store, `wf_*` databases, loaded
 * whole at start-up) into layout 2 (one environment per partition, indexed; docs/format.md "Workflow
 * state", "Versions"). Each partition converts on its first open: it copies the catalog (workflows,
 * channels, id counters, applied WAL marks, test clock) and the records of the contacts it owns, and
 * builds its indexes through the same `WorkflowStore` calls the engine uses. Partition 0 takes the
 * statistics (the server sums them over partitions). The layout-1 databases are left as they were.
 *
 * Crash safety: the meta record says `converting` until the last chunk is committed; a partition found in
 * that state is deleted and converted again (see `openPartitionKv`).
 */
import { WORKFLOW_META_KEY } from '../codec/format-ids.ts';
import { channelKey, contactKey, stateKey } from './contact-state.ts';
import { partitionOf } from './partition.ts';
import { SEP } from './space.ts';
import type { Meta, WorkflowStore } from './store.ts';
import type { ActionLogEntry, Channel, Contact, OutboxMessage, Run, Timer, ViewSession, Workflow, WorkflowStatistics } from './model.ts';

/** Read access to the layout-1 databases (`space` without the `wf_` prefix). */
export interface V1Source {
  records(space: string): Iterable<[string, unknown]>;
  get(space: string, key: string): unknown;
}

interface V1Meta { layout: number; seq: Record<string, number>; appliedLow: number; appliedAbove: number[]; clock: number | null }

const COMMIT_EVERY = 20_000;

/** Whether layout-1 state exists. */
export function hasV1(src: V1Source): boolean { return src.get('meta', WORKFLOW_META_KEY) !== undefined; }

/** Converts into `st` (freshly opened, empty); resolves once everything is committed. Returns the records copied. */
export async function convertV1(src: V1Source, st: WorkflowStore): Promise<number> {
  const m = st.state;
  const p = m.partition, n = m.partitions;
  const owns = (b: number | null, c: string) => partitionOf(b, c, n) === p;
  const v1 = src.get('meta', WORKFLOW_META_KEY) as V1Meta;
  Object.assign(m, { seq: { ...v1.seq }, appliedLow: v1.appliedLow, appliedAbove: [...v1.appliedAbove], clock: v1.clock, converting: true });
  for (const s of v1.appliedAbove) st.above.add(s);
  st.meta.touch(WORKFLOW_META_KEY);
  let copied = 0;
  const step = async (): Promise<void> => { if (++copied % COMMIT_EVERY === 0) await st.commit(st.takeWrites()); };

  for (const [, wf] of src.records('workflows')) { st.workflows.set(String((wf as Workflow).id), wf as Workflow); await step(); }
  const channelsOf = new Map<number, string[]>();
  for (const [, v] of src.records('channels')) {
    const ch = v as Channel;
    st.channels.set(channelKey(ch.businessId, ch.channelId), ch);
    channelsOf.set(ch.businessId, [...channelsOf.get(ch.businessId) ?? [], ch.channelId]);
    await step();
  }
  if (p === 0) for (const [k, s] of src.records('statistics')) { st.stats.set(k, s as WorkflowStatistics); await step(); }
  for (const [, v] of src.records('contacts')) {
    const c = v as Contact;
    if (owns(c.businessId, c.contactId)) { st.contacts.set(contactKey(c.businessId, c.contactId), c); await step(); }
  }
  for (const [k, v] of src.records('contact_channel_state')) {
    const [b, c, ch] = splitStateKey(k, channelsOf);
    if (owns(b, c)) { st.contactState.set(stateKey(b, c, ch), v as never); await step(); }
  }
  for (const [, v] of src.records('view_sessions')) {
    const s = v as ViewSession;
    if (owns(s.businessId, s.contactId)) { st.viewSessions.set(s.businessId + SEP + s.playId, s); await step(); }
  }
  // Dedupe marks are not tied to a contact in layout 1: every partition gets them (a retried event goes
  // to its contact's partition).
  for (const [k, v] of src.records('inbound_events')) {
    const cut = k.indexOf('|');
    st.inboundEvents.set(k.slice(0, cut) + SEP + k.slice(cut + 1), v as number);
    await step();
  }
  for (const [, v] of src.records('runs')) {
    const r = v as Run;
    if (!owns(r.businessId, r.contactId)) continue;
    r.timerIds = [];
    r.actionIds = [];
    st.runs.set(r.id, r);
    st.indexRun(r);
    if (r.status !== 'active') st.runEnded(r);
    await step();
  }
  for (const [, v] of src.records('timers')) {
    const t = v as Timer;
    const r = src.get('runs', t.runId) as Run | undefined;
    if (!r || !owns(r.businessId, r.contactId)) continue;
    st.timers.set(t.id, t);
    st.indexNewTimer(t, st.runs.get(t.runId)!);
    await step();
  }
  for (const [, v] of src.records('action_log')) {
    const a = v as ActionLogEntry;
    const run = owns(a.businessId, a.contactId) ? st.runs.get(a.runId) : undefined;
    if (run) { st.actionLog.set(a.id, a); st.indexAction(a, run); await step(); }
  }
  for (const [, v] of src.records('outbox')) {
    const o = v as OutboxMessage;
    if (owns(o.businessId, o.contactId)) { st.outbox.set(o.id, o); st.indexOutbox(o); await step(); }
  }
  await st.commit(st.takeWrites());
  delete (m as Meta & { converting?: boolean }).converting;
  st.meta.touch(WORKFLOW_META_KEY);
  await st.commit(st.takeWrites());
  return copied;
}

/**
 * Layout-1 state keys are `b|contactId|channelId` and both ids may contain `|`: the channel is the longest
 * channel id of the business the key ends with (channels are never renamed), else the last part.
 */
function splitStateKey(k: string, channelsOf: Map<number, string[]>): [number, string, string] {
  const cut = k.indexOf('|');
  const b = Number(k.slice(0, cut));
  const rest = k.slice(cut + 1);
  let ch = rest.slice(rest.lastIndexOf('|') + 1);
  for (const id of channelsOf.get(b) ?? []) if (rest.endsWith('|' + id) && id.length > ch.length) ch = id;
  return [b, rest.slice(0, rest.length - ch.length - 1), ch];
}
