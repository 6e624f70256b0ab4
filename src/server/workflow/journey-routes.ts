/**
 * The journey page at `/journeys` on the workflow port: a static page, its script and style (`./journeys/`),
 * read once at start-up and served locally (no CDN); `/` redirects to it. The page itself only calls the
 * workflow API of the same origin.
 */
import { readFileSync } from 'node:fs';
import type { Router } from '../router.ts';
import { registerStaticPage, type StaticAsset } from '../static-page.ts';

export function registerJourneyRoutes(router: Router): void {
  const own = (name: string) => readFileSync(new URL(`./journeys/${name}`, import.meta.url));
  registerStaticPage(router, '/journeys', own('index.html'), new Map<string, StaticAsset>([
    ['journeys.js', { type: 'application/javascript; charset=utf-8', body: own('journeys.js') }],
    ['journeys.css', { type: 'text/css; charset=utf-8', body: own('journeys.css') }],
  ]));
}
