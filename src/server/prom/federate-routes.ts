/**
 * `GET /federate` as Prometheus 2.42 serves it (`web/federate.go`): for every series matching any `match[]`
 * selector, its newest sample within the lookback delta before now, in the text exposition format as
 * untyped families sorted by metric name, each sample with its timestamp. Series whose newest sample is a
 * staleness marker are left out (the format cannot carry one). External labels are added where a series
 * lacks them, plus `instance=""` when the config sets no `instance`, so a federating server with
 * `honor_labels: true` keeps the original labels and one without it renames them to `exported_*`.
 */
import type { ServerContext } from '../context.ts';
import type { HttpResponse } from '../http.ts';
import type { Router } from '../router.ts';
import type { FetchedSeries, Label, Matcher } from '../../engine/tsdb/api.ts';
import { isStaleNaN } from '../../engine/tsdb/api.ts';
import { labelsKey } from '../../engine/tsdb/labels.ts';
import { escapeLabelValue, formatGoSampleValue } from '../../engine/exposition/exposition.ts';
import { durationMs } from '../flags.ts';
import { formParams } from './tsdb-params.ts';
import { parseSeriesSelector } from './series-selector.ts';

export interface FederateStorage {
  select(matchers: readonly Matcher[], mintMs: number, maxtMs: number): Promise<FetchedSeries[]>;
}

interface Newest { labels: Label[]; t: number; v: number }

const TEXT = { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' };

export function registerFederateRoutes(router: Router, ctx: ServerContext, storage: FederateStorage, externalLabels: () => readonly Label[]): void {
  const errors = { total: 0 };
  ctx.metrics.gauge('prometheus_web_federation_errors_total', 'Total number of errors that occurred while sending federation responses.', [], () => [[[], errors.total]], 'counter');
  ctx.metrics.gauge('prometheus_web_federation_warnings_total', 'Total number of warnings that occurred while sending federation responses.', [], () => [[[], 0]], 'counter');
  const lookbackMs = durationMs(ctx.flags['query.lookback-delta']);

  router.add('GET', '/federate', async (req): Promise<HttpResponse> => {
    let sets: Matcher[][];
    try {
      sets = formParams(req).getAll('match[]').map(parseSeriesSelector);
    } catch (e) {
      return { status: 400, headers: TEXT, body: `${(e as Error).message}\n` };
    }
    const maxt = ctx.now(), mint = maxt - lookbackMs;
    let fetched: FetchedSeries[][];
    try {
      fetched = await Promise.all(sets.map((ms) => storage.select(ms, mint, maxt)));
    } catch (e) {
      errors.total++;
      return { status: 500, headers: TEXT, body: `${(e as Error).message}\n` };
    }
    return { status: 200, headers: TEXT, body: render(newestSamples(fetched, maxt), externalLabels()) };
  });
}

/** Each distinct series' newest sample at or before `maxt`, stale ones dropped, sorted by metric name. */
function newestSamples(fetched: FetchedSeries[][], maxt: number): Newest[] {
  const byKey = new Map<string, Newest>();
  for (const list of fetched) {
    for (const s of list) {
      const key = labelsKey(s.labels);
      if (byKey.has(key)) continue;
      let i = s.t.length - 1;
      while (i >= 0 && s.t[i] > maxt) i--;
      if (i < 0 || isStaleNaN(s.v[i])) continue;
      byKey.set(key, { labels: s.labels as Label[], t: s.t[i], v: s.v[i] });
    }
  }
  const name = (x: Newest): string => x.labels.find((l) => l.name === '__name__')?.value ?? '';
  return [...byKey.values()].sort((a, b) => {
    const na = name(a), nb = name(b);
    return na < nb ? -1 : na > nb ? 1 : labelsKey(a.labels) < labelsKey(b.labels) ? -1 : 1;
  });
}

function render(samples: Newest[], external: readonly Label[]): string {
  const ext = new Map(external.map((l) => [l.name, l.value] as [string, string]));
  if (!ext.has('instance')) ext.set('instance', '');
  const extNames = [...ext.keys()].sort();
  const out: string[] = [];
  let family = '';
  for (const s of samples) {
    let name = '';
    const pairs: string[] = [];
    const used = new Set<string>();
    for (const l of s.labels) {
      if (l.value === '') continue;
      if (l.name === '__name__') { name = l.value; continue; }
      pairs.push(`${l.name}="${escapeLabelValue(l.value)}"`);
      used.add(l.name);
    }
    if (name === '') continue; // nameless series are skipped, as Prometheus does
    for (const n of extNames) if (!used.has(n)) pairs.push(`${n}="${escapeLabelValue(ext.get(n)!)}"`);
    if (name !== family) { out.push(`# TYPE ${name} untyped`); family = name; }
    out.push(`${name}{${pairs.join(',')}} ${formatGoSampleValue(s.v)} ${s.t}`);
  }
  return out.length ? out.join('\n') + '\n' : '';
}
