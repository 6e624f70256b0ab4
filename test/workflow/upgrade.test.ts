/**
 * Upgrade of workflow state layout 1 (the shared store's `wf_*` databases plus the inbound-event WAL) to
 * layout 2, on a data directory written by the layout-1 build (test/fixtures/format/workflow-v1, made with
 * the test clock at 10,000,000): two workflows of business 170 — 1: submit → countdown 1 h before ch1's
 * start (T0+2h) → message; 2: play → playcount > 1 → tag — with c1, c2, c3 submitted (countdowns
 * pending), three plays of c1 (event ids p-0..p-2), a viewlog of c2, and the submits of c4 and c5
 * acknowledged but only in the WAL (the process was killed before its LMDB commit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../support/server.ts';
import { client, event, H } from './helpers.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/format/workflow-v1', import.meta.url));
const T0 = 10_000_000;

test('layout 1 → 2: catalog, runs, pending countdowns, WAL-only events and dedupe marks survive; each countdown fires once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-wf-upgrade-'));
  cpSync(FIXTURE, dataDir, { recursive: true });
  let f = client(await startServer({ services: ['workflow'], dataDir, args: ['--workflow.test-clock'] }));
  try {
    assert.ok(existsSync(join(dataDir, 'workflow', 'p0')), 'layout-2 partition directory created');
    assert.equal(await f.now(), T0, 'the persisted test clock is carried over');
    const list = (await f.api('GET', '/workflow/manage?businessId=170')).body.data;
    assert.deepEqual(list.items.map((w: any) => w.title), ['countdown', 'tagger']);
    const s1 = (await f.api('GET', '/workflow/manage/1/statistics')).body.data;
    assert.equal(s1.entered, 5, 'c1..c3 from LMDB, c4 and c5 replayed from the WAL');
    assert.equal(s1.active, 5);
    assert.equal(s1.elements['block-a1'].waiting, 5);
    const s2 = (await f.api('GET', '/workflow/manage/2/statistics')).body.data;
    assert.deepEqual([s2.entered, s2.completed, s2.elements['block-r1'].yes, s2.elements['block-r1'].no], [3, 3, 2, 1]);
    assert.deepEqual((await f.api('GET', '/contacts/170/c1/tags')).body.data, ['repeat-viewer']);
    const state = (await f.api('GET', '/rest/livestream/state/170/c2?channelId=ch1')).body.data;
    assert.equal(state.livestream_rule_playduration_ch1, 300000);
    assert.equal(state.livestream_rule_isplaylive_ch1, 'yes');
    const dup = await event(f, { event: 'play', channel_id: 'ch1', business_id: 170, contact_id: 'c1', event_id: 'p-1' });
    assert.equal(dup.body.data.duplicate, true, 'dedupe marks of layout 1 still apply');
    const j = (await f.api('GET', '/workflow/manage/1/contacts/c4/journey')).body.data;
    assert.equal(j.pendingTimers.length, 1);
    assert.equal(j.pendingTimers[0].fireAt, T0 + H);
    const runs = (await f.api('GET', '/workflow/manage/2/runs?contactId=c1')).body.data;
    assert.deepEqual(runs.map((r: any) => r.entryNo), [1, 2, 3]);
    // A new play of c1 is entry 4: the entry counters were converted too.
    await event(f, { event: 'play', channel_id: 'ch1', business_id: 170, contact_id: 'c1' });
    assert.equal((await f.api('GET', '/workflow/manage/2/runs?contactId=c1')).body.data.at(-1).entryNo, 4);

    await f.clock({ set: T0 + H - 1000 });
    assert.equal((await f.api('GET', '/workflow/outbox?businessId=170')).body.data.length, 0);
    await f.server.kill9();
    f = client(await f.server.restart());
    await f.clock({ set: T0 + H + 1000 });
    const out = (await f.api('GET', '/workflow/outbox?businessId=170')).body.data;
    assert.deepEqual(out.map((m: any) => m.contactId).sort(), ['c1', 'c2', 'c3', 'c4', 'c5']);
    await f.server.kill9();
    f = client(await f.server.restart());
    await f.clock({ advance: 3 * H });
    assert.equal((await f.api('GET', '/workflow/outbox?businessId=170')).body.data.length, 5, 'no countdown fired twice');
    assert.equal((await f.api('GET', '/workflow/manage/1/statistics')).body.data.completed, 5);
  } finally { await f.server.destroy(); }
});
