/**
 * The service-discovery sections of a scrape or Alertmanager config (`static_configs` and every
 * `<name>_sd_configs` Prometheus 2.42 documents). Static, file, HTTP and DNS discovery are implemented;
 * the others (Kubernetes, Consul, EC2…) are kept as written so the rest of the file loads, and the scrape
 * manager logs that they are not supported. Marshalled back in Prometheus's order: SD kinds by name,
 * `static_configs` last.
 */
import { HTTP_CLIENT_FIELDS, marshalHttpClientConfig, parseHttpClientConfig, type HttpClientConfig } from './http-client-config.ts';
import { asList, asObj, bad, checkFields, dur, labelMap, resolvePath, str, uint, type Obj } from './config-yaml.ts';
import { formatDuration } from '../model/duration.ts';

/**
 * A group of targets sharing labels (static configs, file SD, HTTP SD, DNS SD). `targetLabels[i]`, when
 * present, holds target i's own labels (DNS meta labels), which win over the group's.
 */
export interface TargetGroup { targets: string[]; labels: Record<string, string>; source: string; targetLabels?: Record<string, string>[] }

export interface FileSdConfig { files: string[]; refreshIntervalMs: number }
export interface HttpSdConfig { url: string; refreshIntervalMs: number; http: HttpClientConfig }
export interface DnsSdConfig { names: string[]; type: 'SRV' | 'A' | 'AAAA' | 'MX'; port: number; refreshIntervalMs: number }

export interface SdConfigs {
  staticConfigs: TargetGroup[];
  fileSdConfigs: FileSdConfig[];
  httpSdConfigs: HttpSdConfig[];
  dnsSdConfigs: DnsSdConfig[];
  /** Discovery kinds Tessera does not implement, as written (`kubernetes_sd_configs` → its list). */
  unsupported: Record<string, unknown[]>;
}

const UNSUPPORTED_SD = ['azure', 'consul', 'digitalocean', 'docker', 'dockerswarm', 'ec2', 'eureka', 'gce', 'hetzner',
  'ionos', 'kubernetes', 'kuma', 'lightsail', 'linode', 'marathon', 'nerve', 'nomad', 'openstack', 'ovhcloud', 'puppetdb',
  'scaleway', 'serverset', 'triton', 'uyuni', 'vultr'].map((n) => `${n}_sd_configs`);

/** Every discovery key a scrape or Alertmanager config may hold. */
export const SD_FIELDS = ['static_configs', 'file_sd_configs', 'http_sd_configs', 'dns_sd_configs', ...UNSUPPORTED_SD];

const FILE_SD_RE = /^[^*]*(\*[^/]*)?\.(json|yml|yaml|JSON|YML|YAML)$/;
const DNS_TYPES = new Set(['SRV', 'A', 'AAAA', 'MX']);

export function parseSdConfigs(o: Obj, dir: string): SdConfigs {
  const unsupported: Record<string, unknown[]> = {};
  for (const k of UNSUPPORTED_SD) if (o[k] !== undefined && o[k] !== null) unsupported[k] = asList(o[k], k);
  return {
    staticConfigs: asList(o.static_configs, 'static_configs').map((g, i) => parseTargetGroup(g, String(i))),
    fileSdConfigs: asList(o.file_sd_configs, 'file_sd_configs').map((f) => parseFileSd(asObj(f, 'file_sd_config'), dir)),
    httpSdConfigs: asList(o.http_sd_configs, 'http_sd_configs').map((h) => parseHttpSd(asObj(h, 'http_sd_config'), dir)),
    dnsSdConfigs: asList(o.dns_sd_configs, 'dns_sd_configs').map((d) => parseDnsSd(asObj(d, 'dns_sd_config'))),
    unsupported,
  };
}

/** A `{targets, labels}` group as in static configs, file SD files and HTTP SD replies. */
export function parseTargetGroup(raw: unknown, source: string): TargetGroup {
  const g = asObj(raw, 'target group');
  checkFields(g, ['targets', 'labels'], 'targetgroup.Group');
  const targets = asList(g.targets, 'targets').map(String);
  for (const t of targets) if (t.includes('/')) bad(`"${t}" is not a valid hostname`);
  return { targets, labels: labelMap(g.labels, 'labels'), source };
}

function parseFileSd(o: Obj, dir: string): FileSdConfig {
  checkFields(o, ['files', 'refresh_interval'], 'file.SDConfig');
  const files = asList(o.files, 'files').map(String);
  if (files.length === 0) bad('file service discovery config must contain at least one path name');
  for (const f of files) if (!FILE_SD_RE.test(f)) bad(`path name "${f}" is not valid for file discovery`);
  return { files: files.map((f) => resolvePath(dir, f)), refreshIntervalMs: dur(o.refresh_interval, 300_000) };
}

function parseHttpSd(o: Obj, dir: string): HttpSdConfig {
  checkFields(o, ['url', 'refresh_interval', ...HTTP_CLIENT_FIELDS], 'http.SDConfig');
  const url = str(o.url);
  if (url === '') bad('URL is missing');
  let u: URL;
  try { u = new URL(url); } catch { bad(`parse "${url}": invalid URL`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') bad("URL scheme must be 'http' or 'https'");
  if (u.host === '') bad('host is missing in URL');
  return { url, refreshIntervalMs: dur(o.refresh_interval, 60_000), http: parseHttpClientConfig(o, dir) };
}

function parseDnsSd(o: Obj): DnsSdConfig {
  checkFields(o, ['names', 'type', 'port', 'refresh_interval'], 'dns.SDConfig');
  const names = asList(o.names, 'names').map(String);
  if (names.length === 0) bad('DNS-SD config must contain at least one SRV record name');
  const type = str(o.type, 'SRV').toUpperCase();
  if (!DNS_TYPES.has(type)) bad(`invalid DNS-SD records type ${str(o.type)}`);
  const port = uint(o.port, 0, 'port');
  if (type !== 'SRV' && port === 0) bad('a port is required in DNS-SD configs for all record types except SRV');
  return { names, type: type as DnsSdConfig['type'], port, refreshIntervalMs: dur(o.refresh_interval, 30_000) };
}

/** The discovery sections with defaults filled, for `/api/v1/status/config`. */
export function marshalSdConfigs(sd: SdConfigs): Obj {
  const out: Obj = {};
  const kinds: [string, unknown[]][] = [
    ['dns_sd_configs', sd.dnsSdConfigs.map((d) => ({ names: d.names, refresh_interval: formatDuration(d.refreshIntervalMs), type: d.type, port: d.port }))],
    ['file_sd_configs', sd.fileSdConfigs.map((f) => ({ files: f.files, refresh_interval: formatDuration(f.refreshIntervalMs) }))],
    ['http_sd_configs', sd.httpSdConfigs.map((h) => ({ ...marshalHttpClientConfig(h.http), refresh_interval: formatDuration(h.refreshIntervalMs), url: h.url }))],
    ...Object.entries(sd.unsupported),
  ];
  kinds.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const [k, v] of kinds) if (v.length) out[k] = v;
  if (sd.staticConfigs.length) {
    out.static_configs = sd.staticConfigs.map((g) => (Object.keys(g.labels).length ? { targets: g.targets, labels: g.labels } : { targets: g.targets }));
  }
  return out;
}

export function unsupportedSdNames(sd: SdConfigs): string[] {
  return Object.keys(sd.unsupported);
}
