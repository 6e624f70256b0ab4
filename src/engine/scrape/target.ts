/**
 * Turning discovered target groups into scrape targets, as Prometheus 2.42's `PopulateLabels` does:
 * job/interval/timeout/path/scheme and `__param_*` defaults, target relabelling, a default port from the
 * scheme, removal of `__meta_*`, and `instance` defaulting to the address.
 */
import { hostname } from 'node:os';
import type { Label } from '../tsdb/api.ts';
import { formatDuration, parseDurationMs } from '../model/duration.ts';
import type { ScrapeConfig, TargetGroup } from './config.ts';
import { relabel, toSortedLabels } from './relabel.ts';

/** One target after relabelling: its public labels and where/how often to scrape it. */
export interface TargetSpec {
  /** Stable identity within a pool: the full label set after relabelling, `__` labels included. */
  readonly key: string;
  readonly discoveredLabels: Label[];
  /** Labels without a `__` prefix; attached to every sample. */
  readonly labels: Label[];
  readonly url: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

export interface DroppedTarget { readonly discoveredLabels: Label[] }

export interface PoolTargets { active: TargetSpec[]; dropped: DroppedTarget[]; errors: string[] }

/** Builds the targets of one scrape config from its groups (static and file SD). */
export function buildTargets(cfg: ScrapeConfig, groups: readonly TargetGroup[]): PoolTargets {
  const out: PoolTargets = { active: [], dropped: [], errors: [] };
  const seen = new Set<string>();
  for (const g of groups) {
    for (let i = 0; i < g.targets.length; i++) {
      const r = populate(cfg, g, g.targets[i], g.targetLabels?.[i]);
      if ('error' in r) { out.errors.push(r.error); continue; }
      if (r.target === null) { out.dropped.push({ discoveredLabels: r.discovered }); continue; }
      if (seen.has(r.target.key)) continue;
      seen.add(r.target.key);
      out.active.push(r.target);
    }
  }
  return out;
}

type Populated = { target: TargetSpec | null; discovered: Label[] } | { error: string };

function populate(cfg: ScrapeConfig, g: TargetGroup, addr: string, own: Record<string, string> | undefined): Populated {
  const b = new Map<string, string>();
  for (const [k, v] of Object.entries(g.labels)) b.set(k, v);
  if (own) for (const [k, v] of Object.entries(own)) b.set(k, v);
  b.set('__address__', addr);
  const defaults: [string, string][] = [
    ['job', cfg.jobName], ['__scrape_interval__', formatDuration(cfg.scrapeIntervalMs)],
    ['__scrape_timeout__', formatDuration(cfg.scrapeTimeoutMs)], ['__metrics_path__', cfg.metricsPath],
    ['__scheme__', cfg.scheme],
  ];
  for (const [k, v] of defaults) if (!b.get(k)) b.set(k, v);
  for (const [k, v] of Object.entries(cfg.params)) if (v.length) b.set(`__param_${k}`, v[0]);
  const discovered = toSortedLabels(b);
  const after = relabel(discovered, cfg.relabelConfigs);
  if (after === null) return { target: null, discovered };
  const m = new Map(after.map((l) => [l.name, l.value] as [string, string]));
  let address = m.get('__address__') ?? '';
  if (address === '') return { error: 'no address' };
  const scheme = m.get('__scheme__') ?? 'http';
  if (!/:\d+$/.test(address) && !address.endsWith(']')) {
    if (scheme === 'http' || scheme === '') address += ':80';
    else if (scheme === 'https') address += ':443';
    else return { error: `invalid scheme: "${cfg.scheme}"` };
    m.set('__address__', address);
  }
  if (address.includes('/')) return { error: `"${address}" is not a valid hostname` };
  for (const k of [...m.keys()]) if (k.startsWith('__meta_')) m.delete(k);
  if (!m.get('instance')) m.set('instance', address);
  let intervalMs: number, timeoutMs: number;
  try {
    intervalMs = parseDurationMs(m.get('__scrape_interval__') ?? '');
    timeoutMs = parseDurationMs(m.get('__scrape_timeout__') ?? '');
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (intervalMs === 0) return { error: 'scrape interval cannot be 0' };
  if (timeoutMs > intervalMs) return { error: `scrape timeout cannot be greater than scrape interval ("${formatDuration(timeoutMs)}" > "${formatDuration(intervalMs)}")` };
  const all = toSortedLabels(m);
  const labels = all.filter((l) => !l.name.startsWith('__'));
  const url = buildUrl(scheme, address, m.get('__metrics_path__') ?? '/metrics', all, cfg.params);
  return { target: { key: JSON.stringify(all), discoveredLabels: discovered, labels, url, intervalMs, timeoutMs }, discovered };
}

function buildUrl(scheme: string, address: string, path: string, all: Label[], params: Record<string, string[]>): string {
  const q = new URLSearchParams();
  for (const [k, vs] of Object.entries(params)) for (const v of vs) q.append(k, v);
  for (const l of all) {
    if (!l.name.startsWith('__param_')) continue;
    const k = l.name.slice(8);
    const rest = (params[k] ?? []).slice(1);
    q.delete(k);
    q.append(k, l.value);
    for (const v of rest) q.append(k, v);
  }
  const qs = q.toString();
  return `${scheme}://${address}${path.startsWith('/') ? path : '/' + path}${qs ? '?' + qs : ''}`;
}

/** The URL as seen from other machines: loopback hosts replaced by this host's name (Prometheus's globalUrl). */
export function globalUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.hostname === 'localhost' || u.hostname.startsWith('127.') || u.hostname === '[::1]') u.hostname = hostname();
    return u.toString();
  } catch {
    return url;
  }
}
