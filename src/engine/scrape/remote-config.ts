/**
 * The `remote_write` and `remote_read` sections of prometheus.yml with Prometheus 2.42's defaults,
 * checks and messages, and their marshalled form for `/api/v1/status/config`. With `sigv4`, the remote-write
 * queue signs each request (`remote/sigv4.ts`).
 */
import { marshalRelabelRule, parseRelabelRule, type RelabelRule } from './relabel.ts';
import { HTTP_CLIENT_FIELDS, marshalHttpClientConfig, parseHttpClientConfig, type HttpClientConfig } from './http-client-config.ts';
import { asList, asObj, bad, bool, checkFields, compact, dur, labelMap, str, stringMap, uint, type Obj } from './config-yaml.ts';
import { formatDuration } from '../model/duration.ts';


export interface QueueConfig {
  capacity: number; maxShards: number; minShards: number; maxSamplesPerSend: number;
  batchSendDeadlineMs: number; minBackoffMs: number; maxBackoffMs: number;
  /** Retry batches refused with 429 (off by default). */
  retryOn429: boolean;
}

export interface MetadataConfig { send: boolean; sendIntervalMs: number; maxSamplesPerSend: number }
export interface SigV4Config { region: string; accessKey: string; secretKey: string; profile: string; roleArn: string }

export interface RemoteWriteConfig {
  url: string;
  name: string;
  remoteTimeoutMs: number;
  headers: Record<string, string>;
  writeRelabelConfigs: RelabelRule[];
  sendExemplars: boolean;
  sendNativeHistograms: boolean;
  http: HttpClientConfig;
  queue: QueueConfig;
  metadata: MetadataConfig;
  sigv4: SigV4Config | null;
}

export interface RemoteReadConfig {
  url: string;
  name: string;
  remoteTimeoutMs: number;
  headers: Record<string, string>;
  readRecent: boolean;
  http: HttpClientConfig;
  /** Equality matchers a selector must contain for this endpoint to be asked. */
  requiredMatchers: Record<string, string>;
  filterExternalLabels: boolean;
}

