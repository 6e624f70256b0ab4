/**
 * Live-stream contact state (spec §5): how events and viewing reports feed `ContactChannelState`, and how
 * the `livestream_rule_*` properties resolve against it and the channel store at evaluation time.
 */
import { parseRuleProperty } from './properties.ts';
import { SEP } from './space.ts';
import type { ContactChannelRecord, WorkflowStore } from './store.ts';
import type { Channel } from './model.ts';

export const channelKey = (businessId: number, channelId: string): string => businessId + SEP + channelId;
export const stateKey = (businessId: number, contactId: string, channelId: string): string => businessId + SEP + contactId + SEP + channelId;
export const contactKey = (businessId: number | null, contactId: string): string => businessId + SEP + contactId;

export function emptyState(): ContactChannelRecord {
  return {
    submitCount: 0, applyCount: 0, playCount: 0, loosePlayDurationMs: 0, sessionDurationMs: 0,
    lastPlayType: null, playedLive: false, firstPlayAt: null, lastPlayAt: null,
  };
}

export function stateFor(st: WorkflowStore, businessId: number, contactId: string, channelId: string): ContactChannelRecord {
  const k = stateKey(businessId, contactId, channelId);
  let s = st.contactState.get(k);
  if (!s) { s = emptyState(); st.contactState.set(k, s); } else st.contactState.touch(k);
  return s;
}

/** Records a play at `at`: (lastPlayAt, lastPlayType) move together and only forward (§13 ordering). */
export function recordPlay(s: ContactChannelRecord, at: number, playType: 'live' | 'vod' | null): void {
  s.playCount++;
  if (s.firstPlayAt === null || at < s.firstPlayAt) s.firstPlayAt = at;
  if (s.lastPlayAt === null || at >= s.lastPlayAt) {
    s.lastPlayAt = at;
    if (playType) s.lastPlayType = playType;
  }
  if (playType === 'live') s.playedLive = true;
}

/** Viewlog upsert: a play's duration is the max reported, so cumulative reports never double-count. */
export function upsertSession(
  st: WorkflowStore, businessId: number, rec: { playId: string; channelId: string; contactId: string; durationMs: number; playType: 'live' | 'vod' | null; startedAt: number | null },
): void {
  const key = businessId + SEP + rec.playId;
  const prev = st.viewSessions.get(key);
  const channelId = prev?.channelId ?? rec.channelId;
  const contactId = prev?.contactId ?? rec.contactId;
  const s = stateFor(st, businessId, contactId, channelId);
  const before = prev?.durationMs ?? 0;
  const after = Math.max(before, rec.durationMs);
  s.sessionDurationMs += after - before;
  const playType = rec.playType ?? prev?.playType ?? null;
  if (playType === 'live') s.playedLive = true;
  if (playType && (s.lastPlayType === null || (rec.startedAt !== null && s.lastPlayAt !== null && rec.startedAt >= s.lastPlayAt))) {
    s.lastPlayType = playType;
  }
  st.viewSessions.set(key, { businessId, playId: rec.playId, contactId, channelId, durationMs: after, playType, startedAt: rec.startedAt ?? prev?.startedAt ?? null });
}

/** Resolves a rule property for a contact; undefined makes every comparison false (§3). */
export function resolveProperty(st: WorkflowStore, businessId: number | null, contactId: string, name: string): string | number | undefined {
  const p = parseRuleProperty(name);
  if (!p || businessId === null) return undefined;
  const channel = st.channels.get(channelKey(businessId, p.channelId));
  const s = st.contactState.get(stateKey(businessId, contactId, p.channelId));
  switch (p.kind) {
    case 'playduration': return s ? s.sessionDurationMs + s.loosePlayDurationMs : 0;
    case 'playcount': return s ? s.playCount : 0;
    case 'livestatus': return channel?.liveStatus;
    case 'playtype': return s?.lastPlayType ?? undefined;
    case 'isplaylive': return s?.playedLive ? 'yes' : 'no';
    case 'starttime': return channel?.startTime ?? undefined;
  }
}

/** All resolved properties of one channel for a contact (the debugging state endpoint). */
export function resolvedState(st: WorkflowStore, businessId: number, contactId: string, channelId: string): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const kind of ['playduration', 'playcount', 'livestatus', 'playtype', 'isplaylive', 'starttime']) {
    const name = `livestream_rule_${kind}_${channelId}`;
    out[name] = resolveProperty(st, businessId, contactId, name) ?? null;
  }
  return out;
}

export function inferPlayType(given: 'live' | 'vod' | undefined, channel: Channel): 'live' | 'vod' | null {
  if (given) return given;
  return channel.liveStatus === 'live' ? 'live' : channel.liveStatus === 'playback' ? 'vod' : null;
}
