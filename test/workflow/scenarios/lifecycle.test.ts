/** Acceptance scenarios 15–19 and 22 (enable/disable, live-stream state, delete, webhook retries). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { A, E, H, R, channels, event, save, scenario, startFlow, workflow, type Flow } from '../helpers.ts';

let f: Flow;
before(async () => { f = await startFlow(); });
after(async () => { await f?.server.destroy(); });

const tags = async (b: number, c: string) => (await f.api('GET', `/contacts/${b}/${c}/tags`)).body.data as string[];
const state = async (b: number, c: string) => (await f.api('GET', `/rest/livestream/state/${b}/${c}?channelId=ch1&raw=true`)).body.data;
const stats = async (id: number) => (await f.api('GET', `/workflow/manage/${id}/statistics`)).body.data;
const delayGraph = (within?: number) => [E('ch1', 'apply'), A('block-a1', { action: 'tag', actionValue: 'x', delay: 60_000, ...(within ? { within } : {}) }, ['path-1'])];

test('15. enable / disable: held timers, rejections, release on enable', async () => {
  const { b } = await scenario(f);
  await channels(f, b, await f.now());
  const id = await save(f, workflow(b, delayGraph()));
  await event(f, { event: 'apply', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  const dis = await f.api('POST', `/workflow/manage/${id}/disable`);
  assert.equal(dis.status, 200);
  assert.equal(dis.body.data.enable, false);
  assert.equal((await f.api('POST', `/workflow/manage/${id}/disable`)).status, 200, 'idempotent');
  const c2 = await event(f, { event: 'apply', channel_id: 'ch1', business_id: b, contact_id: 'c2' });
  assert.deepEqual(c2.body.data.entryRejected, [{ workflowId: id, reason: 'disabled' }]);
  assert.equal((await state(b, 'c2')).contactChannelState.ch1.applyCount, 1, "c2's state still updates");
  await f.clock({ advance: 61_000 });
  const j = (await f.api('GET', `/workflow/manage/${id}/contacts/c1/journey`)).body.data;
  assert.equal(j.pendingTimers[0].state, 'held');
  assert.deepEqual(await tags(b, 'c1'), []);
  assert.equal((await stats(id)).elements['block-a1'].held, 1);
  const en = await f.api('POST', `/workflow/manage/${id}/enable`);
  assert.equal(en.status, 200);
  assert.deepEqual(await tags(b, 'c1'), ['x']);
  const log = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data;
  assert.equal(log.length, 1);
  assert.equal(log[0].status, 'succeeded');
  assert.equal((await stats(id)).entryRejected.disabled, 1);

  // With within: 30 s and a 60 s pause the held action has expired by the time it is released.
  const s2 = await scenario(f);
  await channels(f, s2.b, s2.t0);
  const id2 = await save(f, workflow(s2.b, delayGraph(30_000)));
  await event(f, { event: 'apply', channel_id: 'ch1', business_id: s2.b, contact_id: 'c1' });
  await f.api('POST', `/workflow/manage/${id2}/disable`);
  await f.clock({ advance: 120_000 });
  await f.api('POST', `/workflow/manage/${id2}/enable`);
  assert.deepEqual(await tags(s2.b, 'c1'), []);
  const log2 = (await f.api('GET', `/workflow/actions?workflowId=${id2}`)).body.data;
  assert.deepEqual(log2.map((e: any) => e.status), ['expired']);
});

test('16. live status rule with explicit yes/no branches', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0, 'live');
  const id = await save(f, workflow(b, [
    E('ch1', 'play'),
    R('block-r1', [['livestream_rule_livestatus_ch1', 'in', 'live']], ['path-1'], ['path-n', 'path-y'], { yes: 'path-y', no: 'path-n' }),
    A('block-a1', { action: 'tag', actionValue: 'live-joiner' }, ['path-y']),
    A('block-a2', { action: 'tag', actionValue: 'offline-joiner' }, ['path-n']),
  ]));
  await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  assert.deepEqual(await tags(b, 'c1'), ['live-joiner']);
  assert.equal((await f.api('POST', `/livestream/channels/businessId/${b}/channelId/ch1/status`, { liveStatus: 'end' })).status, 200);
  await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c2' });
  assert.deepEqual(await tags(b, 'c2'), ['offline-joiner']);
  const s = await stats(id);
  assert.equal(s.elements['block-r1'].yes, 1);
  assert.equal(s.elements['block-r1'].no, 1);
});

test('17. play duration via viewlog, idempotent', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const rec = (ms: number) => ({ business_id: b, records: [{ play_id: 'p1', channel_id: 'ch1', contact_id: 'c1', play_type: 'live', play_duration_ms: ms }] });
  for (const ms of [300_000, 300_000, 240_000]) {
    const r = await f.api('POST', '/rest/livestream/viewlog', rec(ms));
    assert.equal(r.status, 200, r.body.error);
    assert.equal(r.body.data.results[0].success, true);
  }
  const st = await state(b, 'c1');
  assert.equal(st.livestream_rule_playduration_ch1, 300_000);
  assert.equal(st.livestream_rule_isplaylive_ch1, 'yes');
  assert.equal(st.livestream_rule_playtype_ch1, 'live');
  assert.equal(st.livestream_rule_playcount_ch1, 0);
  await save(f, workflow(b, [
    E('ch1', 'submit'),
    R('block-r1', [['livestream_rule_playduration_ch1', 'greaterThan', '200000']], ['path-1'], ['path-2']),
    A('block-a1', { action: 'tag', actionValue: 'watched' }, ['path-2']),
  ]));
  await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  assert.deepEqual(await tags(b, 'c1'), ['watched']);
});

test('18. isplaylive and playtype inferred from the channel status', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0, 'playback');
  await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c3' });
  let st = await state(b, 'c3');
  assert.equal(st.livestream_rule_playtype_ch1, 'vod');
  assert.equal(st.livestream_rule_isplaylive_ch1, 'no');
  await f.api('POST', `/livestream/channels/businessId/${b}/channelId/ch1/status`, { liveStatus: 'live' });
  await f.clock({ advance: 1000 });
  await event(f, { event: 'play', channel_id: 'ch1', business_id: b, contact_id: 'c3' });
  st = await state(b, 'c3');
  assert.equal(st.livestream_rule_playtype_ch1, 'live');
  assert.equal(st.livestream_rule_isplaylive_ch1, 'yes');
});

test('19. delete cancels pending timers', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const id = await save(f, workflow(b, [
    E('ch1', 'submit'),
    A('block-a1', { action: 'countdown', countdown: 'livestream_rule_starttime_ch1', countdownValue: 3_600_000 }, ['path-1'], ['path-2']),
    A('block-a2', { action: 'message', actionValue: { channel: 'sms', content: 'soon' } }, ['path-2']),
  ]));
  for (const c of ['c1', 'c2']) await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: c });
  const del = await f.api('DELETE', `/workflow/manage/${id}`);
  assert.equal(del.status, 200, del.body.error);
  assert.equal(del.body.data.cancelledTimers, 2);
  assert.equal(del.body.data.cancelledRuns, 2);
  const get = await f.api('GET', `/workflow/manage/${id}`);
  assert.equal(get.status, 404);
  assert.match(get.body.error, /^WORKFLOW_NOT_FOUND: /);
  await f.clock({ set: t0 + H + 1000 });
  assert.equal((await f.api('GET', `/workflow/outbox?businessId=${b}`)).body.data.length, 0);
  const again = await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c3' });
  assert.deepEqual(again.body.data.runsStarted, []);
});

/** A loopback webhook receiver answering with the given statuses in turn (then the last one). */
async function hookServer(statuses: number[]): Promise<{ url: string; keys: string[]; bodies: any[]; close(): Promise<void> }> {
  const keys: string[] = [];
  const bodies: any[] = [];
  let n = 0;
  const srv: Server = createServer((req, res) => {
    keys.push(String(req.headers['idempotency-key']));
    let text = '';
    req.on('data', (d) => { text += d; });
    req.on('end', () => { bodies.push(JSON.parse(text)); res.statusCode = statuses[Math.min(n++, statuses.length - 1)]; res.end('{}'); });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/hook`, keys, bodies, close: () => new Promise((r) => srv.close(() => r())) };
}

test('22. webhook retry with one idempotency key; a 4xx fails the run', async () => {
  const hook = await hookServer([500, 500, 200]);
  try {
    const { b, t0 } = await scenario(f);
    await channels(f, b, t0);
    const graph = (url: string) => [
      E('ch1', 'submit'),
      A('block-a1', { action: 'webhook', actionValue: { url, method: 'POST' } }, ['path-1'], ['path-2']),
      A('block-a2', { action: 'tag', actionValue: 'after-hook' }, ['path-2']),
    ];
    const id = await save(f, workflow(b, graph(hook.url)));
    const r = await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
    const runId = r.body.data.runsStarted[0].runId;
    assert.equal(hook.keys.length, 1);
    await f.clock({ advance: 1000 });
    assert.equal(hook.keys.length, 2);
    await f.clock({ advance: 5000 });
    assert.equal(hook.keys.length, 3);
    assert.deepEqual(hook.keys, Array(3).fill(`${runId}:block-a1`));
    const sent = hook.bodies[0];
    assert.deepEqual([sent.workflowId, sent.runId, sent.elementDisplayId, sent.businessId, sent.contactId], [id, runId, 'block-a1', b, 'c1']);
    assert.equal(sent.actionValue.url, hook.url);
    assert.equal(typeof sent.at, 'number');
    const log = (await f.api('GET', `/workflow/actions?workflowId=${id}`)).body.data;
    const wh = log.filter((e: any) => e.elementDisplayId === 'block-a1');
    assert.equal(wh.length, 1);
    assert.equal(wh[0].status, 'succeeded');
    assert.equal(wh[0].attempt, 3);
    assert.equal(log.filter((e: any) => e.elementDisplayId === 'block-a2').length, 1, 'downstream ran once');
    assert.deepEqual(await tags(b, 'c1'), ['after-hook']);
    await f.clock({ advance: 60_000 });
    assert.equal(hook.keys.length, 3, 'no further calls');

    const bad = await hookServer([400]);
    try {
      const s2 = await scenario(f);
      await channels(f, s2.b, s2.t0);
      const id2 = await save(f, workflow(s2.b, graph(bad.url)));
      await event(f, { event: 'submit', channel_id: 'ch1', business_id: s2.b, contact_id: 'c1' });
      await f.clock({ advance: 60_000 });
      assert.equal(bad.keys.length, 1, 'a 4xx is not retried');
      const log2 = (await f.api('GET', `/workflow/actions?workflowId=${id2}`)).body.data;
      assert.deepEqual(log2.map((e: any) => [e.elementDisplayId, e.status, e.attempt]), [['block-a1', 'failed', 1]]);
      const runs = (await f.api('GET', `/workflow/manage/${id2}/runs`)).body.data;
      assert.equal(runs[0].status, 'failed');
      assert.equal((await stats(id2)).failed, 1);
      assert.deepEqual(await tags(s2.b, 'c1'), []);
    } finally { await bad.close(); }
  } finally { await hook.close(); }
});
