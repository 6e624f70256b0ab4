/**
 * Layout-2 storage through the HTTP API: paged listings (page/size and the `after` cursor) and retention of
 * finished runs with their action-log entries (statistics and entry numbers stay).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A, E, H, M, channels, event, save, scenario, startFlow, workflow } from './helpers.ts';

test('listings page by page number and by cursor, in id order, without gaps or repeats', async () => {
  const f = await startFlow();
  try {
    const { b, t0 } = await scenario(f);
    await channels(f, b, t0);
    const id = await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'message', actionValue: 'hi' }, ['path-1'])]));
    for (let i = 0; i < 25; i++) await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: `c${String(i).padStart(2, '0')}` });
    const all = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data;
    assert.equal(all.length, 25);
    const p2 = (await f.api('GET', `/workflow/actions?workflowId=${id}&size=10&page=2`)).body.data;
    assert.deepEqual(p2.map((a: any) => a.id), all.slice(10, 20).map((a: any) => a.id));
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = (await f.api('GET', `/workflow/actions?workflowId=${id}&size=7${after ? `&after=${after}` : ''}`)).body.data;
      seen.push(...page.map((a: any) => a.id));
      if (page.length < 7) break;
      after = page.at(-1).id;
    }
    assert.deepEqual(seen, all.map((a: any) => a.id));
    const runs = (await f.api('GET', `/workflow/manage/${id}/runs?size=5&page=5`)).body.data;
    assert.equal(runs.length, 5);
    const outbox = (await f.api('GET', `/workflow/outbox?businessId=${b}&size=3&page=9`)).body.data;
    assert.equal(outbox.length, 1, '25 messages: the ninth page of 3 has one');
    const bad = await f.api('GET', '/workflow/actions?size=100000');
    assert.equal(bad.status, 400);
    const noFilterCursor = await f.api('GET', '/workflow/actions?after=a1');
    assert.equal(noFilterCursor.status, 400);
  } finally { await f.server.destroy(); }
});

test('retention deletes finished runs and their action log after the period; statistics and entry numbers stay', async () => {
  const f = await startFlow(['--workflow.retention', '1h']);
  try {
    const { b, t0 } = await scenario(f);
    await channels(f, b, t0);
    const id = await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'x', repeat: true }, ['path-1'])]));
    const waiting = await save(f, workflow(b, [E('ch1', 'submit', 'block-e1'), A('block-a1', { action: 'tag', actionValue: 'late', delay: 3 * H }, ['path-1'])]));
    for (const c of ['c1', 'c2', 'c3']) await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: c });
    await f.clock({ advance: 30 * M });
    assert.equal((await f.api('GET', `/workflow/manage/${id}/runs`)).body.data.length, 3, 'younger than the retention period');
    await f.clock({ advance: 45 * M });
    assert.equal((await f.api('GET', `/workflow/manage/${id}/runs`)).body.data.length, 0, 'finished runs are gone');
    assert.equal((await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data.length, 0, 'with their action log');
    assert.equal((await f.api('GET', `/workflow/manage/${id}/contacts/c1/journey`)).body.data.runs.length, 0);
    const active = (await f.api('GET', `/workflow/manage/${waiting}/runs`)).body.data;
    assert.deepEqual(active.map((r: any) => r.status), ['active', 'active', 'active'], 'active runs are never deleted');
    const s = (await f.api('GET', `/workflow/manage/${id}/statistics`)).body.data;
    assert.deepEqual([s.entered, s.completed, s.elements['block-a1'].executed], [3, 3, 3]);
    const again = await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
    const runId = again.body.data.runsStarted.find((r: any) => r.workflowId === id).runId;
    const runs = (await f.api('GET', `/workflow/manage/${id}/runs?contactId=c1`)).body.data;
    assert.deepEqual(runs.map((r: any) => [r.id, r.entryNo]), [[runId, 2]], 'entry numbers continue after retention');
  } finally { await f.server.destroy(); }
});

test('batches and viewlogs over two partitions: results in request order, a bad record rejects the whole viewlog', async () => {
  const f = await startFlow();
  try {
    const { b, t0 } = await scenario(f);
    await channels(f, b, t0);
    const contacts = Array.from({ length: 12 }, (_, i) => `v${i}`);
    const bad = await f.api('POST', '/rest/livestream/viewlog', { business_id: b, records: [
      ...contacts.map((c) => ({ play_id: `p-${c}`, channel_id: 'ch1', contact_id: c, play_type: 'live', play_duration_ms: 1000 })),
      { play_id: 'p-x', channel_id: 'ch1', contact_id: 'vx', play_type: 'tv', play_duration_ms: 1 },
    ] });
    assert.equal(bad.status, 400);
    for (const c of contacts) {
      assert.equal((await f.api('GET', `/rest/livestream/state/${b}/${c}?channelId=ch1`)).body.data.livestream_rule_playduration_ch1, 0, `${c} untouched`);
    }
    const ok = await f.api('POST', '/rest/livestream/viewlog', { business_id: b, records: [
      ...contacts.map((c, i) => ({ play_id: `p-${c}`, channel_id: 'ch1', contact_id: c, play_type: 'live', play_duration_ms: 1000 * (i + 1) })),
      { play_id: 'p-y', channel_id: 'nope', contact_id: 'vy', play_duration_ms: 5 },
    ] });
    assert.deepEqual(ok.body.data.results.map((r: any) => [r.playId, r.success]), [...contacts.map((c) => [`p-${c}`, true]), ['p-y', false]]);
    for (const [i, c] of contacts.entries()) {
      assert.equal((await f.api('GET', `/rest/livestream/state/${b}/${c}?channelId=ch1`)).body.data.livestream_rule_playduration_ch1, 1000 * (i + 1));
    }
    const batch = await f.api('POST', '/rest/livestream/events', { events: contacts.flatMap((c) => [
      { event: 'play', channel_id: 'ch1', business_id: b, contact_id: c, event_id: `e-${c}` },
      { event: 'nope', channel_id: 'ch1', business_id: b, contact_id: c },
    ]) });
    const results = batch.body.data.results;
    assert.equal(results.length, contacts.length * 2);
    results.forEach((r: any, i: number) => {
      if (i % 2 === 0) assert.equal(r.data.eventId, `e-${contacts[i / 2]}`, `item ${i} in place`);
      else assert.match(r.error, /^UNSUPPORTED_EVENT: /, `item ${i} in place`);
    });
  } finally { await f.server.destroy(); }
});

test('health counts the partitions\' commits: one per event on an idle server, with LMDB\'s own figures', async () => {
  const f = await startFlow();
  try {
    const { b, t0 } = await scenario(f);
    await channels(f, b, t0);
    await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'x' }, ['path-1'])]));
    const before = (await f.api('GET', '/health')).body.data.commits;
    for (let i = 0; i < 5; i++) await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: `h${i}` });
    const after = (await f.api('GET', '/health')).body.data.commits;
    assert.equal(after.commits - before.commits, 5, 'each event acknowledged by its own commit (nothing else in flight)');
    assert.ok(after.committedWrites - before.committedWrites >= 5 * 4, 'contact state, run, its head and index entries per event');
    assert.ok(after.commitMs > before.commitMs);
    assert.ok(after.kv.txns - before.kv.txns >= 5, `LMDB transactions (${after.kv.txns - before.kv.txns})`);
    assert.ok(after.kv.pagesWritten > before.kv.pagesWritten && after.kv.syncMs >= before.kv.syncMs && after.kv.txnMs > before.kv.txnMs);
  } finally { await f.server.destroy(); }
});
