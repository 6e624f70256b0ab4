/**
 * `prometheus.yml` loading and validation with Prometheus 2.42's defaults and error messages. Unknown
 * fields are refused, as Prometheus's strict YAML unmarshalling does. `rule_files` and `alerting` are
 * validated lightly and kept for the rules engine; `remote_write` drives the remote-write queues.
 */
import { parse as parseYaml, stringify as stringifyYaml } from '../codec/yaml.ts';
import { dirname, isAbsolute, join } from 'node:path';
import { InvalidArgumentError } from '../errors.ts';
import type { Label } from '../tsdb/api.ts';
import { formatDuration, parseDurationMs } from '../model/duration.ts';
import { parseRelabelRule, type RelabelRule } from './relabel.ts';

export interface GlobalConfig {
  scrapeIntervalMs: number;
  scrapeTimeoutMs: number;
  evaluationIntervalMs: number;
  externalLabels: Label[];
}

/** A static or file-discovered group of targets sharing labels. */
export interface TargetGroup { targets: string[]; labels: Record<string, string>; source: string }

export interface FileSdConfig { files: string[]; refreshIntervalMs: number }

export interface ScrapeConfig {
  jobName: string;
  scrapeIntervalMs: number;
  scrapeTimeoutMs: number;
  metricsPath: string;
  scheme: string;
  params: Record<string, string[]>;
  honorLabels: boolean;
  honorTimestamps: boolean;
  sampleLimit: number;
  staticConfigs: TargetGroup[];
  fileSdConfigs: FileSdConfig[];
  relabelConfigs: RelabelRule[];
  metricRelabelConfigs: RelabelRule[];
  /** Value of the Authorization header to send, or '' (from basic_auth / bearer_token / authorization). */
  authorization: string;
  tls: TlsConfig;
}

/** `tls_config`: files are read when the scrape needs them (absolute paths). */
export interface TlsConfig { caFile: string; certFile: string; keyFile: string; serverName: string; insecureSkipVerify: boolean }

export interface QueueConfig {
  capacity: number; maxShards: number; minShards: number; maxSamplesPerSend: number;
  batchSendDeadlineMs: number; minBackoffMs: number; maxBackoffMs: number;
}

export interface RemoteWriteConfig {
  url: string;
  name: string;
  remoteTimeoutMs: number;
  headers: Record<string, string>;
  writeRelabelConfigs: RelabelRule[];
  queue: QueueConfig;
  authorization: string;
  /** Retry batches refused with 429 (Prometheus's `queue_config.retry_on_http_429`, off by default). */
  retryOn429: boolean;
}

export interface PromConfig {
  global: GlobalConfig;
  scrapeConfigs: ScrapeConfig[];
  /** Absolute rule file globs, for the rules engine. */
  ruleFiles: string[];
  /** The raw `alerting` section, for the rules engine's notifier. */
  alerting: Record<string, unknown> | null;
  remoteWrite: RemoteWriteConfig[];
  /** The config re-marshalled with defaults filled in, as `/api/v1/status/config` shows it. */
  yaml: string;
}

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const RULE_PATH_RE = /^[^*]*(\*[^/]*)?$/;
const FILE_SD_RE = /^[^*]*(\*[^/]*)?\.(json|yml|yaml|JSON|YML|YAML)$/;

type Obj = Record<string, unknown>;

function bad(msg: string): never { throw new InvalidArgumentError('INVALID_ARGUMENT', msg); }

function checkFields(o: Obj, allowed: readonly string[], type: string): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) bad(`yaml: unmarshal errors:\n  field ${k} not found in type ${type}`);
}

function asObj(v: unknown, what: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) bad(`${what} must be a mapping`);
  return v as Obj;
}

function asList(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad(`${what} must be a list`);
  return v;
}

function dur(v: unknown, def: number): number {
  if (v === undefined || v === null) return def;
  return parseDurationMs(String(v));
}

function bool(v: unknown, def: boolean, what: string): boolean {
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') bad(`yaml: unmarshal errors:\n  cannot unmarshal !!${typeof v === 'number' ? 'int' : 'str'} \`${String(v)}\` into bool (${what})`);
  return v;
}

