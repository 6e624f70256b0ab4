/**
 * Pages of the metrics port's web UI share one layout (`ui/layout.html`: the header nav of Prometheus's UI,
 * Alerts · Graph · Rules · Targets · Status) wrapped around each page's own body fragment. Pages are composed
 * once at start-up from trusted, constant inputs; everything dynamic is rendered by the page's script from
 * the JSON API, as text.
 */
import { readFileSync } from 'node:fs';

export interface UiPage {
  /** Marks the page's nav entry (`data-page` in the layout). */
  name: string;
  title: string;
  /** HTML fragment placed in `<main>`. */
  body: string;
  styles: readonly string[];
  scripts: readonly string[];
}

/** The style every page of the UI loads (the graph page too), served by `ui-routes.ts`. */
export const UI_STYLE = '/static/ui.css';
/** The status pages' shared helpers (API fetch, text-only DOM building). */
export const UI_SCRIPT = '/static/common.js';

let layout: string | null = null;

/** The page as served: the layout with its placeholders filled. */
export function composePage(p: UiPage): Buffer {
  layout ??= readFileSync(new URL('./ui/layout.html', import.meta.url), 'utf8');
  const fill: Record<string, string> = {
    title: p.title.replace(/&/g, '&amp;').replace(/</g, '&lt;'),
    page: p.name,
    body: p.body.trimEnd(),
    styles: p.styles.map((s) => `  <link rel="stylesheet" href="${s}">`).join('\n'),
    scripts: p.scripts.map((s) => `  <script src="${s}"></script>`).join('\n'),
  };
  // One pass, so a placeholder-like string inside a body fragment is never substituted again.
  return Buffer.from(layout.replace(/\{\{(\w+)\}\}/g, (m, k: string) => fill[k] ?? m));
}
