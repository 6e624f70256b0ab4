/**
 * Inbound live-stream events and viewing reports (spec §4, §5): validation, dedupe by event_id, the state
 * update that rules then see, entry checks with rejection reasons, and run creation.
 */
import { InvalidArgumentError, NotFoundError } from '../errors.ts';
import { channelKey, contactKey, inferPlayType, recordPlay, stateFor, upsertSession } from './contact-state.ts';
import { compare } from './properties.ts';
import { EVENT_TYPES, contactKeyV1, type EventType, type Run, type Workflow } from './model.ts';
import { isRunnable, type Job, type Runner } from './runner.ts';
import { SEP } from './space.ts';

export interface LiveEvent {
  event: EventType;
  channelId: string;
  businessId: number;
  contactId: string;
  eventId: string | null;
  occurredAt: number | null;
  playType: 'live' | 'vod' | undefined;
  playDuration: number | null;
  playId: string | null;
}

export interface EventResult {
  eventId: string;
  duplicate: boolean;
  runsStarted: { workflowId: number; runId: string }[];
  entryRejected: { workflowId: number; reason: string }[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (path: string, msg: string) => new InvalidArgumentError('WF_VALIDATION', `${path} ${msg}`, { path });

function idString(v: unknown, path: string, required: boolean): string | null {
  if (v === undefined || v === null) { if (required) throw bad(path, 'is required'); return null; }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string' || v === '') throw bad(path, 'must be a non-empty string');
  return v;
}

function optMs(v: unknown, path: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw bad(path, 'must be a number of ms >= 0');
  return Math.round(v);
}

export function parseEvent(body: unknown): LiveEvent {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  if (typeof body.event !== 'string' || body.event === '') throw bad('event', 'is required');
  if (!(EVENT_TYPES as readonly string[]).includes(body.event)) {
    throw InvalidArgumentError.of('WF_UNSUPPORTED_EVENT', [body.event], { event: body.event });
  }
  const businessId = body.business_id;
  if (typeof businessId !== 'number' || !Number.isSafeInteger(businessId) || businessId <= 0) throw bad('business_id', 'must be a positive integer');
  const playType = body.play_type;
  if (playType !== undefined && playType !== null && playType !== 'live' && playType !== 'vod') throw bad('play_type', 'must be live or vod');
  return {
    event: body.event as EventType, businessId,
    channelId: idString(body.channel_id, 'channel_id', true)!, contactId: idString(body.contact_id, 'contact_id', true)!,
    eventId: idString(body.event_id, 'event_id', false), occurredAt: optMs(body.occurred_at, 'occurred_at'),
    playType: (playType ?? undefined) as 'live' | 'vod' | undefined, playDuration: optMs(body.play_duration, 'play_duration'),
    playId: idString(body.play_id, 'play_id', false),
  };
}

/** §4 steps 1–7 for one validated event. */
export function processEvent(r: Runner, e: LiveEvent, job: Job): EventResult {
  const st = r.st;
  const channel = st.channels.get(channelKey(e.businessId, e.channelId));
  if (!channel) throw NotFoundError.of('WF_CHANNEL_NOT_FOUND', [e.channelId, e.businessId], { channelId: e.channelId, businessId: e.businessId });
  if (e.eventId !== null) {
    const k = e.businessId + SEP + e.eventId;
    if (st.inboundEvents.has(k)) return { eventId: e.eventId, duplicate: true, runsStarted: [], entryRejected: [] };
    st.inboundEvents.set(k, r.clock.now());
  }
  const eventId = e.eventId ?? st.nextId('event', 'ev-');
  applyState(r, e, channel);
  const out: EventResult = { eventId, duplicate: false, runsStarted: [], entryRejected: [] };
  const eventValue = `livestream-${e.event}-${e.channelId}`;
  for (const wf of candidates(r, e.businessId)) {
    const entries = matchingEntries(r, wf, eventValue);
    if (entries.length === 0) continue;
    const reason = entryRejection(r, wf, e);
    if (reason) {
      r.stats(wf.id).entryRejected[reason]++;
      out.entryRejected.push({ workflowId: wf.id, reason });
      continue;
    }
    const run = startRun(r, wf, e, eventId);
    out.runsStarted.push({ workflowId: wf.id, runId: run.id });
    run.open++;
    try { for (const id of entries) r.arrive(run, wf, id, job); } finally { run.open--; r.endIfDone(run); }
  }
  return out;
}

function applyState(r: Runner, e: LiveEvent, channel: { liveStatus: string } & Parameters<typeof inferPlayType>[1]): void {
  const s = stateFor(r.st, e.businessId, e.contactId, e.channelId);
  if (e.event === 'submit') s.submitCount++;
  else if (e.event === 'apply') s.applyCount++;
  else {
    const at = e.occurredAt ?? r.clock.now();
    const playType = inferPlayType(e.playType, channel);
    recordPlay(s, at, playType);
    if (e.playDuration !== null) {
      if (e.playId !== null) {
        upsertSession(r.st, e.businessId, { playId: e.playId, channelId: e.channelId, contactId: e.contactId, durationMs: e.playDuration, playType, startedAt: at });
      } else s.loosePlayDurationMs += e.playDuration;
    }
  }
}

function candidates(r: Runner, businessId: number): Workflow[] {
  const out: Workflow[] = [];
  for (const wf of r.st.workflows.values()) {
    if (wf.version === 1 && wf.businessId === businessId && !wf.deleted) out.push(wf);
  }
  return out;
}

/** Entry Event elements accepting `livestream` and (when present) the event value (§3). */
function matchingEntries(r: Runner, wf: Workflow, eventValue: string): string[] {
  const { graph, els } = r.graph(wf);
  const out: string[] = [];
  for (const id of graph.entries) {
    const el = els.get(id)!;
    let ok = true;
    let sawEvent = false;
    for (const p of el.properties) {
      if (p.name === 'event') { sawEvent = true; ok = compare('livestream', p.operation, p.value, false); }
      else if (p.name === 'eventValue') ok = compare(eventValue, p.operation, p.value, false);
      if (!ok) break;
    }
    if (ok && sawEvent) out.push(id);
  }
  return out;
}

type Rejection = 'disabled' | 'target' | 'oneOff' | 'active_run';

function entryRejection(r: Runner, wf: Workflow, e: LiveEvent): Rejection | null {
  if (!isRunnable(wf)) return 'disabled';
  if (!targetMatches(r, wf, e)) return 'target';
  const head = r.st.head(wf.id, contactKeyV1(e.businessId, e.contactId));
  if (wf.oneOff && (head?.entries ?? 0) > 0) return 'oneOff';
  if (head?.active) return 'active_run';
  return null;
}

function targetMatches(r: Runner, wf: Workflow, e: LiveEvent): boolean {
  const t = wf.target;
  if (t.type === 'all') return true;
  if (t.type === 'contacts') return t.contactIds.includes(e.contactId);
  const tags = r.st.contacts.get(contactKey(e.businessId, e.contactId))?.tags ?? [];
  return t.match === 'all' ? t.tags.every((x) => tags.includes(x)) : t.tags.some((x) => tags.includes(x));
}

function startRun(r: Runner, wf: Workflow, e: LiveEvent, eventId: string): Run {
  const key = contactKeyV1(e.businessId, e.contactId);
  const run: Run = {
    id: r.st.nextId('run', 'r'), workflowId: wf.id, contactKey: key, businessId: e.businessId, contactId: e.contactId,
    entryNo: (r.st.head(wf.id, key)?.entries ?? 0) + 1, status: 'active', triggerEventId: eventId, startedAt: r.clock.now(),
    endedAt: null, visited: [], open: 0, failed: false, steps: [], timerIds: [], actionIds: [],
  };
  r.st.runs.set(run.id, run);
  r.st.indexRun(run);
  const s = r.stats(wf.id);
  s.entered++;
  s.active++;
  return run;
}

export interface ViewRecordResult { playId: string | null; ok: boolean; error?: { code: string; message: string } }

/** Viewlog batch (§5): per-record upsert; a record never counts a play nor triggers entries. */
export function processViewlog(r: Runner, body: unknown): ViewRecordResult[] {
  const { businessId, parsed } = checkViewlog(body);
  return parsed.map((rec) => {
    if (!r.st.channels.has(channelKey(businessId, rec.channelId))) {
      return { playId: rec.playId, ok: false, error: { code: 'CHANNEL_NOT_FOUND', message: `channel ${rec.channelId} not found for business ${businessId}` } };
    }
    upsertSession(r.st, businessId, rec);
    return { playId: rec.playId, ok: true };
  });
}

/** Parses a whole viewlog body (a bad record rejects the request before anything is applied). */
export function checkViewlog(body: unknown): { businessId: number; parsed: ReturnType<typeof parseViewRecord>[] } {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const businessId = body.business_id;
  if (typeof businessId !== 'number' || !Number.isSafeInteger(businessId) || businessId <= 0) throw bad('business_id', 'must be a positive integer');
  if (!Array.isArray(body.records)) throw bad('records', 'must be an array');
  return { businessId, parsed: body.records.map((rec, i) => parseViewRecord(rec, `records[${i}]`)) };
}

function parseViewRecord(rec: unknown, p: string) {
  if (!isObj(rec)) throw bad(p, 'must be an object');
  const playType = rec.play_type ?? null;
  if (playType !== null && playType !== 'live' && playType !== 'vod') throw bad(`${p}.play_type`, 'must be live or vod');
  // Polyv reports seconds (`play_duration`); `play_duration_ms` is already milliseconds.
  const ms = rec.play_duration_ms !== undefined ? optMs(rec.play_duration_ms, `${p}.play_duration_ms`)
    : rec.play_duration !== undefined ? (optMs(rec.play_duration, `${p}.play_duration`) ?? 0) * 1000 : null;
  if (ms === null) throw bad(`${p}.play_duration_ms`, 'is required');
  return {
    playId: idString(rec.play_id, `${p}.play_id`, true)!, channelId: idString(rec.channel_id, `${p}.channel_id`, true)!,
    contactId: idString(rec.contact_id, `${p}.contact_id`, true)!, durationMs: ms,
    playType: playType as 'live' | 'vod' | null, startedAt: optMs(rec.started_at, `${p}.started_at`),
  };
}
