/**
 * A static page served locally (no CDN) under `mount` on one port: the page at `/mount`, its files at
 * `/mount/{file}`, and `/` redirecting to it, as Prometheus serves `/graph`. The caller reads the bytes once at
 * start-up.
 */
import type { Router } from './router.ts';
import type { HttpResponse } from './http.ts';

export interface StaticAsset { type: string; body: Buffer }

export function registerStaticPage(router: Router, mount: string, page: Buffer, assets: ReadonlyMap<string, StaticAsset>): void {
  const html: HttpResponse = { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: page };
  router.add(['GET'], '/', () => ({ status: 302, headers: { Location: mount, 'Content-Type': 'text/html; charset=utf-8' }, body: `<a href="${mount}">Found</a>.\n` }));
  router.add(['GET'], mount, () => html);
  router.add(['GET'], `${mount}/:file`, (_req, params) => {
    const a = assets.get(params.file);
    if (!a) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
    return { status: 200, headers: { 'Content-Type': a.type }, body: a.body };
  });
}
