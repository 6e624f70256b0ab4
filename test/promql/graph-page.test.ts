/**
 * The `/graph` expression browser in headless Chromium (Debian's `chromium` driven by playwright-core):
 * type a query and see a table; switch to the graph and see uPlot draw; a bad query shows the error text.
 * Skips when Chromium is not installed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startHttpServer } from '../../src/server/http.ts';
import { registerGraphRoutes } from '../../src/server/prom/graph-routes.ts';
import { setup, T0 } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
/** The bit of the DOM canvas API the pixel check uses (the project compiles without DOM types). */
type Canvas = { width: number; height: number; getContext(t: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } };

test('expression browser: table, graph and errors', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} not installed`, timeout: 120_000 }, async () => {
  const router = setup();
  registerGraphRoutes(router);
  const server = await startHttpServer({
    host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20,
    tooLarge: () => ({ status: 413 }), internalError: (e) => ({ status: 500, body: String(e) }),
    handler: (req) => {
      const m = router.match(req.method, req.path);
      return m.kind === 'found' ? m.handler(req, m.params) : { status: 404, body: '404 page not found\n' };
    },
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const base = `http://127.0.0.1:${server.port}/graph?end=${T0 / 1000}`;
    await page.goto(base);
    await page.fill('#expr', 'demo_num_cpus');
    await page.click('#run');
    await page.waitForSelector('#table tbody tr:nth-child(3)');
    const rows = await page.$$eval('#table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(rows[0], ['demo_num_cpus{instance="demo.promlabs.com:10000", job="demo"}', '4']);
    assert.equal(rows.length, 3);

    await page.click('#tab-graph');
    await page.waitForSelector('#graph canvas');
    assert.equal(await page.getAttribute('#graph', 'data-series'), '3');
    // uPlot drew something: the canvas has non-transparent pixels.
    const painted = await page.$eval('#graph canvas', (c) => {
      const cv = c as unknown as Canvas;
      const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++;
      return n;
    });
    assert.ok(painted > 100, `canvas painted pixels: ${painted}`);

    await page.click('#tab-table');
    await page.fill('#expr', 'sum(');
    await page.click('#run');
    await page.waitForFunction("document.getElementById('error').textContent !== ''");
    assert.equal(await page.textContent('#error'), 'invalid parameter "query": 1:5: parse error: unclosed left parenthesis');
  } finally {
    await browser.close();
    await server.close();
  }
});
