/**
 * The journey page at `/journeys` on the workflow port: a static page, its script and style (`./journeys/`),
 * read once at start-up and served locally (no CDN); `/` redirects to it. The page itself only calls the
 * workflow API of the same origin.
 */
import { readFileSync } from 'node:fs';
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';

interface Asset { type: string; body: Buffer }

export function registerJourneyRoutes(router: Router): void {
  const own = (name: string) => readFileSync(new URL(`./journeys/${name}`, import.meta.url));
  const assets = new Map<string, Asset>([
    ['journeys.js', { type: 'application/javascript; charset=utf-8', body: own('journeys.js') }],
    ['journeys.css', { type: 'text/css; charset=utf-8', body: own('journeys.css') }],
  ]);
  const page: HttpResponse = { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: own('index.html') };
  router.add(['GET'], '/', () => ({ status: 302, headers: { Location: '/journeys', 'Content-Type': 'text/html; charset=utf-8' }, body: '<a href="/journeys">Found</a>.\n' }));
  router.add(['GET'], '/journeys', () => page);
  router.add(['GET'], '/journeys/:file', (_req, params) => {
    const a = assets.get(params.file);
    if (!a) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
    return { status: 200, headers: { 'Content-Type': a.type }, body: a.body };
  });
}
