/** Acceptance scenarios 10–13 (countdown timers). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { A, E, H, M, channels, event, save, scenario, startFlow, workflow, type Flow } from '../helpers.ts';

let f: Flow;
before(async () => { f = await startFlow(); });
after(async () => { await f?.server.destroy(); });

const countdownGraph = (extra: Record<string, unknown> = {}) => [
  E('ch1', 'submit'),
  A('block-a1', { action: 'countdown', countdown: 'livestream_rule_starttime_ch1', countdownValue: '3600000', ...extra }, ['path-1'], ['path-2']),
  A('block-a2', { action: 'message', actionValue: { channel: 'sms', content: 'starts in 1h' } }, ['path-2']),
];
const outbox = async (b: number) => (await f.api('GET', `/workflow/outbox?businessId=${b}`)).body.data as any[];
const timers = async (id: number, c: string) => (await f.api('GET', `/workflow/manage/${id}/contacts/${c}/journey`)).body.data.runs.flatMap((r: any) => r.timers);
const setStart = (b: number, startTime: number | null) => f.api('PUT', `/livestream/channels/businessId/${b}/channelId/ch1`, { startTime });
const submit = (b: number, c = 'c1') => event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: c });

test('10. countdown fires at startTime - countdownValue', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, countdownGraph()));
  await submit(b);
  const [t] = await timers(id, 'c1');
  assert.equal(t.kind, 'countdown');
  assert.equal(t.state, 'pending');
  assert.equal(t.fireAt, t0 + H);
  await f.clock({ set: t0 + 59 * M });
  assert.equal((await outbox(b)).length, 0);
  await f.clock({ set: t0 + H + 1000 });
  const out = await outbox(b);
  assert.equal(out.length, 1);
  assert.equal(out[0].content, 'starts in 1h');
});

test('11a. countdown target already passed but stream not started: fires at once, late', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  await setStart(b, t0 + 30 * M);
  const id = await save(f, workflow(b, countdownGraph()));
  await submit(b);
  assert.equal((await outbox(b)).length, 1);
  const log = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data;
  const cd = log.find((e: any) => e.elementDisplayId === 'block-a1');
  assert.equal(cd.status, 'succeeded');
  assert.equal(cd.late, true);
});

test('11b. countdown after the stream started is skipped (countdown_passed)', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  await setStart(b, t0 - M);
  const id = await save(f, workflow(b, countdownGraph()));
  await submit(b);
  const log = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data;
  assert.equal(log.length, 1);
  assert.equal(log[0].status, 'skipped');
  assert.equal(log[0].reason, 'countdown_passed');
  await f.clock({ advance: 3 * H });
  assert.equal((await outbox(b)).length, 0);
});

test('11c. startTime null waits; setting it schedules the countdown', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  await setStart(b, null);
  const id = await save(f, workflow(b, countdownGraph()));
  await submit(b);
  let [t] = await timers(id, 'c1');
  assert.equal(t.state, 'pending');
  assert.equal(t.fireAt, null);
  assert.equal((await setStart(b, t0 + 2 * H)).status, 200);
  [t] = await timers(id, 'c1');
  assert.equal(t.fireAt, t0 + H);
  await f.clock({ set: t0 + H });
  assert.equal((await outbox(b)).length, 1);
});

test('12. countdown reschedule on startTime change', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, countdownGraph()));
  await submit(b);
  await setStart(b, t0 + 3 * H);
  const [t] = await timers(id, 'c1');
  assert.equal(t.fireAt, t0 + 2 * H);
  assert.equal(t.history.length, 2);
  assert.equal(t.history[1].reason, 'startTime_changed');
  await f.clock({ set: t0 + H + 1000 });
  assert.equal((await outbox(b)).length, 0, 'nothing at T0+1h');
  await f.clock({ set: t0 + 2 * H });
  assert.equal((await outbox(b)).length, 1, 'one message at T0+2h');

  // Moving the start earlier so that the new target is already past (but before the start): fires late.
  const s2 = await scenario(f);
  await channels(f, s2.b, s2.t0);
  const id2 = await save(f, workflow(s2.b, countdownGraph()));
  await submit(s2.b);
  await setStart(s2.b, s2.t0 + 3 * H);
  await f.clock({ set: s2.t0 + H + 15 * M });
  assert.equal((await outbox(s2.b)).length, 0);
  await setStart(s2.b, s2.t0 + 2 * H + 10 * M);
  assert.equal((await outbox(s2.b)).length, 1);
  const cd = (await f.api('GET', `/workflow/actions?workflowId=${id2}`)).body.data.find((e: any) => e.elementDisplayId === 'block-a1');
  assert.equal(cd.late, true);
});

test('13. countdown overrides delay', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  await save(f, workflow(b, countdownGraph({ delay: 600_000 })));
  await submit(b);
  await f.clock({ set: t0 + 10 * M + 1000 });
  assert.equal((await outbox(b)).length, 0, 'not at T0+10m');
  await f.clock({ set: t0 + H });
  const out = await outbox(b);
  assert.equal(out.length, 1, 'at T0+1h');
  assert.equal(out[0].at, t0 + H);
  await f.clock({ set: t0 + H + 10 * M });
  assert.equal((await outbox(b)).length, 1);
});

test('deleting a channel cancels its pending countdowns (channel_deleted)', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, countdownGraph()));
  await submit(b);
  const del = await f.api('DELETE', `/livestream/channels/businessId/${b}/channelId/ch1`);
  assert.equal(del.status, 200, del.body.error);
  assert.equal(del.body.data.cancelledTimers, 1);
  const [t] = await timers(id, 'c1');
  assert.equal(t.state, 'cancelled');
  const log = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data;
  assert.deepEqual(log.map((e: any) => [e.status, e.reason]), [['cancelled', 'channel_deleted']]);
  const runs = (await f.api('GET', `/workflow/manage/${id}/runs`)).body.data;
  assert.equal(runs[0].status, 'cancelled');
  await f.clock({ set: t0 + 2 * H });
  assert.equal((await outbox(b)).length, 0);
  assert.deepEqual((await f.api('GET', `/livestream/channels/businessId/${b}`)).body.data.map((c: any) => c.channelId), ['ch2']);
  const gone = await submit(b);
  assert.equal(gone.status, 404);
});
