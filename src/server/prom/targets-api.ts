/**
 * JSON bodies of `/api/v1/targets`, `/api/v1/targets/metadata`, `/api/v1/metadata` and
 * `/api/v1/scrape_pools`, shaped exactly as Prometheus 2.42 writes them (field order included).
 */
import type { Label, Labels, Matcher } from '../../engine/tsdb/api.ts';
import { MATCH_EQUAL, MATCH_NOT_EQUAL, MATCH_NOT_REGEXP, MATCH_REGEXP, newMatcher, type MatchType } from '../../engine/tsdb/api.ts';
import type { ScrapeManager } from '../../engine/scrape/scrape-manager.ts';
import { globalUrl } from '../../engine/scrape/target.ts';
import { formatDuration } from '../../engine/model/duration.ts';
import { InvalidArgumentError } from '../../engine/errors.ts';

export function labelsObject(labels: Labels): Record<string, string> {
  const o: Record<string, string> = {};
  for (const l of labels) o[l.name] = l.value;
  return o;
}

/** Go's RFC3339Nano for a ms timestamp (trailing zeros of the fraction trimmed); 0 → Go's zero time. */
export function rfc3339(ms: number): string {
  if (ms === 0) return '0001-01-01T00:00:00Z';
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}

/** `/api/v1/targets`; `scrapePool` ('' = all) keeps only that pool's targets, active and dropped, as Prometheus 2.42 does. */
export function targetsBody(mgr: ScrapeManager, state: string, scrapePool = ''): unknown {
  const s = state.toLowerCase();
  const showActive = s === '' || s === 'any' || s === 'active';
  const showDropped = s === '' || s === 'any' || s === 'dropped';
  const activeTargets: unknown[] = [];
  const droppedTargets: unknown[] = [];
  // Pools sorted by name, as Prometheus's API does.
  for (const pool of mgr.snapshot().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (scrapePool !== '' && pool.name !== scrapePool) continue;
    if (showActive) {
      for (const loop of pool.loops) {
        const t = loop.target;
        activeTargets.push({
          discoveredLabels: labelsObject(t.discoveredLabels), labels: labelsObject(t.labels), scrapePool: pool.name,
          scrapeUrl: t.url, globalUrl: globalUrl(t.url), lastError: loop.lastError, lastScrape: rfc3339(loop.lastScrapeMs),
          lastScrapeDuration: loop.lastDurationSec, health: loop.health,
          scrapeInterval: formatDuration(t.intervalMs), scrapeTimeout: formatDuration(t.timeoutMs),
        });
      }
    }
    if (showDropped) for (const d of pool.dropped) droppedTargets.push({ discoveredLabels: labelsObject(d.discoveredLabels) });
  }
  return { activeTargets, droppedTargets };
}

/** `/api/v1/targets/metadata`: per target, every metric (no `metric` param) or the one asked for. */
export function targetMetadataBody(mgr: ScrapeManager, matchTarget: string, metric: string, limit: number): unknown[] {
  const matchers = matchTarget === '' ? [] : parseSelector(matchTarget);
  const out: unknown[] = [];
  for (const pool of mgr.snapshot()) {
    for (const loop of pool.loops) {
      if (limit >= 0 && out.length >= limit) return out;
      if (!matchesAll(loop.target.labels, matchers)) continue;
      const target = labelsObject(loop.target.labels);
      if (metric === '') {
        for (const [name, m] of loop.metadata) out.push({ target, metric: name, type: m.type, help: m.help, unit: m.unit });
        continue;
      }
      const m = loop.metadata.get(metric);
      if (m) out.push({ target, type: m.type, help: m.help, unit: m.unit });
    }
  }
  return out;
}

/** `/api/v1/metadata`: distinct metadata per metric family over all targets. */
export function metadataBody(mgr: ScrapeManager, metric: string, limit: number): Record<string, unknown[]> {
  const out: Record<string, { type: string; help: string; unit: string }[]> = {};
  for (const pool of mgr.snapshot()) {
    for (const loop of pool.loops) {
      for (const [name, m] of loop.metadata) {
        if (metric !== '' && name !== metric) continue;
        const list = out[name] ?? (out[name] = []);
        if (!list.some((x) => x.type === m.type && x.help === m.help && x.unit === m.unit)) list.push({ type: m.type, help: m.help, unit: m.unit });
      }
    }
  }
  if (limit < 0) return out;
  const limited: Record<string, unknown[]> = {};
  for (const name of Object.keys(out).slice(0, limit)) limited[name] = out[name];
  return limited;
}

function matchesAll(labels: readonly Label[], matchers: readonly Matcher[]): boolean {
  for (const m of matchers) {
    const v = labels.find((l) => l.name === m.name)?.value ?? '';
    if (!m.matches(v)) return false;
  }
  return true;
}

const OPS: Record<string, MatchType> = { '=': MATCH_EQUAL, '!=': MATCH_NOT_EQUAL, '=~': MATCH_REGEXP, '!~': MATCH_NOT_REGEXP };

/**
 * A `{name op "value", …}` label selector (the form `match_target` takes). Only label matchers: no metric
 * name before the brace, as Prometheus requires for this parameter.
 */
export function parseSelector(s: string): Matcher[] {
  const bad = (why: string): never => { throw new InvalidArgumentError('INVALID_ARGUMENT', `invalid parameter "match_target": ${why}`); };
  let src = s.trim();
  const out: Matcher[] = [];
  // An optional metric name before the braces, as in PromQL's metric selector syntax.
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(src);
  if (name) {
    out.push(newMatcher(MATCH_EQUAL, '__name__', name[0]));
    src = src.slice(name[0].length).trim();
    if (src === '') return out;
  }
  if (!src.startsWith('{') || !src.endsWith('}')) bad(`1:1: parse error: unexpected ${JSON.stringify(src.slice(0, 10))}, expected label selector`);
  const body = src.slice(1, -1);
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*(,|$)/y;
  let pos = 0;
  while (pos < body.length && body.slice(pos).trim() !== '') {
    re.lastIndex = pos;
    const m = re.exec(body);
    if (!m) bad(`1:${pos + 2}: parse error: unexpected character inside braces`);
    const raw = m![3];
    const value = raw.startsWith('"') ? JSON.parse(raw) as string : raw.slice(1, -1).replace(/\\'/g, "'");
    try { out.push(newMatcher(OPS[m![2]], m![1], value)); } catch (e) { bad((e as Error).message); }
    pos = re.lastIndex;
  }
  return out;
}
