/** Acceptance scenarios 3–9 and 21 (triggering, rules, idempotency, delay, journey). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { A, E, R, channels, event, save, scenario, startFlow, workflow, type Flow } from '../helpers.ts';

let f: Flow;
before(async () => { f = await startFlow(); });
after(async () => { await f?.server.destroy(); });

const tags = async (b: number, c: string) => (await f.api('GET', `/contacts/${b}/${c}/tags`)).body.data as string[];
const actions = async (q: string) => (await f.api('GET', `/workflow/actions?${q}`)).body.data as Record<string, any>[];
const stats = async (id: number) => (await f.api('GET', `/workflow/manage/${id}/statistics`)).body.data;

test('3. simple trigger', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'registered' }, ['path-1'])]));
  const r = await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  assert.equal(r.status, 200, r.body.error);
  assert.equal(r.body.data.runsStarted.length, 1);
  assert.equal(r.body.data.duplicate, false);
  const runId = r.body.data.runsStarted[0].runId;
  assert.ok((await tags(b, 'c1')).includes('registered'));
  const log = await actions(`workflowId=${id}`);
  assert.equal(log.length, 1);
  assert.equal(log[0].status, 'succeeded');
  assert.equal(log[0].idempotencyKey, `${runId}:block-a1`);
  const s = await stats(id);
  assert.equal(s.entered, 1);
  assert.equal(s.completed, 1);
});

test('4. non-matching events do nothing', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  await channels(f, b + 1000, t0);
  const id = await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'registered' }, ['path-1'])]));
  for (const e of [
    { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1' },
    { event: 'submit', channel_id: 'ch2', business_id: b, contact_id: 'c1' },
    { event: 'submit', channel_id: 'ch1', business_id: b + 1000, contact_id: 'c1' },
  ]) {
    const r = await event(f, e);
    assert.equal(r.status, 200, r.body.error);
    assert.deepEqual(r.body.data.runsStarted, []);
  }
  assert.deepEqual((await f.api('GET', `/workflow/manage/${id}/runs`)).body.data, []);
  const nope = await event(f, { event: 'submit', channel_id: 'nope', business_id: b, contact_id: 'c1' });
  assert.equal(nope.status, 404);
  assert.match(nope.body.error, /^CHANNEL_NOT_FOUND: /);
  const leave = await event(f, { event: 'leave', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  assert.equal(leave.status, 400);
  assert.match(leave.body.error, /^UNSUPPORTED_EVENT: /);
  const noContact = await event(f, { event: 'submit', channel_id: 'ch1', business_id: b });
  assert.equal(noContact.status, 400);
  assert.match(noContact.body.error, /^VALIDATION_ERROR: /);
  assert.deepEqual((await f.api('GET', `/workflow/manage/${id}/runs`)).body.data, []);
});

const playCountGraph = () => [
  E('ch1', 'play'),
  R('block-r1', [['livestream_rule_playcount_ch1', 'greaterThan', '1']], ['path-1'], ['path-2']),
  A('block-a1', { action: 'tag', actionValue: 'repeat-viewer', repeat: null }, ['path-2']),
];

test('5 + 21. play count rule, action exactly once; journey inspection', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, playCountGraph(), { oneOff: false }));
  for (let i = 0; i < 3; i++) {
    const r = await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
    assert.equal(r.body.data.runsStarted.length, 1, `play ${i + 1}`);
    await f.clock({ advance: 1000 });
  }
  assert.ok((await tags(b, 'c1')).includes('repeat-viewer'));
  const log = await actions(`workflowId=${id}&contactId=c1`);
  assert.equal(log.filter((e) => e.status === 'succeeded').length, 1);
  const skipped = log.filter((e) => e.status === 'skipped');
  assert.equal(skipped.length, 1);
  assert.equal(skipped[0].reason, 'repeat');
  let s = await stats(id);
  assert.equal(s.elements['block-r1'].yes, 2);
  assert.equal(s.elements['block-r1'].no, 1);
  assert.equal(s.entered, 3);
  await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c2' });
  assert.deepEqual(await tags(b, 'c2'), []);
  s = await stats(id);
  assert.equal(s.elements['block-r1'].no, 2);

  const j = (await f.api('GET', `/workflow/manage/${id}/contacts/c1/journey`)).body.data;
  assert.deepEqual(j.runs.map((r: any) => r.entryNo), [1, 2, 3]);
  const steps = j.runs.map((r: any) => r.steps.map((x: any) => `${x.elementDisplayId} ${x.outcome}${x.reason ? `(${x.reason})` : ''}`));
  assert.deepEqual(steps, [
    ['block-e1 entered', 'block-r1 no'],
    ['block-e1 entered', 'block-r1 yes', 'block-a1 executed'],
    ['block-e1 entered', 'block-r1 yes', 'block-a1 skipped(repeat)'],
  ]);
  const at = j.runs.flatMap((r: any) => r.steps.map((x: any) => x.at));
  for (let i = 1; i < at.length; i++) assert.ok(at[i] >= at[i - 1], 'timestamps non-decreasing');
  assert.deepEqual(j.pendingTimers, []);
});

test('6. oneOff entry semantics', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, playCountGraph(), { oneOff: true }));
  const first = await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  assert.equal(first.body.data.runsStarted.length, 1);
  const runs = (await f.api('GET', `/workflow/manage/${id}/runs?contactId=c1`)).body.data;
  assert.equal(runs[0].status, 'completed');
  for (let i = 0; i < 2; i++) {
    const r = await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
    assert.deepEqual(r.body.data.entryRejected, [{ workflowId: id, reason: 'oneOff' }]);
  }
  assert.equal((await stats(id)).entryRejected.oneOff, 2);
  assert.deepEqual(await tags(b, 'c1'), []);
});

test('7. no concurrent runs', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'message', actionValue: { channel: 'sms', content: 'hi' }, delay: 60_000 }, ['path-1'])]));
  const sub = () => event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  assert.equal((await sub()).body.data.runsStarted.length, 1);
  await f.clock({ advance: 500 });
  assert.deepEqual((await sub()).body.data.entryRejected, [{ workflowId: id, reason: 'active_run' }]);
  await f.clock({ advance: 60_000 });
  assert.equal((await f.api('GET', `/workflow/outbox?businessId=${b}&contactId=c1`)).body.data.length, 1);
  const third = await sub();
  assert.equal(third.body.data.runsStarted.length, 1);
  const runs = (await f.api('GET', `/workflow/manage/${id}/runs?contactId=c1`)).body.data;
  assert.deepEqual(runs.map((r: any) => r.entryNo), [1, 2]);
  assert.equal((await stats(id)).entryRejected.active_run, 1);
});

test('8. idempotent ingestion', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, [E('ch1', 'play'), A('block-a1', { action: 'noop' }, ['path-1'])]));
  const e = { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1', event_id: 'e-1' };
  const one = await event(f, e);
  assert.equal(one.body.data.duplicate, false);
  const two = await event(f, e);
  assert.equal(two.status, 200);
  assert.equal(two.body.data.duplicate, true);
  assert.deepEqual(two.body.data.runsStarted, []);
  const st = (await f.api('GET', `/rest/livestream/state/${b}/c1?channelId=ch1`)).body.data;
  assert.equal(st.livestream_rule_playcount_ch1, 1);
  assert.equal((await f.api('GET', `/workflow/manage/${id}/runs`)).body.data.length, 1);
});

test('9. delay', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, [E('ch1', 'apply'), A('block-a1', { action: 'tag', actionValue: 'x', delay: 60_000 }, ['path-1'])]));
  await event(f, { event: 'apply', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  const j = (await f.api('GET', `/workflow/manage/${id}/contacts/c1/journey`)).body.data;
  assert.equal(j.pendingTimers.length, 1);
  assert.equal(j.pendingTimers[0].fireAt, t0 + 60_000);
  assert.equal(j.pendingTimers[0].kind, 'delay');
  assert.deepEqual(await tags(b, 'c1'), []);
  await f.clock({ advance: 59_000 });
  assert.deepEqual(await tags(b, 'c1'), []);
  await f.clock({ advance: 2_000 });
  assert.deepEqual(await tags(b, 'c1'), ['x']);
  assert.equal((await actions(`workflowId=${id}`)).length, 1);
});

test('batch ingestion: items in array order with per-item results', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, playCountGraph()));
  const r = await f.api('POST', '/rest/livestream/events', { events: [
    { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1', event_id: 'b-1' },
    { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1', event_id: 'b-2' },
    { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1', event_id: 'b-1' },
    { event: 'play', channel_id: 'nope', business_id: b, contact_id: 'c1' },
  ] });
  assert.equal(r.status, 200, r.body.error);
  const res = r.body.data.results;
  assert.deepEqual(res.map((x: any) => x.success), [true, true, true, false]);
  assert.equal(res[2].data.duplicate, true);
  assert.match(res[3].error, /^CHANNEL_NOT_FOUND: /);
  const s = await stats(id);
  assert.deepEqual([s.elements['block-r1'].no, s.elements['block-r1'].yes], [1, 1], 'second play saw playcount 2');
  assert.deepEqual(await tags(b, 'c1'), ['repeat-viewer']);
});

test('dry-run validation reports errors and warnings without saving', async () => {
  const { b } = await scenario(f);
  const bad = await f.api('POST', '/workflow/manage/validate', workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'noop' }, ['path-x'])]));
  assert.equal(bad.status, 200);
  assert.equal(bad.body.data.valid, false);
  assert.equal(bad.body.data.errors[0].code, 'GRAPH_INVALID');
  const good = await f.api('POST', '/workflow/manage/validate', workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'noop' }, ['path-1'], ['path-9'])]));
  assert.equal(good.body.data.valid, true);
  assert.deepEqual(good.body.data.warnings, ['outgoing path path-9 of block-a1 leads nowhere (branch ends)']);
  const wrong = await f.api('POST', '/workflow/manage/validate', workflow(b, [A('block-a1', { action: 'explode' }, [])]));
  assert.equal(wrong.body.data.errors[0].code, 'UNKNOWN_ACTION');
  assert.equal((await f.api('GET', `/workflow/manage?businessId=${b}`)).body.data.total, 0);
});
