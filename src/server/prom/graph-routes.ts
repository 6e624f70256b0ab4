/**
 * The expression browser at `/graph` (Prometheus's classic UI, reduced): a query box, an instant table and a
 * range graph drawn with uPlot, served from local files (no CDN).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Router } from '../router.ts';
import type { HttpResponse } from '../http.ts';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

function asset(path: string, type: string): () => HttpResponse {
  let body: Buffer | null = null; // read on first use, then kept
  return () => {
    body ??= readFileSync(path);
    return { status: 200, headers: { 'Content-Type': type, 'Cache-Control': 'max-age=3600' }, body };
  };
}

export function registerGraphRoutes(router: Router): void {
  const uplotDir = dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
  const page = asset(join(here, 'graph', 'index.html'), 'text/html; charset=utf-8');
  router.add(['GET'], '/graph', page);
  router.add(['GET'], '/graph/static/graph.js', asset(join(here, 'graph', 'graph.js'), 'application/javascript; charset=utf-8'));
  router.add(['GET'], '/graph/static/uPlot.iife.min.js', asset(join(uplotDir, 'uPlot.iife.min.js'), 'application/javascript; charset=utf-8'));
  router.add(['GET'], '/graph/static/uPlot.min.css', asset(join(uplotDir, 'uPlot.min.css'), 'text/css; charset=utf-8'));
}
