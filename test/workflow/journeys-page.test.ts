/**
 * The journey page at /journeys on the workflow port.
 * - Over HTTP on a real Tessera child: `/` redirects to `/journeys`; the page, its script and style are
 *   served locally.
 * - In headless Chromium (Debian's `chromium` driven by playwright-core) on a real Tessera child with the
 *   test clock: build a workflow with the channel picker (a validation error shows beside its element),
 *   save it, send events through the API and watch the per-element counts move on the graph, then look up
 *   one contact's journey over it. Skips when /usr/bin/chromium is absent (`apt-get install -y chromium`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { H, event, startFlow } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} not installed (apt-get install -y chromium)`;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

test('/ redirects to /journeys; page, script and style are served locally', async () => {
  const f = await startFlow();
  try {
    const root = await fetch(f.server.flowUrl + '/', { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/journeys');
    const page = await fetch(f.server.flowUrl + '/journeys');
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<script src="\/journeys\/journeys.js">/);
    assert.doesNotMatch(html, /https?:\/\//, 'no external resources');
    for (const [file, type] of [['journeys.js', /javascript/], ['journeys.css', /css/]] as const) {
      const r = await fetch(`${f.server.flowUrl}/journeys/${file}`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', type);
    }
    assert.equal((await fetch(f.server.flowUrl + '/journeys/nope.js')).status, 404);
  } finally { await f.server.destroy(); }
});

/** The number shown for `stat` on the graph node of `displayId` (NaN when absent). */
async function shown(page: Page, displayId: string, stat: string): Promise<number> {
  return page.$eval(`#node-${displayId}`, (n, s) => Number(n.querySelector(`.stat-${s} b`)?.textContent ?? 'NaN'), stat);
}

async function waitShown(page: Page, displayId: string, stat: string, want: number): Promise<void> {
  await page.waitForFunction(([id, s, w]) => {
    const b = (globalThis as any).document.querySelector(`#node-${id} .stat-${s} b`);
    return b !== null && Number(b.textContent) === w;
  }, [displayId, stat, want] as const);
}

async function add(page: Page, o: { type: string; after: string; channel?: string; event?: string; property?: string; operation?: string; value?: string; action?: string; actionValue?: string; minutes?: string }): Promise<void> {
  await page.selectOption('#add-type', o.type);
  await page.selectOption('#add-after', o.after);
  if (o.channel) await page.selectOption('#add-channel', o.channel);
  if (o.event) await page.selectOption('#add-event', o.event);
  if (o.property) await page.selectOption('#add-property', o.property);
  if (o.operation) await page.selectOption('#add-operation', o.operation);
  if (o.value !== undefined) await page.fill('#add-value', o.value);
  if (o.action) await page.selectOption('#add-action', o.action);
  await page.fill('#add-action-value', o.actionValue ?? '');
  await page.fill('#add-countdown', o.minutes ?? '');
  await page.fill('#add-delay', '');
  await page.click('#add-element');
}