function labelMap(v: unknown, what: string): Record<string, string> {
  const o = asObj(v, what);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(o)) {
    if (!LABEL_NAME_RE.test(k)) bad(`"${k}" is not a valid label name`);
    out[k] = val === null || val === undefined ? '' : String(val);
  }
  return out;
}

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
  const top = asObj(raw, 'config');
  checkFields(top, ['global', 'scrape_configs', 'rule_files', 'alerting', 'remote_write', 'remote_read'], 'config.plain');
  if (top.remote_read !== undefined) bad('remote_read is not supported by Tessera');
  const global = parseGlobal(asObj(top.global, 'global'));
  const ruleFiles = asList(top.rule_files, 'rule_files').map(String);
  for (const rf of ruleFiles) if (!RULE_PATH_RE.test(rf)) bad(`invalid rule file path "${rf}"`);
  const scrapeConfigs: ScrapeConfig[] = [];
  const names = new Set<string>();
  for (const sc of asList(top.scrape_configs, 'scrape_configs')) {
    const c = parseScrapeConfig(asObj(sc, 'scrape_config'), global, dir);
    if (names.has(c.jobName)) bad(`found multiple scrape configs with job name "${c.jobName}"`);
    names.add(c.jobName);
    scrapeConfigs.push(c);
  }
  const alerting = top.alerting === undefined || top.alerting === null ? null : asObj(top.alerting, 'alerting');
  if (alerting) checkFields(alerting, ['alert_relabel_configs', 'alertmanagers'], 'config.AlertingConfig');
  for (const r of asList(alerting?.alert_relabel_configs, 'alert_relabel_configs')) parseRelabelRule(r);
  const remoteWrite = parseRemoteWrites(asList(top.remote_write, 'remote_write'));
  const cfg: PromConfig = {
    global, scrapeConfigs, ruleFiles: ruleFiles.map((f) => resolvePath(dir, f)), alerting, remoteWrite, yaml: '',
  };
  cfg.yaml = marshalConfig(cfg, top);
  return cfg;
}

function parseGlobal(g: Obj): GlobalConfig {
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
  return { scrapeIntervalMs, scrapeTimeoutMs, evaluationIntervalMs, externalLabels };
}

const SCRAPE_FIELDS = ['job_name', 'honor_labels', 'honor_timestamps', 'params', 'scrape_interval', 'scrape_timeout',
  'metrics_path', 'scheme', 'sample_limit', 'static_configs', 'file_sd_configs', 'relabel_configs',
  'metric_relabel_configs', 'basic_auth', 'bearer_token', 'authorization', 'tls_config'];

function parseScrapeConfig(o: Obj, global: GlobalConfig, dir: string): ScrapeConfig {
  checkFields(o, SCRAPE_FIELDS, 'config.ScrapeConfig');
  const jobName = o.job_name === undefined || o.job_name === null ? '' : String(o.job_name);
  if (jobName === '') bad('job_name is empty');
  const scrapeIntervalMs = dur(o.scrape_interval, 0) || global.scrapeIntervalMs;
  let scrapeTimeoutMs = dur(o.scrape_timeout, 0);
  if (scrapeTimeoutMs > scrapeIntervalMs) bad(`scrape timeout greater than scrape interval for scrape config with job name "${jobName}"`);
  if (scrapeTimeoutMs === 0) scrapeTimeoutMs = Math.min(global.scrapeTimeoutMs, scrapeIntervalMs);
  const params: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(asObj(o.params, 'params'))) params[k] = asList(v, `params.${k}`).map(String);
  const sampleLimit = o.sample_limit === undefined ? 0 : Number(o.sample_limit);
  if (!Number.isInteger(sampleLimit) || sampleLimit < 0) bad(`cannot unmarshal ${String(o.sample_limit)} into uint sample_limit`);
  return {
    jobName, scrapeIntervalMs, scrapeTimeoutMs,
    metricsPath: o.metrics_path === undefined ? '/metrics' : String(o.metrics_path),
    scheme: o.scheme === undefined ? 'http' : String(o.scheme),
    params,
    honorLabels: bool(o.honor_labels, false, 'honor_labels'),
    honorTimestamps: bool(o.honor_timestamps, true, 'honor_timestamps'),
    sampleLimit,
    staticConfigs: asList(o.static_configs, 'static_configs').map((g, i) => parseTargetGroup(g, String(i))),
    fileSdConfigs: asList(o.file_sd_configs, 'file_sd_configs').map((f) => parseFileSd(asObj(f, 'file_sd_config'), dir)),
    relabelConfigs: asList(o.relabel_configs, 'relabel_configs').map(parseRelabelRule),
    metricRelabelConfigs: asList(o.metric_relabel_configs, 'metric_relabel_configs').map(parseRelabelRule),
    authorization: parseAuth(o),
    tls: parseTls(asObj(o.tls_config, 'tls_config'), dir),
  };
}

