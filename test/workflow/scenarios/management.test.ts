/** Acceptance scenarios 1, 2 and 20 (workflow management) against a running server with the test clock. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { A, E, R, channels, event, save, scenario, startFlow, workflow, type Flow } from '../helpers.ts';

let f: Flow;
before(async () => { f = await startFlow(); });
after(async () => { await f?.server.destroy(); });

test('1. create and read back', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const body = workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'registered' }, ['path-1'])]);
  const created = await f.api('POST', '/workflow/manage', body);
  assert.equal(created.status, 200, created.body.error);
  assert.equal(created.body.success, true);
  assert.equal(created.body.error, '');
  const id = created.body.data.id;
  assert.ok(Number.isInteger(id) && id > 0);
  for (const el of created.body.data.workflowElements) {
    assert.ok(Number.isInteger(el.id));
    assert.equal(el.workflowId, id);
  }
  const got = await f.api('GET', `/workflow/manage/${id}`);
  assert.equal(got.status, 200);
  const wf = got.body.data;
  assert.equal(wf.version, 1);
  assert.equal(typeof wf.target, 'string');
  assert.deepEqual(JSON.parse(wf.target), JSON.parse(body.target as string));
  const sent = body.workflowElements as Record<string, string>[];
  wf.workflowElements.forEach((el: Record<string, string>, i: number) => {
    for (const k of ['incomings', 'outgoings']) {
      assert.equal(typeof el[k], 'string');
      assert.deepEqual(JSON.parse(el[k]), JSON.parse(sent[i][k]));
    }
    if (sent[i].extensions) assert.deepEqual(JSON.parse(el.extensions), JSON.parse(sent[i].extensions));
    assert.equal(el.metaString, sent[i].metaString);
  });
  assert.equal(wf.statistics.entered, 0);
  assert.ok(wf.createdDate > 0 && wf.lastUpdate > 0);
});

test('2. validation errors, and drafts may be incomplete', async () => {
  const { b } = await scenario(f);
  const expect400 = async (name: string, body: unknown, code: string) => {
    const r = await f.api('POST', '/workflow/manage', body);
    assert.equal(r.status, 400, `${name}: ${r.body.error}`);
    assert.equal(r.body.success, false);
    assert.match(r.body.error, new RegExp(`^${code}: `), name);
  };
  const { businessId: _drop, ...noBusiness } = workflow(b, [E('ch1', 'submit')]);
  await expect400('a', noBusiness, 'VALIDATION_ERROR');
  await expect400('b', workflow(b, [{ ...E('ch1', 'submit'), incomings: '[path-1' }]), 'INVALID_JSON');
  const note = { ...A('block-a1', {}, ['path-1']), extensions: '{"action":"tag","actionValue":{,"delay":0}' };
  await expect400('c', workflow(b, [E('ch1', 'submit'), note]), 'INVALID_JSON');
  const dangling = [E('ch1', 'submit'), R('block-r1', [['livestream_rule_playcount_ch1', 'greaterThan', '1']], ['path-x'], ['path-2'])];
  await expect400('d', workflow(b, dangling), 'GRAPH_INVALID');
  const cycle = [E('ch1', 'submit'), A('block-a1', { action: 'noop' }, ['path-1', 'path-3'], ['path-2']), A('block-a2', { action: 'noop' }, ['path-2'], ['path-3'])];
  await expect400('e', workflow(b, cycle), 'GRAPH_INVALID');
  const abc = [E('ch1', 'play'), R('block-r1', [['livestream_rule_playcount_ch1', 'greaterThan', 'abc']], ['path-1'], [])];
  await expect400('f', workflow(b, abc), 'VALIDATION_ERROR');
  await expect400('g', workflow(b, [E('ch1', 'play')], { version: 0, businessId: null, platId: 'wx-plat' }), 'LIVESTREAM_REQUIRES_VERSION_1');
  const draft = await f.api('POST', '/workflow/manage', workflow(b, dangling, { status: 0, enable: false }));
  assert.equal(draft.status, 200, draft.body.error);
  assert.equal(draft.body.data.status, 0);
  const list = await f.api('GET', `/workflow/manage?businessId=${b}`);
  assert.equal(list.body.data.total, 1, 'only the draft was stored');
});

test('20. editing a live workflow', async () => {
  const { b } = await scenario(f);
  await channels(f, b, await f.now());
  const v1 = workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'a1', delay: 60_000 }, ['path-1'])]);
  const id = await save(f, v1);
  const t0 = await f.now();
  assert.equal((await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' })).status, 200);
  const v2 = workflow(b, [
    E('ch1', 'submit'),
    A('block-a1', { action: 'tag', actionValue: 'a1', delay: 120_000 }, ['path-1'], ['path-2']),
    A('block-a2', { action: 'tag', actionValue: 'a2' }, ['path-2']),
  ], { id });
  const upd = await f.api('POST', '/workflow/manage', v2);
  assert.equal(upd.status, 200, upd.body.error);
  assert.equal(upd.body.data.revision, 2);
  const j = await f.api('GET', `/workflow/manage/${id}/contacts/c1/journey`);
  assert.equal(j.body.data.pendingTimers[0].fireAt, t0 + 60_000, 'fireAt unchanged by the edit');
  await f.clock({ advance: 60_000 });
  assert.deepEqual((await f.api('GET', `/contacts/${b}/c1/tags`)).body.data, ['a1', 'a2'], 'fired at +60 s, then block-a2');

  assert.equal((await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c2' })).status, 200);
  const v3 = workflow(b, [E('ch1', 'submit', 'block-e1', ['path-9'])], { id });
  assert.equal((await f.api('POST', '/workflow/manage', v3)).status, 200);
  const runs = await f.api('GET', `/workflow/manage/${id}/runs?contactId=c2`);
  assert.equal(runs.body.data.length, 1);
  assert.equal(runs.body.data[0].status, 'cancelled');
  assert.equal(runs.body.data[0].reason, 'element_removed');
  await f.clock({ advance: 200_000 });
  assert.deepEqual((await f.api('GET', `/contacts/${b}/c2/tags`)).body.data, []);

  const v0 = await f.api('POST', '/workflow/manage', { ...v3, version: 0, platId: 'wx' });
  assert.equal(v0.status, 409, v0.body.error);
  assert.match(v0.body.error, /^CONFLICT: /);
});

test('stopping (status=2) cancels runs and timers, is terminal, and keeps the workflow readable', async () => {
  const { b, t0 } = await scenario(f);
  await channels(f, b, t0);
  const body = workflow(b, [E('ch1', 'submit'), A('block-a1', { action: 'tag', actionValue: 'x', delay: 60_000 }, ['path-1'])]);
  const id = await save(f, body);
  await event(f, { event: 'submit', channel_id: 'ch1', business_id: b, contact_id: 'c1' });
  const stop = await f.api('POST', '/workflow/manage', { ...body, id, status: 2, enable: false });
  assert.equal(stop.status, 200, stop.body.error);
  const runs = (await f.api('GET', `/workflow/manage/${id}/runs`)).body.data;
  assert.deepEqual(runs.map((r: any) => [r.status, r.reason]), [['cancelled', 'stopped']]);
  await f.clock({ advance: 120_000 });
  assert.deepEqual((await f.api('GET', `/contacts/${b}/c1/tags`)).body.data, []);
  const s = (await f.api('GET', `/workflow/manage/${id}/statistics`)).body.data;
  assert.deepEqual([s.entered, s.active, s.cancelled, s.elements['block-a1'].waiting], [1, 0, 1, 0]);
  const again = await f.api('POST', '/workflow/manage', { ...body, id, status: 1, enable: true });
  assert.equal(again.status, 409);
  assert.match(again.body.error, /^CONFLICT: /);
  assert.equal((await f.api('GET', `/workflow/manage/${id}`)).status, 200);
});
