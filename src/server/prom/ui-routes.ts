/**
 * The status pages of the metrics port, beside the expression browser (`graph-routes.ts`), at the paths
 * Prometheus 2.42 uses: `/alerts`, `/rules`, `/targets`, `/service-discovery`, `/status`, `/flags`, `/config`,
 * `/tsdb-status`.
 * Their shared script and style are served from `/static/{file}`; each page's script fetches Tessera's own
 * JSON API. Everything is read once at start-up and served locally (no CDN). The routes go through the
 * metrics router, so the web config's basic auth and headers apply to them as to the API.
 */
import { readFileSync } from 'node:fs';
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';
import { composePage, UI_SCRIPT, UI_STYLE } from './ui-page.ts';

/** Page path (without `/`) → title; each has `ui/<name>.html` (body) and `ui/<name>.js`. */
const PAGES: readonly (readonly [string, string])[] = [
  ['alerts', 'Tessera Alerts'],
  ['rules', 'Tessera Rules'],
  ['targets', 'Tessera Targets'],
  ['status', 'Tessera Runtime & Build Information'],
  ['flags', 'Tessera Command-Line Flags'],
  ['config', 'Tessera Configuration'],
  ['tsdb-status', 'Tessera TSDB Status'],
  ['service-discovery', 'Tessera Service Discovery'],
];

const TYPES: Record<string, string> = {
  js: 'application/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export function registerUiRoutes(router: Router): void {
  const own = (name: string) => readFileSync(new URL(`./ui/${name}`, import.meta.url));
  const statics = new Map<string, HttpResponse>();
  for (const file of ['ui.css', 'common.js', ...PAGES.map(([name]) => `${name}.js`)]) {
    statics.set(file, { status: 200, headers: { 'Content-Type': TYPES[file.slice(file.lastIndexOf('.') + 1)] }, body: own(file) });
  }
  router.add(['GET'], '/static/:file', (_req, params) =>
    statics.get(params.file) ?? { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' });
  for (const [name, title] of PAGES) {
    const html: HttpResponse = {
      status: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8' },
      body: composePage({ name, title, body: own(`${name}.html`).toString('utf8'), styles: [UI_STYLE], scripts: [UI_SCRIPT, `/static/${name}.js`] }),
    };
    router.add(['GET'], `/${name}`, () => html);
  }
}
