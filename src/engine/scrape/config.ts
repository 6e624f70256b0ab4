/**
 * `prometheus.yml` loading and validation with Prometheus 2.42's defaults and error messages. Unknown
 * fields are refused, as Prometheus's strict YAML unmarshalling does; every field 2.42 documents is known.
 * The sections shared with other parts of the file live beside this one: HTTP client settings
 * (`http-client-config.ts`), service discovery (`sd-config.ts`), remote write/read (`remote-config.ts`).
 * `yaml` is the config re-marshalled with defaults filled in, as `/api/v1/status/config` prints it; it
 * loads again to the same config.
 */
import { parse as parseYaml, stringify as stringifyYaml } from '../codec/yaml.ts';
import { dirname } from 'node:path';
import { InvalidArgumentError } from '../errors.ts';
import type { Label } from '../tsdb/api.ts';
import { formatDuration } from '../model/duration.ts';
import { formatBase2Bytes } from '../model/bytes.ts';
import { marshalRelabelRule, parseRelabelRule, type RelabelRule } from './relabel.ts';
import { HTTP_CLIENT_FIELDS, marshalHttpClientConfig, marshalTlsConfig, parseHttpClientConfig, parseTlsConfig, type HttpClientConfig, type TlsConfig } from './http-client-config.ts';
import { marshalSdConfigs, parseSdConfigs, SD_FIELDS, type SdConfigs } from './sd-config.ts';
import { marshalRemoteRead, marshalRemoteWrite, parseRemoteReads, parseRemoteWrites, type RemoteReadConfig, type RemoteWriteConfig } from './remote-config.ts';
import { asList, asObj, bad, bool, checkFields, compact, dur, labelMap, resolvePath, size, str, stringMap, uint, type Obj } from './config-yaml.ts';

export type { TargetGroup, FileSdConfig, HttpSdConfig, DnsSdConfig, SdConfigs } from './sd-config.ts';
export { parseTargetGroup } from './sd-config.ts';
export type { RemoteWriteConfig, RemoteReadConfig, QueueConfig } from './remote-config.ts';
export type { HttpClientConfig, TlsConfig } from './http-client-config.ts';

export interface GlobalConfig {
  scrapeIntervalMs: number;
  scrapeTimeoutMs: number;
  evaluationIntervalMs: number;
  queryLogFile: string;
  externalLabels: Label[];
}

export interface ScrapeConfig extends SdConfigs {
  jobName: string;
  scrapeIntervalMs: number;
  scrapeTimeoutMs: number;
  metricsPath: string;
  scheme: string;
  params: Record<string, string[]>;
  honorLabels: boolean;
  honorTimestamps: boolean;
  /** Limits; 0 means none. A scrape over one fails with Prometheus's error and `up` 0. */
  bodySizeLimitBytes: number;
  sampleLimit: number;
  targetLimit: number;
  labelLimit: number;
  labelNameLengthLimit: number;
  labelValueLengthLimit: number;
  relabelConfigs: RelabelRule[];
  metricRelabelConfigs: RelabelRule[];
  http: HttpClientConfig;
}

export interface AlertmanagerConfig extends SdConfigs {
  scheme: string;
  pathPrefix: string;
  timeoutMs: number;
  apiVersion: string;
  relabelConfigs: RelabelRule[];
  http: HttpClientConfig;
}

export interface AlertingConfig { alertRelabelConfigs: RelabelRule[]; alertmanagers: AlertmanagerConfig[] }

/** `storage:`; only what was written is printed back, as Prometheus does. */
export interface StorageConfig { outOfOrderTimeWindowMs: number | null; maxExemplars: number | null }

export interface TracingConfig {
  clientType: string; endpoint: string; samplingFraction: number; insecure: boolean; tls: TlsConfig;
  headers: Record<string, string>; compression: string; timeoutMs: number;
}