test('journey page in Chromium: build with the channel picker, see validation errors, counts move, a contact\'s journey', { skip, timeout: 180_000 }, async () => {
  const f = await startFlow();
  const profile = mkdtempSync(join(tmpdir(), 'tessera-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  try {
    const T0 = 50_000_000;
    await f.clock({ set: T0 });
    for (const [channelId, name, liveStatus] of [['ch1', 'Launch', 'unStart'], ['ch-2', 'Replay', 'playback']]) {
      await f.api('POST', '/livestream/channels', { businessId: 170, channelId, name, liveStatus, startTime: T0 + 2 * H });
    }
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${f.server.flowUrl}/`);
    assert.equal(await page.title(), 'Tessera journeys');
    await page.fill('#business', '170');
    await page.click('#load-business');
    await page.waitForSelector('#channels tbody tr:nth-child(2)');
    const channelRows = await page.$$eval('#channels tbody tr', (trs) => trs.map((tr) => tr.textContent));
    assert.deepEqual(channelRows, ['Launch (ch1)unStart1970-01-01 15:53', 'Replay (ch-2)playback1970-01-01 15:53']);

    await page.click('#new-workflow');
    await page.fill('#ed-title', 'launch reminder');
    await add(page, { type: 'Event', after: '', channel: 'ch1', event: 'submit' });
    await add(page, { type: 'Rule', after: 'block-1', channel: 'ch1', property: 'playcount', operation: 'greaterThan', value: 'abc' });
    await add(page, { type: 'Action', after: 'block-2|yes', action: 'tag', actionValue: 'vip' });
    const draft = await page.$$eval('#ed-elements li', (lis) => lis.map((li) => li.textContent));
    assert.match(draft[0]!, /eventValue in livestream-submit-ch1/);
    assert.match(draft[1]!, /livestream_rule_playcount_ch1 greaterThan abc/);
    await page.click('#save-workflow');
    const err = await page.waitForSelector('#ed-elements li[data-id="block-2"] .el-error');
    assert.match(await err.textContent() ?? '', /^VALIDATION_ERROR: /, 'the error is shown beside the rule');
    assert.equal((await f.api('GET', '/workflow/manage?businessId=170')).body.data.total, 0, 'nothing saved');

    // Replace the rule: event → countdown 60 min before ch1 starts → tag.
    await page.click('#ed-elements li[data-id="block-3"] button.remove');
    await page.click('#ed-elements li[data-id="block-2"] button.remove');
    await add(page, { type: 'Action', after: 'block-1', channel: 'ch1', action: 'countdown', minutes: '60' });
    await add(page, { type: 'Action', after: 'block-2', action: 'tag', actionValue: 'vip' });
    await page.click('#save-workflow');
    await page.waitForSelector('#node-block-3');
    const list = (await f.api('GET', '/workflow/manage?businessId=170')).body.data;
    assert.equal(list.total, 1);
    const wf = list.items[0];
    assert.deepEqual([wf.version, wf.title, wf.enable, wf.status], [1, 'launch reminder', true, 1]);
    const byId = Object.fromEntries(wf.workflowElements.map((e: any) => [e.displayId, e]));
    assert.deepEqual(byId['block-1'].properties.map((p: any) => [p.name, p.value]), [['event', 'livestream'], ['eventValue', 'livestream-submit-ch1']]);
    assert.deepEqual(JSON.parse(byId['block-2'].extensions), { action: 'countdown', countdown: 'livestream_rule_starttime_ch1', countdownValue: 3_600_000 });
    assert.deepEqual(JSON.parse(byId['block-3'].extensions), { action: 'tag', actionValue: 'vip' });

    // Events through the API: the graph's counts follow.
    await waitShown(page, 'block-1', 'arrived', 0);
    for (const c of ['c1', 'c2']) await event(f, { event: 'submit', channel_id: 'ch1', business_id: 170, contact_id: c });
    await waitShown(page, 'block-1', 'arrived', 2);
    await waitShown(page, 'block-2', 'waiting', 2);
    assert.equal(await shown(page, 'block-3', 'executed'), 0);
    await f.clock({ set: T0 + H + 1000 });
    await waitShown(page, 'block-3', 'executed', 2);
    await waitShown(page, 'block-2', 'waiting', 0);

    await page.fill('#contact', 'c1');
    await page.click('#show-journey');
    await page.waitForSelector('#journey p.run');
    assert.match(await page.textContent('#journey p.run') ?? '', /run 1 .* completed: block-1 entered → block-2 scheduled → block-2 executed → block-3 executed/);
    const visited = await page.$$eval('.node.visited', (ns) => ns.map((n) => (n as any).dataset.id));
    assert.deepEqual(visited, ['block-1', 'block-2', 'block-3']);
  } finally {
    await ctx.close();
    await f.server.destroy();
  }
});
