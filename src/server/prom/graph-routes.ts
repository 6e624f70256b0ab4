/**
 * The expression browser at `/graph` on the metrics port: its body, scripts (query + metric-name completion)
 * and style (`./graph/`) in the shared UI layout (`ui-page.ts`), and the bundled uPlot build from
 * node_modules — no CDN. Files are read once at start-up. `/` redirects to `/graph` as Prometheus does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Router } from '../router.ts';
import { registerStaticPage, type StaticAsset } from '../static-page.ts';
import { composePage, UI_STYLE } from './ui-page.ts';

const require = createRequire(import.meta.url);

export function registerGraphRoutes(router: Router): void {
  const own = (name: string) => readFileSync(new URL(`./graph/${name}`, import.meta.url));
  const page = composePage({
    name: 'graph', title: 'Tessera expression browser', body: own('body.html').toString('utf8'),
    styles: ['/graph/uPlot.min.css', UI_STYLE, '/graph/graph.css'],
    scripts: ['/graph/uPlot.iife.min.js', '/graph/autocomplete.js', '/graph/graph.js'],
  });
  registerStaticPage(router, '/graph', page, new Map<string, StaticAsset>([
    ['autocomplete.js', { type: 'application/javascript; charset=utf-8', body: own('autocomplete.js') }],
    ['graph.js', { type: 'application/javascript; charset=utf-8', body: own('graph.js') }],
    ['graph.css', { type: 'text/css; charset=utf-8', body: own('graph.css') }],
    ['uPlot.iife.min.js', { type: 'application/javascript; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')) }],
    ['uPlot.min.css', { type: 'text/css; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.min.css')) }],
  ]));
}