export interface PromConfig {
  global: GlobalConfig;
  scrapeConfigs: ScrapeConfig[];
  /** Absolute rule file globs, for the rules engine. */
  ruleFiles: string[];
  alerting: AlertingConfig;
  storage: StorageConfig | null;
  tracing: TracingConfig | null;
  remoteWrite: RemoteWriteConfig[];
  remoteRead: RemoteReadConfig[];
  /** The config re-marshalled with defaults filled in, as `/api/v1/status/config` shows it. */
  yaml: string;
}

const RULE_PATH_RE = /^[^*]*(\*[^/]*)?$/;

/**
 * Parses and validates a config. `filename` is used in messages and to resolve relative paths; throws
 * InvalidArgumentError whose message reads like Prometheus's (`parsing YAML file …: …`).
 */
export function loadConfig(text: string, filename: string): PromConfig {
  try {
    return buildConfig(text, filename === '' ? process.cwd() : dirname(filename));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new InvalidArgumentError('INVALID_ARGUMENT', `parsing YAML file ${filename || '<built-in>'}: ${msg}`);
  }
}

function buildConfig(text: string, dir: string): PromConfig {
  let raw: unknown;
  try { raw = parseYaml(text, { uniqueKeys: true }); } catch (e) { bad(`yaml: ${(e as Error).message.split('\n')[0]}`); }
  return configOf(raw, dir);
}

/** Validates a parsed config; relative paths resolve against `dir`. */
function configOf(raw: unknown, dir: string): PromConfig {
  const top = asObj(raw, 'config');
  let text: string | null = null;
  checkFields(top, ['global', 'scrape_configs', 'rule_files', 'alerting', 'remote_write', 'remote_read', 'storage', 'tracing'], 'config.plain');
  const global = parseGlobal(asObj(top.global, 'global'), dir);
  const ruleFiles = asList(top.rule_files, 'rule_files').map(String);
  for (const rf of ruleFiles) if (!RULE_PATH_RE.test(rf)) bad(`invalid rule file path "${rf}"`);
  const scrapeConfigs: ScrapeConfig[] = [];
  const names = new Set<string>();
  for (const sc of asList(top.scrape_configs, 'scrape_configs')) {
    if (sc === null || sc === undefined) bad('empty or null scrape config section');
    const c = parseScrapeConfig(asObj(sc, 'scrape_config'), global, dir);
    if (names.has(c.jobName)) bad(`found multiple scrape configs with job name "${c.jobName}"`);
    names.add(c.jobName);
    scrapeConfigs.push(c);
  }
  const cfg: PromConfig = {
    global, scrapeConfigs, ruleFiles: ruleFiles.map((f) => resolvePath(dir, f)),
    alerting: parseAlerting(asObj(top.alerting, 'alerting'), dir),
    storage: top.storage === undefined || top.storage === null ? null : parseStorage(asObj(top.storage, 'storage')),
    tracing: top.tracing === undefined || top.tracing === null ? null : parseTracing(asObj(top.tracing, 'tracing'), dir),
    remoteWrite: parseRemoteWrites(asList(top.remote_write, 'remote_write'), dir),
    remoteRead: parseRemoteReads(asList(top.remote_read, 'remote_read'), dir),
    // Written when asked for (`/api/v1/status/config`): the YAML writer is not loaded to start a node.
    get yaml(): string { return (text ??= marshalConfig(cfg)); },
  };
  return cfg;
}

