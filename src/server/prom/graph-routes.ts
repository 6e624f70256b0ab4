/**
 * The expression browser at `/graph` on the metrics port: a static page, its script and style
 * (`./graph/`), and the bundled uPlot build from node_modules — no CDN. Files are read once at start-up.
 * `/` redirects to `/graph` as Prometheus does.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';

const require = createRequire(import.meta.url);

interface Asset { type: string; body: Buffer }

function load(): Map<string, Asset> {
  const own = (name: string) => readFileSync(new URL(`./graph/${name}`, import.meta.url));
  return new Map<string, Asset>([
    ['graph.js', { type: 'application/javascript; charset=utf-8', body: own('graph.js') }],
    ['graph.css', { type: 'text/css; charset=utf-8', body: own('graph.css') }],
    ['uPlot.iife.min.js', { type: 'application/javascript; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')) }],
    ['uPlot.min.css', { type: 'text/css; charset=utf-8', body: readFileSync(require.resolve('uplot/dist/uPlot.min.css')) }],
  ]);
}

export function registerGraphRoutes(router: Router): void {
  const assets = load();
  const page: HttpResponse = { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: readFileSync(new URL('./graph/index.html', import.meta.url)) };
  router.add(['GET'], '/', () => ({ status: 302, headers: { Location: '/graph', 'Content-Type': 'text/html; charset=utf-8' }, body: '<a href="/graph">Found</a>.\n' }));
  router.add(['GET'], '/graph', () => page);
  router.add(['GET'], '/graph/:file', (_req, params) => {
    const a = assets.get(params.file);
    if (!a) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
    return { status: 200, headers: { 'Content-Type': a.type }, body: a.body };
  });
}
