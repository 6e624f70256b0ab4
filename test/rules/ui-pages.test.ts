/**
 * The status pages of the metrics port beside /graph (Alerts, Rules, Targets, Status, TSDB Status, Flags,
 * Config, Service Discovery) and the metric-name completion of /graph.
 * - Over HTTP on a real Tessera child process: each page answers 200 text/html with the shared nav and its own
 *   script, the scripts and style are served locally, and the web config's basic auth covers the pages.
 * - In headless Chromium (Debian's `chromium` driven by playwright-core) on a real Tessera child process that
 *   scrapes one live target and one dead one and evaluates a rule file (a recording rule, one that fails, and
 *   alerts that are firing, pending and inactive): each page's rendered rows, states, labels and fields, label values and
 *   annotations shown as text (never as markup), and completion suggestions in the expression box. Skips when
 *   /usr/bin/chromium is absent (`apt-get install -y chromium`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { chromium, type Page } from 'playwright-core';
import { startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} not installed (apt-get install -y chromium): the browser checks are skipped`;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

const PAGES = ['graph', 'alerts', 'rules', 'targets', 'service-discovery', 'status', 'flags', 'config', 'tsdb-status'];
/** Markup in a label value and an annotation: the pages must show it as text. */
const HOSTILE = '<img src=x onerror="window.pwned=1">';