function parseGlobal(g: Obj, dir: string): GlobalConfig {
  checkFields(g, ['scrape_interval', 'scrape_timeout', 'evaluation_interval', 'external_labels', 'query_log_file'], 'config.GlobalConfig');
  const scrapeIntervalMs = dur(g.scrape_interval, 0) || 60_000;
  let scrapeTimeoutMs = dur(g.scrape_timeout, 0);
  if (scrapeTimeoutMs > scrapeIntervalMs) bad('global scrape timeout greater than scrape interval');
  if (scrapeTimeoutMs === 0) scrapeTimeoutMs = Math.min(10_000, scrapeIntervalMs);
  const evaluationIntervalMs = dur(g.evaluation_interval, 0) || 60_000;
  const ext = labelMap(g.external_labels, 'external_labels');
  if ('__name__' in ext) bad('"__name__" is not a valid label name');
  const externalLabels = Object.entries(ext).filter(([, v]) => v !== '').map(([name, value]) => ({ name, value }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return { scrapeIntervalMs, scrapeTimeoutMs, evaluationIntervalMs, queryLogFile: resolvePath(dir, str(g.query_log_file)), externalLabels };
}

const SCRAPE_FIELDS = ['job_name', 'honor_labels', 'honor_timestamps', 'params', 'scrape_interval', 'scrape_timeout',
  'metrics_path', 'scheme', 'body_size_limit', 'sample_limit', 'target_limit', 'label_limit', 'label_name_length_limit',
  'label_value_length_limit', 'relabel_configs', 'metric_relabel_configs', ...HTTP_CLIENT_FIELDS, ...SD_FIELDS];

function parseScrapeConfig(o: Obj, global: GlobalConfig, dir: string): ScrapeConfig {
  checkFields(o, SCRAPE_FIELDS, 'config.ScrapeConfig');
  const jobName = str(o.job_name);
  if (jobName === '') bad('job_name is empty');
  const scrapeIntervalMs = dur(o.scrape_interval, 0) || global.scrapeIntervalMs;
  let scrapeTimeoutMs = dur(o.scrape_timeout, 0);
  if (scrapeTimeoutMs > scrapeIntervalMs) bad(`scrape timeout greater than scrape interval for scrape config with job name "${jobName}"`);
  if (scrapeTimeoutMs === 0) scrapeTimeoutMs = Math.min(global.scrapeTimeoutMs, scrapeIntervalMs);
  const params: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(asObj(o.params, 'params'))) params[k] = asList(v, `params.${k}`).map(String);
  const rules = (v: unknown, what: string, empty: string): RelabelRule[] => asList(v, what).map((r) => {
    if (r === null || r === undefined) bad(empty);
    return parseRelabelRule(r);
  });
  return {
    jobName, scrapeIntervalMs, scrapeTimeoutMs,
    metricsPath: str(o.metrics_path, '/metrics'), scheme: str(o.scheme, 'http'), params,
    honorLabels: bool(o.honor_labels, false, 'honor_labels'), honorTimestamps: bool(o.honor_timestamps, true, 'honor_timestamps'),
    bodySizeLimitBytes: size(o.body_size_limit, 'body_size_limit'),
    sampleLimit: uint(o.sample_limit, 0, 'sample_limit'), targetLimit: uint(o.target_limit, 0, 'target_limit'),
    labelLimit: uint(o.label_limit, 0, 'label_limit'), labelNameLengthLimit: uint(o.label_name_length_limit, 0, 'label_name_length_limit'),
    labelValueLengthLimit: uint(o.label_value_length_limit, 0, 'label_value_length_limit'),
    ...parseSdConfigs(o, dir),
    relabelConfigs: rules(o.relabel_configs, 'relabel_configs', 'empty or null target relabeling rule in scrape config'),
    metricRelabelConfigs: rules(o.metric_relabel_configs, 'metric_relabel_configs', 'empty or null metric relabeling rule in scrape config'),
    http: parseHttpClientConfig(o, dir),
  };
}

function parseAlerting(a: Obj, dir: string): AlertingConfig {
  checkFields(a, ['alert_relabel_configs', 'alertmanagers'], 'config.AlertingConfig');
  return {
    alertRelabelConfigs: asList(a.alert_relabel_configs, 'alert_relabel_configs').map((r) => {
      if (r === null || r === undefined) bad('empty or null alert relabeling rule');
      return parseRelabelRule(r);
    }),
    alertmanagers: asList(a.alertmanagers, 'alertmanagers').map((raw) => parseAlertmanager(asObj(raw, 'alertmanager_config'), dir)),
  };
}

function parseAlertmanager(o: Obj, dir: string): AlertmanagerConfig {
  checkFields(o, ['scheme', 'path_prefix', 'timeout', 'api_version', 'relabel_configs', ...HTTP_CLIENT_FIELDS, ...SD_FIELDS], 'config.AlertmanagerConfig');
  const apiVersion = str(o.api_version, 'v2');
  if (apiVersion !== 'v1' && apiVersion !== 'v2') bad(`expected Alertmanager api version to be one of [v1 v2] but got ${apiVersion}`);
  return {
    scheme: str(o.scheme, 'http'), pathPrefix: str(o.path_prefix), timeoutMs: dur(o.timeout, 10_000), apiVersion,
    relabelConfigs: asList(o.relabel_configs, 'relabel_configs').map((r) => {
      if (r === null || r === undefined) bad('empty or null Alertmanager target relabeling rule');
      return parseRelabelRule(r);
    }),
    http: parseHttpClientConfig(o, dir),
    ...parseSdConfigs(o, dir),
  };
}

function parseStorage(s: Obj): StorageConfig {
  checkFields(s, ['tsdb', 'exemplars'], 'config.StorageConfig');
  const tsdb = s.tsdb === undefined ? null : asObj(s.tsdb, 'tsdb');
  const ex = s.exemplars === undefined ? null : asObj(s.exemplars, 'exemplars');
  if (tsdb) checkFields(tsdb, ['out_of_order_time_window'], 'config.TSDBConfig');
  if (ex) checkFields(ex, ['max_exemplars'], 'config.ExemplarsConfig');
  return {
    outOfOrderTimeWindowMs: tsdb ? dur(tsdb.out_of_order_time_window, 0) : null,
    maxExemplars: ex ? Number(ex.max_exemplars ?? 100_000) : null,
  };
}

function parseTracing(t: Obj, dir: string): TracingConfig {
  checkFields(t, ['client_type', 'endpoint', 'sampling_fraction', 'insecure', 'tls_config', 'headers', 'compression', 'timeout'], 'config.TracingConfig');
  const clientType = str(t.client_type, 'grpc');
  if (clientType !== 'grpc' && clientType !== 'http') bad(`expected tracing client type to be to be http or grpc, but got ${clientType}`);
  const headers = stringMap(t.headers, 'headers');
  const endpoint = str(t.endpoint);
  if (endpoint === '') bad('tracing endpoint must be set');
  const compression = str(t.compression);
  if (compression !== '' && compression !== 'gzip') bad(`invalid compression type ${compression} provided, valid options: gzip`);
  return {
    clientType, endpoint, samplingFraction: Number(t.sampling_fraction ?? 0), insecure: bool(t.insecure, false, 'insecure'),
    tls: parseTlsConfig(asObj(t.tls_config, 'tls_config'), dir), headers, compression, timeoutMs: dur(t.timeout, 10_000),
  };
}

/** Re-marshals with defaults filled, in the field order of Prometheus's config structs. */
function marshalConfig(cfg: PromConfig): string {
  const g = cfg.global;
  const out: Obj = {
    global: compact({
      scrape_interval: formatDuration(g.scrapeIntervalMs), scrape_timeout: formatDuration(g.scrapeTimeoutMs),
      evaluation_interval: formatDuration(g.evaluationIntervalMs), query_log_file: g.queryLogFile || undefined,
      external_labels: g.externalLabels.length ? Object.fromEntries(g.externalLabels.map((l) => [l.name, l.value])) : undefined,
    }),
  };
  const a = cfg.alerting;
  if (a.alertRelabelConfigs.length || a.alertmanagers.length) {
    out.alerting = compact({
      alert_relabel_configs: a.alertRelabelConfigs.length ? a.alertRelabelConfigs.map(marshalRelabelRule) : undefined,
      alertmanagers: a.alertmanagers.length ? a.alertmanagers.map(marshalAlertmanager) : undefined,
    });
  }
  if (cfg.ruleFiles.length) out.rule_files = cfg.ruleFiles;
  if (cfg.scrapeConfigs.length) out.scrape_configs = cfg.scrapeConfigs.map(marshalScrape);
  if (cfg.storage) {
    out.storage = compact({
      tsdb: cfg.storage.outOfOrderTimeWindowMs === null ? undefined : { out_of_order_time_window: formatDuration(cfg.storage.outOfOrderTimeWindowMs) },
      exemplars: cfg.storage.maxExemplars === null ? undefined : { max_exemplars: cfg.storage.maxExemplars },
    });
  }
  if (cfg.tracing) out.tracing = marshalTracing(cfg.tracing);
  if (cfg.remoteWrite.length) out.remote_write = cfg.remoteWrite.map(marshalRemoteWrite);
  if (cfg.remoteRead.length) out.remote_read = cfg.remoteRead.map(marshalRemoteRead);
  return stringifyYaml(out, { lineWidth: 0, indentSeq: false });
}

function marshalScrape(c: ScrapeConfig): Obj {
  return compact({
    job_name: c.jobName, honor_labels: c.honorLabels || undefined, honor_timestamps: c.honorTimestamps,
    params: Object.keys(c.params).length ? c.params : undefined,
    scrape_interval: formatDuration(c.scrapeIntervalMs), scrape_timeout: formatDuration(c.scrapeTimeoutMs),
    metrics_path: c.metricsPath, scheme: c.scheme,
    body_size_limit: c.bodySizeLimitBytes ? formatBase2Bytes(c.bodySizeLimitBytes) : undefined,
    sample_limit: c.sampleLimit || undefined, target_limit: c.targetLimit || undefined, label_limit: c.labelLimit || undefined,
    label_name_length_limit: c.labelNameLengthLimit || undefined, label_value_length_limit: c.labelValueLengthLimit || undefined,
    ...marshalHttpClientConfig(c.http),
    relabel_configs: c.relabelConfigs.length ? c.relabelConfigs.map(marshalRelabelRule) : undefined,
    metric_relabel_configs: c.metricRelabelConfigs.length ? c.metricRelabelConfigs.map(marshalRelabelRule) : undefined,
    ...marshalSdConfigs(c),
  });
}

function marshalAlertmanager(c: AlertmanagerConfig): Obj {
  return compact({
    ...marshalHttpClientConfig(c.http), scheme: c.scheme, path_prefix: c.pathPrefix || undefined,
    timeout: formatDuration(c.timeoutMs), api_version: c.apiVersion,
    relabel_configs: c.relabelConfigs.length ? c.relabelConfigs.map(marshalRelabelRule) : undefined,
    ...marshalSdConfigs(c),
  });
}

function marshalTracing(t: TracingConfig): Obj {
  return compact({
    client_type: t.clientType, endpoint: t.endpoint, sampling_fraction: t.samplingFraction || undefined, insecure: t.insecure || undefined,
    tls_config: marshalTlsConfig(t.tls), headers: Object.keys(t.headers).length ? t.headers : undefined,
    compression: t.compression || undefined, timeout: formatDuration(t.timeoutMs),
  });
}

/**
 * The built-in config: Tessera scrapes its own `/metrics` and the push gateway groups it holds. Built from its
 * parsed form, as a file saying the same would be, without the YAML parser (which a node started without
 * config files then never loads).
 */
export function defaultConfig(selfAddress: string): PromConfig {
  return configOf({
    global: { scrape_interval: '15s', scrape_timeout: '10s', evaluation_interval: '15s' },
    scrape_configs: [
      { job_name: 'tessera', static_configs: [{ targets: [selfAddress] }] },
      { job_name: 'pushgateway', honor_labels: true, metrics_path: '/pushgateway/metrics', static_configs: [{ targets: [selfAddress] }] },
    ],
  }, process.cwd());
}
