/**
 * The expression browser at /graph.
 * - In headless Chromium (Debian's `chromium` driven by playwright-core), against the real query routes over
 *   in-memory data (the PromQL tests' fixture router): type a query and see the table rows, switch to the graph
 *   and see uPlot draw on a canvas, open a generator-URL style link, and see the API's error text for a bad
 *   query. Skips when /usr/bin/chromium is absent (`apt-get install -y chromium`).
 * - Over HTTP on a real Tessera child process: the page, its script and style, and the bundled uPlot are
 *   served locally, and `/` redirects to `/graph`.
 * - End to end in Chromium on a real Tessera child process: a recording rule writes a series to the TSDB and
 *   the page finds it through the server's query API (table, graph, and a query_range error).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { startHttpServer } from '../../src/server/http.ts';
import { registerGraphRoutes } from '../../src/server/prom/graph-routes.ts';
import { setup, T0 } from '../promql/support.ts';
import { startServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} not installed (apt-get install -y chromium)`;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];
/** T0 as the page's UTC datetime-local inputs take it. */
const T0_INPUT = new Date(T0).toISOString().slice(0, 19);

/** The bits of the DOM canvas API the checks use (the project compiles without DOM types). */
type Canvas = { width: number; height: number; getContext(t: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } };

async function runQuery(page: Page, expr: string): Promise<void> {
  await page.fill('#expr', expr);
  await page.click('#execute');
}

