/**
 * From the `alerting` section (parsed by `scrape/config.ts`) and the Alertmanager targets its discovery
 * found, to the notifier's Alertmanager sets: each target gets `__address__`, `__scheme__` and
 * `__alerts_path__`, goes through the set's `relabel_configs`, and becomes a `/api/v2/alerts` URL, or a
 * dropped one. `AlertmanagerDiscovery` keeps that list current while file, HTTP or DNS discovery change.
 */
import { InvalidArgumentError } from '../errors.ts';
import { relabel, type RelabelRule } from '../scrape/relabel.ts';
import type { AlertingConfig, AlertmanagerConfig, TargetGroup } from '../scrape/config.ts';
import { HttpClient } from '../scrape/http-client.ts';
import { DiscoverySet } from '../scrape/discovery-set.ts';
import type { AlertmanagerSet } from './notifier.ts';

export interface AlertingSetup { sets: AlertmanagerSet[]; dropped: string[]; alertRelabel: RelabelRule[] }

/** The notifier's view of `cfg`, given each Alertmanager config's discovered groups (same order). */
export function alertingSetup(cfg: AlertingConfig, groups: readonly TargetGroup[][]): AlertingSetup {
  const out: AlertingSetup = { sets: [], dropped: [], alertRelabel: cfg.alertRelabelConfigs };
  cfg.alertmanagers.forEach((am, i) => {
    const { set, dropped } = alertmanagerSet(am, groups[i] ?? []);
    out.sets.push(set);
    out.dropped.push(...dropped);
  });
  return out;
}

/** Throws for settings Tessera's notifier cannot honour (the v1 API, gone from current Alertmanagers). */
export function checkAlertingSupported(cfg: AlertingConfig): void {
  for (const am of cfg.alertmanagers) {
    if (am.apiVersion !== 'v2') throw new InvalidArgumentError('INVALID_ARGUMENT', `alertmanager api_version ${am.apiVersion} is not supported by Tessera (only v2)`);
  }
}

function alertmanagerSet(am: AlertmanagerConfig, groups: readonly TargetGroup[]): { set: AlertmanagerSet; dropped: string[] } {
  const alertsPath = ('/' + [am.pathPrefix, 'api/v2/alerts'].join('/')).replace(/\/+/g, '/');
  const client = new HttpClient(am.http);
  const set: AlertmanagerSet = { urls: [], timeoutMs: am.timeoutMs, authHeaders: () => client.authHeaders() };
  const dropped: string[] = [];
  for (const g of groups) {
    g.targets.forEach((target, i) => {
      const own = { ...g.labels, ...g.targetLabels?.[i] };
      const base = [...Object.entries(own).map(([name, value]) => ({ name, value })),
        { name: '__address__', value: target }, { name: '__scheme__', value: am.scheme }, { name: '__alerts_path__', value: alertsPath }]
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      const res = am.relabelConfigs.length ? relabel(base, am.relabelConfigs) : base;
      const get = (n: string): string => res?.find((l) => l.name === n)?.value ?? '';
      if (!res || get('__address__') === '') { dropped.push(`${am.scheme}://${target}${alertsPath}`); return; }
      set.urls.push(`${get('__scheme__')}://${get('__address__')}${get('__alerts_path__')}`);
    });
  }
  return { set, dropped };
}

/** Runs the Alertmanager discovery of one `alerting` section; `onChange` gets the setup whenever targets change. */
export class AlertmanagerDiscovery {
  private readonly cfg: AlertingConfig;
  private readonly sets: DiscoverySet[];
  private readonly groups: TargetGroup[][];

  constructor(cfg: AlertingConfig, onChange: (setup: AlertingSetup) => void, onError: (msg: string) => void) {
    this.cfg = cfg;
    this.groups = cfg.alertmanagers.map((am) => am.staticConfigs);
    this.sets = cfg.alertmanagers.map((am, i) => new DiscoverySet(`alertmanager config-${i}`, am, (g) => {
      this.groups[i] = g;
      onChange(this.setup());
    }, { onError }));
  }

  /** Discovers once, and returns the first setup. */
  async start(): Promise<AlertingSetup> {
    for (let i = 0; i < this.sets.length; i++) this.groups[i] = await this.sets[i].start();
    return this.setup();
  }

  stop(): void { for (const s of this.sets) s.stop(); }

  setup(): AlertingSetup { return alertingSetup(this.cfg, this.groups); }
}