test('each UI page answers 200 text/html with the nav and its script; assets are local', { timeout: 60_000 }, async () => {
  const srv = await startServer({ services: ['metrics'] });
  try {
    for (const p of PAGES) {
      const r = await fetch(`${srv.promUrl}/${p}`);
      assert.equal(r.status, 200, p);
      assert.equal(r.headers.get('content-type'), 'text/html; charset=utf-8', p);
      const html = await r.text();
      for (const link of ['/graph', '/alerts', '/rules', '/targets', '/service-discovery', '/status', '/tsdb-status', '/flags', '/config']) {
        assert.ok(html.includes(`href="${link}"`), `${p}: nav links ${link}`);
      }
      assert.ok(html.includes(`<body data-page="${p}">`), `${p}: marks its nav entry`);
      assert.doesNotMatch(html, /https?:\/\//, `${p}: no external (CDN) references`);
      const script = p === 'graph' ? '/graph/graph.js' : `/static/${p}.js`;
      assert.ok(html.includes(`<script src="${script}">`), `${p}: loads ${script}`);
    }
    for (const [a, type] of [['/static/ui.css', 'text/css'], ['/static/common.js', 'application/javascript'], ['/graph/autocomplete.js', 'application/javascript']]) {
      const r = await fetch(srv.promUrl + a);
      assert.equal(r.status, 200, a);
      assert.match(r.headers.get('content-type') ?? '', new RegExp(`^${type}`), a);
      assert.ok((await r.text()).length > 200, `${a} has content`);
    }
    assert.match(await (await fetch(`${srv.promUrl}/status`)).text(), /<title>Tessera Runtime &amp; Build Information<\/title>/);
    assert.equal((await fetch(`${srv.promUrl}/static/nope.js`)).status, 404);
    assert.equal((await fetch(`${srv.promUrl}/static/layout.html`)).status, 404, 'only the listed assets are served');
    // HEAD falls back to GET, as for the API.
    assert.equal((await fetch(`${srv.promUrl}/targets`, { method: 'HEAD' })).status, 200);
  } finally {
    await srv.destroy();
  }
});

test('the UI pages sit behind the web config basic auth like the API', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-ui-auth-'));
  writeFileSync(join(dir, 'web.yml'), `basic_auth_users:\n  alice: '${bcrypt.hashSync('alice-pw', 4)}'\n`);
  const srv = await startServer({ services: ['metrics'], args: ['--web.config.file', join(dir, 'web.yml')] });
  try {
    const auth = { Authorization: `Basic ${Buffer.from('alice:alice-pw').toString('base64')}` };
    for (const p of ['/targets', '/alerts', '/status', '/static/common.js', '/graph/autocomplete.js']) {
      const none = await fetch(srv.promUrl + p);
      assert.equal(none.status, 401, p);
      assert.equal(none.headers.get('www-authenticate'), 'Basic', p);
      assert.equal((await fetch(srv.promUrl + p, { headers: auth })).status, 200, p);
    }
  } finally {
    await srv.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A scrape target serving one gauge; Tessera scrapes it as the live target. */
async function startTarget(): Promise<{ server: Server; address: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' });
    res.end('# TYPE ui_demo_gauge gauge\nui_demo_gauge 7\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { server, address: `127.0.0.1:${port}` };
}

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const RULES = `groups:
  - name: ui-demo
    interval: 1s
    rules:
      - record: ui_demo:three
        expr: vector(3)
      - record: ui_demo:broken
        expr: (vector(1) or label_replace(vector(1), "a", "b", "", "")) + on() (vector(1) or label_replace(vector(1), "a", "b", "", ""))
      - alert: AlwaysFiring
        expr: vector(1)
        labels:
          severity: page
          value: '{{ $value }}'
        annotations:
          summary: 'fires ${HOSTILE}'
      - alert: SlowBurn
        expr: vector(1)
        for: 1h
      - alert: NeverFires
        expr: vector(0) > 1
`;

interface Api<T> { data: T }
type Target = { health: string; scrapePool: string };
type Alert = { labels: Record<string, string>; state: string };

async function loaded(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-loaded]');
  assert.equal(await page.getAttribute('body', 'data-loaded'), 'ok', `${url}: ${await page.textContent('#error')}`);
}

const texts = (page: Page, sel: string): Promise<string[]> => page.$$eval(sel, (els) => els.map((e) => (e.textContent ?? '').trim()));

test('UI pages in Chromium against a server with a live and a dead target and a rule file', { skip, timeout: 180_000 }, async () => {
  const target = await startTarget();
  const dead = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'tessera-ui-'));
  writeFileSync(join(dir, 'rules.yml'), RULES);
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: ["rules.yml"]\n` +
    `scrape_configs:\n  - job_name: live\n    static_configs:\n      - targets: ["${target.address}", "drop.invalid:80"]\n        labels:\n          note: '${HOSTILE}'\n` +
    `    relabel_configs:\n      - source_labels: [__address__]\n        regex: 'drop.invalid:80'\n        action: drop\n` +
    `  - job_name: dead\n    static_configs:\n      - targets: ["127.0.0.1:${dead}"]\n`);
  const srv = await startServer({ services: ['metrics'], args: ['--config.file', join(dir, 'prometheus.yml')] });
  const profile = mkdtempSync(join(tmpdir(), 'tessera-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  const get = async <T>(path: string): Promise<T> => ((await (await fetch(srv.promUrl + path)).json()) as Api<T>).data;
  try {
    // The pages show what the API says when they load: wait until both targets were scraped, the alerts are
    // in their states and the recorded series is a known metric name.
    await waitFor('both targets scraped', async () =>
      (await get<{ activeTargets: Target[] }>('/api/v1/targets')).activeTargets.every((t) => t.health !== 'unknown'));
    await waitFor('AlwaysFiring firing and SlowBurn pending', async () => {
      const alerts = (await get<{ alerts: Alert[] }>('/api/v1/alerts')).alerts;
      return alerts.some((a) => a.labels.alertname === 'AlwaysFiring' && a.state === 'firing') &&
        alerts.some((a) => a.labels.alertname === 'SlowBurn' && a.state === 'pending');
    });
    await waitFor('ui_demo:broken evaluated (and failed)', async () =>
      (await get<{ groups: { rules: { name: string; health: string }[] }[] }>('/api/v1/rules')).groups[0].rules.some((r) => r.name === 'ui_demo:broken' && r.health === 'err'));
    await waitFor('the recorded and the scraped series among the metric names', async () => {
      const names = await get<string[]>('/api/v1/label/__name__/values');
      return names.includes('ui_demo:three') && names.includes('ui_demo_gauge');
    });

    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const base = srv.promUrl;

    // Targets: one pool per job, the live one up, the dead one down with the dial error.
    await loaded(page, `${base}/targets`);
    assert.deepEqual(await texts(page, 'details.pool > summary'), ['dead (0/1 up)', 'live (1/1 up)']);
    const live = page.locator('details[data-pool="live"] tr.target');
    assert.equal(await live.count(), 1);
    assert.equal((await live.locator('.endpoint').textContent())?.trim(), `http://${target.address}/metrics`);
    assert.equal((await live.locator('.state').textContent())?.trim(), 'UP');
    assert.deepEqual(await live.locator('.target-labels .badge').allTextContents(),
      [`instance="${target.address}"`, 'job="live"', `note="${HOSTILE}"`]);
    assert.match((await live.locator('.last-scrape').textContent()) ?? '', /^\d[\d.]*(ms|s)( \d+s)? ago$|^\d+m/);
    assert.match((await live.locator('.duration').textContent()) ?? '', /^[\d.]+(ms|s)$/);
    const down = page.locator('details[data-pool="dead"] tr.target');
    assert.equal((await down.locator('.state').textContent())?.trim(), 'DOWN');
    assert.match((await down.locator('.scrape-error').textContent()) ?? '', /connection refused/);
    assert.equal(await page.locator('img').count(), 0, 'label markup is text, not elements');

    await page.check('#unhealthy-only');
    assert.deepEqual(await texts(page, 'details.pool > summary'), ['dead (0/1 up)']);
    assert.match(page.url(), /\/targets\?unhealthy=1$/);
    await page.uncheck('#unhealthy-only');
    await page.click('#collapse-all');
    assert.equal(await page.locator('details.pool[open]').count(), 0);
    assert.equal(await live.isVisible(), false, 'a collapsed pool hides its targets');
    await page.click('details[data-pool="live"] > summary');
    assert.equal(await live.isVisible(), true);

    // Service discovery: the live pool's kept target with the labels relabelling gave it, and the dropped one.
    await loaded(page, `${base}/service-discovery`);
    assert.deepEqual(await texts(page, '#pool-index li'), ['dead (1 / 1 active targets)', 'live (1 / 2 active targets)']);
    const sd = page.locator('section[data-pool="live"] tr.sd-target');
    assert.equal(await sd.count(), 2);
    assert.deepEqual(await sd.nth(0).locator('.target-labels .badge').allTextContents(),
      [`instance="${target.address}"`, 'job="live"', `note="${HOSTILE}"`]);
    assert.ok((await sd.nth(0).locator('.discovered .badge').allTextContents()).includes(`__address__="${target.address}"`));
    assert.equal(await sd.nth(1).getAttribute('data-dropped'), 'true');
    assert.equal((await sd.nth(1).locator('.target-labels').textContent())?.trim(), 'Dropped');
    assert.ok((await sd.nth(1).locator('.discovered .badge').allTextContents()).includes('__address__="drop.invalid:80"'));
    assert.equal(await page.locator('img').count(), 0);

    // Alerts: rules by state with counts; the firing alert with its labels and annotation as text.
    await loaded(page, `${base}/alerts`);
    assert.deepEqual([await page.textContent('#count-inactive'), await page.textContent('#count-pending'), await page.textContent('#count-firing')], ['1', '1', '1']);
    assert.deepEqual(await page.$$eval('details.alert-rule', (els) => els.map((e) => [e.getAttribute('data-rule'), e.getAttribute('data-state')])),
      [['AlwaysFiring', 'firing'], ['SlowBurn', 'pending'], ['NeverFires', 'inactive']]);
    const firing = page.locator('details[data-rule="AlwaysFiring"] tr.alert');
    assert.equal(await firing.count(), 1);
    // A templated label: the alert's value differs from the rule's text, and the alert is still under its rule.
    assert.deepEqual(await firing.locator('.badge.label').allTextContents(), ['alertname="AlwaysFiring"', 'severity="page"', 'value="1"']);
    assert.equal(await page.textContent('#active-summary'), '2 active alerts (1 firing)');
    assert.equal((await firing.locator('.badge.state-firing').textContent())?.trim(), 'FIRING');
    assert.match((await firing.locator('.active-at').textContent()) ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    assert.equal(await firing.locator('.annotations dd').textContent(), `fires ${HOSTILE}`);
    assert.equal(await page.locator('img').count(), 0, 'annotation markup is text, not elements');
    assert.match((await page.textContent('details[data-rule="SlowBurn"] .rule-definition')) ?? '', /for: 1h/);
    await page.uncheck('.state-filter[value="inactive"]');
    assert.equal(await page.locator('details.alert-rule').count(), 2, 'inactive rules filtered out');
    await page.uncheck('#show-annotations');
    assert.equal(await page.locator('.annotations').count(), 0);

    // Rules: the group with both kinds, health and evaluation time.
    await loaded(page, `${base}/rules`);
    assert.deepEqual(await page.$$eval('tr.rule', (trs) => trs.map((t) => [t.getAttribute('data-rule'), t.getAttribute('data-type')])),
      [['ui_demo:three', 'recording'], ['ui_demo:broken', 'recording'], ['AlwaysFiring', 'alerting'], ['SlowBurn', 'alerting'], ['NeverFires', 'alerting']]);
    const rec = page.locator('tr.rule[data-rule="ui_demo:three"]');
    assert.equal(await rec.locator('.definition').textContent(), 'record: ui_demo:three\nexpr: vector(3)');
    assert.equal((await rec.locator('.health').textContent())?.trim(), 'OK');
    assert.equal((await rec.locator('.last-error').textContent())?.trim(), '');
    const broken = page.locator('tr.rule[data-rule="ui_demo:broken"]');
    assert.equal((await broken.locator('.health').textContent())?.trim(), 'ERR');
    assert.match((await broken.locator('.last-error').textContent()) ?? '', /many-to-many matching not allowed/);
    assert.match(await page.textContent('section.group[data-group="ui-demo"] thead') ?? '', /rules\.yml · every 1s/);

    // Status, flags, config, TSDB status.
    await loaded(page, `${base}/status`);
    const rt = Object.fromEntries(await page.$$eval('#runtime-table tr', (trs) => trs.map((t) => [t.querySelector('th')!.textContent, t.querySelector('td')!.textContent])));
    assert.equal(rt['Configuration reload'], 'Successful');
    assert.equal(rt['Storage retention'], '15d');
    assert.match(rt['Start time'] ?? '', /^\d{4}-/);
    const build = Object.fromEntries(await page.$$eval('#build-table tr', (trs) => trs.map((t) => [t.querySelector('th')!.textContent, t.querySelector('td')!.textContent])));
    assert.equal(build.Version, '2.42.0');
    assert.match(build.GoVersion ?? '', /^node v\d+/);

    await loaded(page, `${base}/flags`);
    assert.ok((await texts(page, '#flags-table td')).includes(join(dir, 'prometheus.yml')), 'the config.file flag value');
    await page.fill('#flag-filter', 'retention.time');
    assert.deepEqual(await texts(page, '#flags-table tbody td:first-child'), ['--storage.tsdb.retention.time']);

    await loaded(page, `${base}/config`);
    const yaml = (await page.textContent('#config')) ?? '';
    assert.match(yaml, /job_name: live/);
    assert.match(yaml, /evaluation_interval: 1s/);

    await loaded(page, `${base}/tsdb-status`);
    const head = Object.fromEntries(await page.$$eval('#head-stats-table tr', (trs) => trs.map((t) => [t.querySelector('th')!.textContent, t.querySelector('td')!.textContent])));
    assert.ok(Number(head['Number of Series']) > 0, `series: ${head['Number of Series']}`);
    assert.match(head['Current Max Time'] ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.ok((await texts(page, '#top-metric-names td:first-child')).length > 0);
    assert.ok((await texts(page, '#top-label-names td:first-child')).includes('__name__'));

    // The nav on every page reaches the others.
    await page.click('nav#nav > a[data-page="alerts"]');
    await page.waitForSelector('body[data-page="alerts"][data-loaded]');
    await page.click('nav#nav summary');
    await page.click('.menu-items a[href="/tsdb-status"]');
    await page.waitForSelector('body[data-page="tsdb-status"][data-loaded]');

    // Completion in the expression box: suggestions for the word at the cursor, Enter takes the first.
    await page.goto(`${base}/graph`);
    await page.click('#expr');
    await page.keyboard.type('sum(ui_demo');
    await page.waitForSelector('#autocomplete:not([hidden]) li');
    assert.deepEqual(await texts(page, '#autocomplete li'), ['ui_demo:three', 'ui_demo_gauge']);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.equal(await page.inputValue('#expr'), 'sum(ui_demo_gauge');
    assert.equal(await page.isHidden('#autocomplete'), true);
    await page.keyboard.type(')');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#result-table tbody tr');
    assert.deepEqual(await texts(page, '#result-table tbody td'), ['{}', '7']);
    await page.fill('#expr', '');
    await page.keyboard.type('three');
    await page.waitForSelector('#autocomplete:not([hidden]) li');
    assert.deepEqual(await texts(page, '#autocomplete li'), ['ui_demo:three'], 'substring matches too');
    await page.keyboard.press('Escape');
    assert.equal(await page.isHidden('#autocomplete'), true);

    assert.deepEqual(errors, [], 'no script errors');
    assert.equal(await page.evaluate('window.pwned'), undefined);
  } finally {
    await ctx.close();
    await srv.destroy();
    await new Promise<void>((r) => target.server.close(() => r()));
    rmSync(profile, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});