async function tableRows(page: Page): Promise<(string | null)[][]> {
  return page.$$eval('#result-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
}

test('graph page in Chromium: table, drawn graph, generator links and error text', { skip, timeout: 120_000 }, async () => {
  const router = setup();
  registerGraphRoutes(router);
  const server = await startHttpServer({
    host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20,
    tooLarge: () => ({ status: 413 }), internalError: (e) => ({ status: 500, body: String(e) }), badBody: (reason) => ({ status: 400, body: reason }),
    handler: (req) => {
      const m = router.match(req.method, req.path);
      return m.kind === 'found' ? m.handler(req, m.params) : { status: 404, body: '404 page not found\n' };
    },
  });
  const profile = mkdtempSync(join(tmpdir(), 'tessera-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  try {
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    const base = `http://127.0.0.1:${server.port}`;
    await page.goto(`${base}/graph`);
    assert.equal(await page.title(), 'Tessera expression browser');
    await page.fill('#eval-time', T0_INPUT);
    await runQuery(page, 'demo_num_cpus');
    await page.waitForSelector('#result-table tbody tr:nth-child(3)');
    const rows = await tableRows(page);
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0], ['demo_num_cpus{instance="demo.promlabs.com:10000", job="demo"}', '4']);
    assert.match(page.url(), /\/graph\?g0\.expr=demo_num_cpus&g0\.tab=1/);

    // The graph tab with its range and end from the URL, as Prometheus's links carry them.
    await page.goto(`${base}/graph?g0.expr=demo_num_cpus&g0.tab=0&g0.range_input=1h&g0.end_input=${encodeURIComponent(T0_INPUT.replace('T', ' '))}`);
    await page.waitForSelector('#chart canvas');
    assert.equal(await page.inputValue('#range'), '1h');
    const drawn = await page.$eval('#chart canvas', (c) => {
      const cv = c as unknown as Canvas;
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      let painted = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) painted++;
      return { w: cv.width, h: cv.height, painted };
    });
    assert.ok(drawn.w > 0 && drawn.h > 0, `canvas ${drawn.w}x${drawn.h}`);
    assert.ok(drawn.painted > 100, `painted pixels: ${drawn.painted}`);
    assert.equal(await page.$$eval('.u-legend .u-series', (els) => els.length), 4, 'time + 3 series in the legend');

    await runQuery(page, 'sum(');
    await page.waitForSelector('#error:not([hidden])');
    // query_range reports parse errors without the parameter prefix that /api/v1/query adds.
    assert.equal(await page.textContent('#error'), 'Error executing query: 1:5: parse error: unclosed left parenthesis');
    assert.equal(await page.$('#chart canvas'), null, 'the old graph is cleared');
    await page.click('#tab-table');
    await page.waitForFunction("document.getElementById('error').textContent.includes('invalid parameter')");
    assert.equal(await page.textContent('#error'), 'Error executing query: invalid parameter "query": 1:5: parse error: unclosed left parenthesis');
    assert.deepEqual(await tableRows(page), [], 'the old table is cleared');

    // An alert's generator URL opens the table view and runs the query (nothing at "now" in this data set).
    await page.goto(`${base}/graph?g0.expr=${encodeURIComponent('demo_num_cpus > 100')}&g0.tab=1`);
    await page.waitForSelector('#table-empty:not([hidden])');
    assert.equal(await page.inputValue('#expr'), 'demo_num_cpus > 100');
    assert.equal(await page.isHidden('#error'), true);
  } finally {
    await ctx.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

test('graph page assets are served by Tessera itself; / redirects to /graph', { timeout: 60_000 }, async () => {
  const srv = await startServer({ services: ['metrics'] });
  try {
    const page = await fetch(`${srv.promUrl}/graph`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    for (const a of ['/graph/graph.js', '/graph/graph.css', '/graph/uPlot.iife.min.js', '/graph/uPlot.min.css']) {
      assert.ok(html.includes(`"${a}"`), `page references ${a}`);
      const r = await fetch(srv.promUrl + a);
      assert.equal(r.status, 200, a);
      assert.ok((await r.arrayBuffer()).byteLength > 500, `${a} has content`);
    }
    assert.doesNotMatch(html, /https?:\/\//, 'no external (CDN) references');
    assert.equal((await fetch(`${srv.promUrl}/graph/nope.js`)).status, 404);
    const root = await fetch(`${srv.promUrl}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/graph');
  } finally {
    await srv.destroy();
  }
});

test('graph page end to end: a recording rule writes a series, the page queries it through the server', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-graph-e2e-'));
  writeFileSync(join(dir, 'rules.yml'), 'groups:\n  - name: demo\n    interval: 1s\n    rules:\n      - record: demo:three\n        expr: vector(3)\n');
  writeFileSync(join(dir, 'prometheus.yml'), 'rule_files: ["rules.yml"]\n');
  const srv = await startServer({ services: ['metrics'], args: ['--config.file', join(dir, 'prometheus.yml')] });
  const profile = mkdtempSync(join(tmpdir(), 'tessera-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await (await fetch(`${srv.promUrl}/api/v1/query?query=demo:three`)).json() as { data?: { result: unknown[] } };
      if (r.data?.result.length === 1) break;
      if (Date.now() > deadline) throw new Error('the recorded series never appeared');
      await new Promise((res) => setTimeout(res, 200));
    }
    // The graph evaluates at step-aligned times before "now"; until one of them falls after the first recorded
    // sample the range result is empty (as in Prometheus), so wait for that before opening the page.
    for (;;) {
      const now = Date.now() / 1000;
      const r = await (await fetch(`${srv.promUrl}/api/v1/query_range?query=demo:three&start=${now - 3600}&end=${now}&step=14`)).json() as { data?: { result: unknown[] } };
      if (r.data?.result.length === 1) break;
      if (Date.now() > deadline + 30_000) throw new Error('the recorded series never reached a range query');
      await new Promise((res) => setTimeout(res, 500));
    }
    const page = await ctx.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${srv.promUrl}/graph?g0.expr=demo:three&g0.tab=1`);
    await page.waitForSelector('#result-table tbody tr');
    assert.deepEqual(await tableRows(page), [['demo:three{}', '3']]);
    await page.click('#tab-graph');
    await page.waitForSelector('#chart canvas');
    assert.equal(await page.$$eval('.u-legend .u-series', (els) => els.length), 2, 'time + the recorded series');
    await runQuery(page, 'demo:three[1m]');
    await page.waitForSelector('#error:not([hidden])');
    assert.equal(await page.textContent('#error'),
      'Error executing query: invalid expression type "range vector" for range query, must be Scalar or instant Vector');
  } finally {
    await ctx.close();
    await srv.destroy();
    rmSync(profile, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});
