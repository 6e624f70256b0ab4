/**
 * The `alerting` section of prometheus.yml (kept raw by the scrape config loader): Alertmanager
 * `static_configs` with `scheme`, `path_prefix`, `timeout`, `api_version` (v2), authorization and
 * target `relabel_configs` (over `__address__`, `__scheme__`, `__alerts_path__`), plus
 * `alert_relabel_configs`. Service discovery other than static configs is refused by name.
 */
import { InvalidArgumentError } from '../errors.ts';
import { parseDurationMs } from '../model/duration.ts';
import { parseRelabelRule, relabel, type RelabelRule } from '../scrape/relabel.ts';
import type { AlertmanagerSet } from './notifier.ts';

export interface AlertingSetup { sets: AlertmanagerSet[]; dropped: string[]; alertRelabel: RelabelRule[] }

type Obj = Record<string, unknown>;

const AM_FIELDS = ['static_configs', 'scheme', 'path_prefix', 'timeout', 'api_version', 'basic_auth', 'authorization',
  'bearer_token', 'relabel_configs', 'follow_redirects', 'enable_http2', 'tls_config', 'proxy_url'];
const SD_SUFFIX = '_sd_configs';

function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? v as Obj : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function parseAlerting(raw: Record<string, unknown> | null): AlertingSetup {
  const out: AlertingSetup = { sets: [], dropped: [], alertRelabel: list(raw?.alert_relabel_configs).map(parseRelabelRule) };
  for (const amRaw of list(raw?.alertmanagers)) {
    const am = obj(amRaw);
    for (const k of Object.keys(am)) {
      if (k.endsWith(SD_SUFFIX) && k !== 'static_configs') bad(`alertmanager ${k} is not supported by Tessera (use static_configs)`);
      if (!AM_FIELDS.includes(k)) bad(`field ${k} not found in type config.AlertmanagerConfig`);
    }
    const apiVersion = am.api_version === undefined ? 'v2' : String(am.api_version);
    if (apiVersion !== 'v2') bad(`alertmanager api_version ${apiVersion} is not supported by Tessera (only v2)`);
    const scheme = am.scheme === undefined ? 'http' : String(am.scheme);
    const pathPrefix = am.path_prefix === undefined ? '' : String(am.path_prefix);
    const alertsPath = ('/' + [pathPrefix, 'api/v2/alerts'].join('/')).replace(/\/+/g, '/');
    const rules = list(am.relabel_configs).map(parseRelabelRule);
    const set: AlertmanagerSet = { urls: [], timeoutMs: am.timeout === undefined ? 10_000 : parseDurationMs(String(am.timeout)), headers: authHeaders(am) };
    for (const sc of list(am.static_configs)) {
      const g = obj(sc);
      const labels = Object.entries(obj(g.labels)).map(([name, value]) => ({ name, value: String(value) }));
      for (const target of list(g.targets).map(String)) {
        const base = [...labels, { name: '__address__', value: target }, { name: '__scheme__', value: scheme }, { name: '__alerts_path__', value: alertsPath }]
          .sort((a, b) => (a.name < b.name ? -1 : 1));
        const res = rules.length ? relabel(base, rules) : base;
        const get = (n: string) => res?.find((l) => l.name === n)?.value ?? '';
        if (!res || get('__address__') === '') { out.dropped.push(`${scheme}://${target}${alertsPath}`); continue; }
        set.urls.push(`${get('__scheme__')}://${get('__address__')}${get('__alerts_path__')}`);
      }
    }
    out.sets.push(set);
  }
  return out;
}

function authHeaders(am: Obj): Record<string, string> {
  if (am.basic_auth !== undefined) {
    const b = obj(am.basic_auth);
    return { Authorization: 'Basic ' + Buffer.from(`${String(b.username ?? '')}:${String(b.password ?? '')}`).toString('base64') };
  }
  if (am.bearer_token !== undefined) return { Authorization: `Bearer ${String(am.bearer_token)}` };
  if (am.authorization !== undefined) {
    const a = obj(am.authorization);
    return { Authorization: `${a.type === undefined ? 'Bearer' : String(a.type)} ${String(a.credentials ?? '')}` };
  }
  return {};
}