function parseTls(o: Obj, dir: string): TlsConfig {
  checkFields(o, ['ca_file', 'cert_file', 'key_file', 'server_name', 'insecure_skip_verify'], 'config.TLSConfig');
  const file = (v: unknown): string => (v === undefined || v === null || v === '' ? '' : resolvePath(dir, String(v)));
  const tls = {
    caFile: file(o.ca_file), certFile: file(o.cert_file), keyFile: file(o.key_file),
    serverName: o.server_name === undefined ? '' : String(o.server_name),
    insecureSkipVerify: bool(o.insecure_skip_verify, false, 'insecure_skip_verify'),
  };
  if ((tls.certFile === '') !== (tls.keyFile === '')) bad(tls.certFile ? 'client cert file specified without client key file' : 'client key file specified without client cert file');
  return tls;
}

/** A `{targets, labels}` group as in static configs and file SD files. */
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

function parseAuth(o: Obj): string {
  const set = ['basic_auth', 'bearer_token', 'authorization'].filter((k) => o[k] !== undefined);
  if (set.length > 1) bad('at most one of basic_auth, bearer_token & authorization must be configured');
  if (o.basic_auth !== undefined) {
    const b = asObj(o.basic_auth, 'basic_auth');
    checkFields(b, ['username', 'password'], 'config.BasicAuth');
    return 'Basic ' + Buffer.from(`${String(b.username ?? '')}:${String(b.password ?? '')}`).toString('base64');
  }
  if (o.bearer_token !== undefined) return `Bearer ${String(o.bearer_token)}`;
  if (o.authorization !== undefined) {
    const a = asObj(o.authorization, 'authorization');
    checkFields(a, ['type', 'credentials'], 'config.Authorization');
    const type = a.type === undefined ? 'Bearer' : String(a.type);
    if (type.toLowerCase() === 'basic') bad(`authorization type cannot be set to "basic", use "basic_auth" instead`);
    return `${type} ${String(a.credentials ?? '')}`;
  }
  return '';
}

function parseRemoteWrites(list: unknown[]): RemoteWriteConfig[] {
  const names = new Set<string>();
  return list.map((raw) => {
    if (raw === null || raw === undefined) bad('empty or null remote write config section');
    const o = asObj(raw, 'remote_write');
    checkFields(o, ['url', 'name', 'remote_timeout', 'headers', 'write_relabel_configs', 'queue_config',
      'basic_auth', 'bearer_token', 'authorization'], 'config.RemoteWriteConfig');
    const url = o.url === undefined || o.url === null ? '' : String(o.url);
    if (url === '') bad('url for remote_write is empty');
    try { new URL(url); } catch { bad(`parse "${url}": invalid URL`); }
    const name = o.name === undefined ? '' : String(o.name);
    if (name !== '' && names.has(name)) bad(`found multiple remote write configs with job name "${name}"`);
    names.add(name);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(asObj(o.headers, 'headers'))) headers[k] = String(v);
    return {
      url, name, remoteTimeoutMs: dur(o.remote_timeout, 30_000), headers,
      writeRelabelConfigs: asList(o.write_relabel_configs, 'write_relabel_configs').map(parseRelabelRule),
      queue: parseQueue(asObj(o.queue_config, 'queue_config')), authorization: parseAuth(o),
      retryOn429: bool(asObj(o.queue_config, 'queue_config').retry_on_http_429, false, 'retry_on_http_429'),
    };
  });
}

