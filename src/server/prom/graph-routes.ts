/**
 * The expression browser at `/graph` on the metrics port: a static page, its script and style
 * (`./graph/`), and the bundled uPlot build from node_modules — no CDN. Files are read once at start-up.
 * `/` redirects to `/graph` as Prometheus does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Router } from '../router.ts';
import { registerStaticPage, type StaticAsset } from '../static-page.ts';

const require = createRequire(import.meta.url);

export function registerGraphRoutes(router: Router): void {
  const own = (name: string) => readFileSync(new URL(`./graph/${name}`, import.meta.url));
  registerStaticPage(router, '/graph', own('index.html'), new Map<string, StaticAsset>([
    ['graph.js', { type: 'application/javascript; charset=utf-8', body: own('graph.js') }],
    ['graph.css', { type: 'text/css; charset=utf-8', body: own('graph.css') }],
    ['uPlot.iife.min.js', { type: 'application/javascript; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')) }],
    ['uPlot.min.css', { type: 'text/css; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.min.css')) }],
  ]));
}
