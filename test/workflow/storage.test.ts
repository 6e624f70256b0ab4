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