function parseQueue(q: Obj): QueueConfig {
  checkFields(q, ['capacity', 'max_shards', 'min_shards', 'max_samples_per_send', 'batch_send_deadline',
    'min_backoff', 'max_backoff', 'retry_on_http_429'], 'config.QueueConfig');
  const int = (v: unknown, def: number): number => (v === undefined ? def : Number(v));
  return {
    capacity: int(q.capacity, 10000), maxShards: int(q.max_shards, 50), minShards: int(q.min_shards, 1),
    maxSamplesPerSend: int(q.max_samples_per_send, 2000), batchSendDeadlineMs: dur(q.batch_send_deadline, 5000),
    minBackoffMs: dur(q.min_backoff, 30), maxBackoffMs: dur(q.max_backoff, 5000),
  };
}

function resolvePath(dir: string, p: string): string {
  return isAbsolute(p) ? p : join(dir, p);
}

/** Re-marshals with defaults filled, in the field order Prometheus's config structs use. */
function marshalConfig(cfg: PromConfig, top: Obj): string {
  const g = cfg.global;
  const out: Obj = {
    global: {
      scrape_interval: formatDuration(g.scrapeIntervalMs), scrape_timeout: formatDuration(g.scrapeTimeoutMs),
      evaluation_interval: formatDuration(g.evaluationIntervalMs),
      ...(g.externalLabels.length ? { external_labels: Object.fromEntries(g.externalLabels.map((l) => [l.name, l.value])) } : {}),
    },
  };
  if (top.alerting) out.alerting = top.alerting;
  if (top.rule_files) out.rule_files = top.rule_files;
  const rawScrapes = asList(top.scrape_configs, 'scrape_configs') as Obj[];
  if (cfg.scrapeConfigs.length) out.scrape_configs = cfg.scrapeConfigs.map((c, i) => marshalScrape(c, rawScrapes[i]));
  if (top.remote_write) out.remote_write = top.remote_write;
  return stringifyYaml(out, { lineWidth: 0, indentSeq: false });
}

function marshalScrape(c: ScrapeConfig, raw: Obj): Obj {
  const o: Obj = { job_name: c.jobName, honor_labels: c.honorLabels || undefined, honor_timestamps: c.honorTimestamps };
  if (Object.keys(c.params).length) o.params = c.params;
  Object.assign(o, {
    scrape_interval: formatDuration(c.scrapeIntervalMs), scrape_timeout: formatDuration(c.scrapeTimeoutMs),
    metrics_path: c.metricsPath, scheme: c.scheme, follow_redirects: true, enable_http2: true,
  });
  if (c.sampleLimit) o.sample_limit = c.sampleLimit;
  if (raw.tls_config !== undefined) o.tls_config = raw.tls_config;
  for (const k of ['basic_auth', 'authorization']) if (raw[k] !== undefined) o[k] = k === 'basic_auth' ? { ...(raw[k] as Obj), password: '<secret>' } : { type: (raw[k] as Obj).type ?? 'Bearer', credentials: '<secret>' };
  if (raw.bearer_token !== undefined) o.authorization = { type: 'Bearer', credentials: '<secret>' };
  for (const k of ['relabel_configs', 'metric_relabel_configs', 'file_sd_configs', 'static_configs']) if (raw[k] !== undefined) o[k] = raw[k];
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** The built-in config: Tessera scrapes its own `/metrics` and the push gateway groups it holds. */
export function defaultConfigYaml(selfAddress: string): string {
  return [
    'global:', '  scrape_interval: 15s', '  scrape_timeout: 10s', '  evaluation_interval: 15s',
    'scrape_configs:',
    '  - job_name: tessera', '    static_configs:', `      - targets: ["${selfAddress}"]`,
    '  - job_name: pushgateway', '    honor_labels: true', '    metrics_path: /pushgateway/metrics',
    '    static_configs:', `      - targets: ["${selfAddress}"]`, '',
  ].join('\n');
}