const RESERVED_HEADERS = new Set(['host', 'content-encoding', 'content-length', 'content-type', 'user-agent', 'connection',
  'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'www-authenticate', 'accept-encoding',
  'x-prometheus-remote-write-version', 'x-prometheus-remote-read-version', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256']);

function headers(v: unknown): Record<string, string> {
  const h = stringMap(v, 'headers');
  for (const k of Object.keys(h)) {
    if (k.toLowerCase() === 'authorization') bad('authorization header must be changed via the basic_auth, authorization, oauth2, or sigv4 parameter');
    if (RESERVED_HEADERS.has(k.toLowerCase())) bad(`${k} is a reserved header. It must not be changed`);
  }
  return h;
}

function url(v: unknown, section: string): string {
  const u = str(v);
  if (u === '') bad(`url for ${section} is empty`);
  try { new URL(u); } catch { bad(`parse "${u}": invalid URL`); }
  return u;
}

function uniqueNames<T extends { name: string }>(list: T[], section: string): T[] {
  const names = new Set<string>();
  for (const c of list) {
    if (c.name !== '' && names.has(c.name)) bad(`found multiple ${section} configs with job name "${c.name}"`);
    names.add(c.name);
  }
  return list;
}

export function parseRemoteWrites(list: unknown[], dir: string): RemoteWriteConfig[] {
  return uniqueNames(list.map((raw) => {
    if (raw === null || raw === undefined) bad('empty or null remote write config section');
    const o = asObj(raw, 'remote_write');
    checkFields(o, ['url', 'name', 'remote_timeout', 'headers', 'write_relabel_configs', 'send_exemplars', 'send_native_histograms',
      'queue_config', 'metadata_config', 'sigv4', ...HTTP_CLIENT_FIELDS], 'config.RemoteWriteConfig');
    const http = parseHttpClientConfig(o, dir);
    const sigv4 = o.sigv4 === undefined || o.sigv4 === null ? null : parseSigV4(asObj(o.sigv4, 'sigv4'));
    if (sigv4 && (http.basicAuth || http.authorization || http.oauth2)) bad('at most one of basic_auth, authorization, oauth2, & sigv4 must be configured');
    return {
      url: url(o.url, 'remote_write'), name: str(o.name), remoteTimeoutMs: dur(o.remote_timeout, 30_000), headers: headers(o.headers),
      writeRelabelConfigs: asList(o.write_relabel_configs, 'write_relabel_configs').map(parseRelabelRule),
      sendExemplars: bool(o.send_exemplars, false, 'send_exemplars'), sendNativeHistograms: bool(o.send_native_histograms, false, 'send_native_histograms'),
      http, queue: parseQueue(asObj(o.queue_config, 'queue_config')), metadata: parseMetadata(asObj(o.metadata_config, 'metadata_config')), sigv4,
    };
  }), 'remote write');
}

function parseQueue(q: Obj): QueueConfig {
  checkFields(q, ['capacity', 'max_shards', 'min_shards', 'max_samples_per_send', 'batch_send_deadline',
    'min_backoff', 'max_backoff', 'retry_on_http_429'], 'config.QueueConfig');
  return {
    capacity: uint(q.capacity, 2500, 'capacity'), maxShards: uint(q.max_shards, 200, 'max_shards'), minShards: uint(q.min_shards, 1, 'min_shards'),
    maxSamplesPerSend: uint(q.max_samples_per_send, 500, 'max_samples_per_send'), batchSendDeadlineMs: dur(q.batch_send_deadline, 5000),
    minBackoffMs: dur(q.min_backoff, 30), maxBackoffMs: dur(q.max_backoff, 5000), retryOn429: bool(q.retry_on_http_429, false, 'retry_on_http_429'),
  };
}

function parseMetadata(m: Obj): MetadataConfig {
  checkFields(m, ['send', 'send_interval', 'max_samples_per_send'], 'config.MetadataConfig');
  return { send: bool(m.send, true, 'send'), sendIntervalMs: dur(m.send_interval, 60_000), maxSamplesPerSend: uint(m.max_samples_per_send, 500, 'max_samples_per_send') };
}

function parseSigV4(s: Obj): SigV4Config {
  checkFields(s, ['region', 'access_key', 'secret_key', 'profile', 'role_arn'], 'sigv4.SigV4Config');
  const out = { region: str(s.region), accessKey: str(s.access_key), secretKey: str(s.secret_key), profile: str(s.profile), roleArn: str(s.role_arn) };
  if ((out.accessKey === '') !== (out.secretKey === '')) bad('must provide a AWS SigV4 Access key and Secret Key if credentials are specified in the SigV4 config');
  return out;
}

export function parseRemoteReads(list: unknown[], dir: string): RemoteReadConfig[] {
  return uniqueNames(list.map((raw) => {
    if (raw === null || raw === undefined) bad('empty or null remote read config section');
    const o = asObj(raw, 'remote_read');
    checkFields(o, ['url', 'name', 'remote_timeout', 'headers', 'read_recent', 'required_matchers', 'filter_external_labels',
      ...HTTP_CLIENT_FIELDS], 'config.RemoteReadConfig');
    return {
      url: url(o.url, 'remote_read'), name: str(o.name), remoteTimeoutMs: dur(o.remote_timeout, 60_000), headers: headers(o.headers),
      readRecent: bool(o.read_recent, false, 'read_recent'), http: parseHttpClientConfig(o, dir),
      requiredMatchers: labelMap(o.required_matchers, 'required_matchers'),
      filterExternalLabels: bool(o.filter_external_labels, true, 'filter_external_labels'),
    };
  }), 'remote read');
}

export function marshalRemoteWrite(c: RemoteWriteConfig): Obj {
  const q = c.queue;
  return compact({
    url: c.url, remote_timeout: formatDuration(c.remoteTimeoutMs),
    headers: Object.keys(c.headers).length ? c.headers : undefined,
    write_relabel_configs: c.writeRelabelConfigs.length ? c.writeRelabelConfigs.map(marshalRelabelRule) : undefined,
    name: c.name || undefined, send_exemplars: c.sendExemplars || undefined, send_native_histograms: c.sendNativeHistograms || undefined,
    ...marshalHttpClientConfig(c.http),
    queue_config: compact({
      capacity: q.capacity, max_shards: q.maxShards, min_shards: q.minShards, max_samples_per_send: q.maxSamplesPerSend,
      batch_send_deadline: formatDuration(q.batchSendDeadlineMs), min_backoff: formatDuration(q.minBackoffMs),
      max_backoff: formatDuration(q.maxBackoffMs), retry_on_http_429: q.retryOn429 || undefined,
    }),
    metadata_config: { send: c.metadata.send, send_interval: formatDuration(c.metadata.sendIntervalMs), max_samples_per_send: c.metadata.maxSamplesPerSend },
    sigv4: c.sigv4 ? compact({
      region: c.sigv4.region || undefined, access_key: c.sigv4.accessKey || undefined, secret_key: c.sigv4.secretKey ? '<secret>' : undefined,
      profile: c.sigv4.profile || undefined, role_arn: c.sigv4.roleArn || undefined,
    }) : undefined,
  });
}

export function marshalRemoteRead(c: RemoteReadConfig): Obj {
  return compact({
    url: c.url, remote_timeout: formatDuration(c.remoteTimeoutMs), headers: Object.keys(c.headers).length ? c.headers : undefined,
    read_recent: c.readRecent || undefined, name: c.name || undefined, ...marshalHttpClientConfig(c.http),
    required_matchers: Object.keys(c.requiredMatchers).length ? c.requiredMatchers : undefined,
    // Prometheus omits `false` here, which then reloads as the default `true`; printing it keeps the round trip.
    filter_external_labels: c.filterExternalLabels,
  });
}
