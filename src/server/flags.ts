/**
 * Command-line flags. Names follow the peers: Elasticsearch's dotted settings (`--path.data`, also as
 * `-E path.data=DIR`), Prometheus's `--storage.tsdb.*`/`--web.*`, and Tessera's own `--workflow.*`.
 * Every flag takes `--name value` or `--name=value`; booleans take `--flag`, `--flag=true|false` and
 * `--no-flag`. An unknown flag or bad value throws FlagError naming the flag.
 */
import { cpus } from 'node:os';
import { parseDurationMs, parseDurationMsOrNull } from '../engine/model/duration.ts';
import { parseBase2Bytes } from '../engine/model/bytes.ts';

export class FlagError extends Error {}

export interface Flags {
  'path.data': string;
  'http.port': number;
  'network.host': string;
  'web.listen-address': string;
  'web.config.file': string;
  'http.web-config.file': string;
  'workflow.web-config.file': string;
  'workflow.port': number;
  workers: number;
  'config.file': string;
  'web.enable-lifecycle': boolean;
  'web.enable-admin-api': boolean;
  'web.enable-remote-write-receiver': boolean;
  'storage.tsdb.path': string;
  'storage.tsdb.retention.time': string;
  'storage.tsdb.retention.size': string;
  'storage.tsdb.retention': string;
  'storage.tsdb.wal-compression': boolean;
  'storage.tsdb.min-block-duration': string;
  'query.lookback-delta': string;
  'query.timeout': string;
  'query.max-samples': number;
  'query.max-concurrency': number;
  'query.split-min-steps': number;
  'web.external-url': string;
  'web.cors.origin': string;
  'rules.alert.for-outage-tolerance': string;
  'rules.alert.for-grace-period': string;
  'rules.alert.resend-delay': string;
  'alertmanager.notification-queue-capacity': number;
  'workflow.test-clock': boolean;
  'workflow.webhook.allow-private-targets': boolean;
  'workflow.retention': string;
  'workflow.cache-entries': number;
  'workflow.partitions': number;
  'log.level': 'debug' | 'info' | 'warn' | 'error';
  services: string[];
  'wal.segment-size': number;
  'indices.memory.index_buffer_size': string;
  'network.breaker.inflight_requests.limit': string;
  'indices.memory.segment_cache_size': string;
  'workers.young_generation_size': string;
  'wal.repair': boolean;
  'reindex.remote.whitelist': string[];
  'http.compression': boolean;
  daemonize: boolean;
  pidfile: string;
}

type Kind = 'string' | 'int' | 'bool' | 'list' | 'duration' | 'bytes' | 'level' | 'hostport' | 'hostpatterns';

interface Spec { kind: Kind; def: unknown; help: string }

export const FLAG_SPECS: Record<keyof Flags, Spec> = {
  'path.data': { kind: 'string', def: './data', help: 'data directory (also -E path.data=DIR)' },
  'http.port': { kind: 'int', def: 9200, help: 'documents API port' },
  'network.host': { kind: 'string', def: '127.0.0.1', help: 'documents API bind address' },
  'web.listen-address': { kind: 'hostport', def: '0.0.0.0:9090', help: 'metrics API listen address' },
  'workflow.port': { kind: 'int', def: 8080, help: 'workflow API port' },
  'web.config.file': { kind: 'string', def: '', help: 'exporter-toolkit web config (TLS, basic auth, headers) for the metrics API; read on every request' },
  'http.web-config.file': { kind: 'string', def: '', help: 'the same web config format for the documents API (401s in Elasticsearch security_exception form)' },
  'workflow.web-config.file': { kind: 'string', def: '', help: 'the same web config format for the workflow API' },
  workers: { kind: 'int', def: cpus().length, help: 'shard worker threads' },
  'config.file': { kind: 'string', def: '', help: 'Prometheus-style YAML config (default: built-in self-scrape)' },
  'web.enable-lifecycle': { kind: 'bool', def: false, help: 'enable /-/reload and /-/quit' },
  'web.enable-admin-api': { kind: 'bool', def: false, help: 'enable /api/v1/admin/tsdb/* (delete_series, clean_tombstones, snapshot)' },
  'web.enable-remote-write-receiver': { kind: 'bool', def: false, help: 'accept remote write at /api/v1/write (off by default, as in Prometheus)' },
  'storage.tsdb.path': { kind: 'string', def: '', help: 'TSDB directory (default <path.data>/tsdb)' },
  'storage.tsdb.retention.time': { kind: 'duration', def: '15d', help: 'how long to keep samples' },
  'storage.tsdb.retention.size': { kind: 'bytes', def: '0', help: 'maximum bytes of blocks (0 = off)' },
  'storage.tsdb.retention': { kind: 'duration', def: '15d', help: 'deprecated: use storage.tsdb.retention.time' },
  'storage.tsdb.wal-compression': { kind: 'bool', def: true, help: 'snappy-compress the WAL' },
  'storage.tsdb.min-block-duration': { kind: 'duration', def: '2h', help: 'block range' },
  'query.lookback-delta': { kind: 'duration', def: '5m', help: 'PromQL lookback delta' },
  'query.timeout': { kind: 'duration', def: '2m', help: 'PromQL query timeout' },
  'query.max-samples': { kind: 'int', def: 50_000_000, help: 'PromQL max samples in memory' },
  'query.max-concurrency': { kind: 'int', def: 20, help: 'PromQL queries evaluated at once; more wait for a slot' },
  'query.split-min-steps': { kind: 'int', def: 200, help: 'range queries of this many steps or more are evaluated as two halves on two query threads when no other query runs (0 = never)' },
  'web.cors.origin': { kind: 'string', def: '.*', help: 'regex (fully anchored) of origins allowed to call the metrics API from browsers, as Prometheus' },
  'web.external-url': { kind: 'string', def: '', help: 'URL under which Tessera is reachable (alert generator URLs; default http://<hostname>:<port>)' },
  'rules.alert.for-outage-tolerance': { kind: 'duration', def: '1h', help: 'max downtime for which alert for-state is restored' },
  'rules.alert.for-grace-period': { kind: 'duration', def: '10m', help: 'minimum wait between restored alert and firing' },
  'rules.alert.resend-delay': { kind: 'duration', def: '1m', help: 'minimum wait before resending an alert to Alertmanager' },
  'alertmanager.notification-queue-capacity': { kind: 'int', def: 10000, help: 'alerts queued for Alertmanager' },
  'workflow.test-clock': { kind: 'bool', def: false, help: 'enable the workflow test clock endpoints' },
  'workflow.webhook.allow-private-targets': { kind: 'bool', def: false, help: 'let webhook actions call loopback, private and link-local addresses' },
  'workflow.retention': { kind: 'duration', def: '30d', help: 'how long finished workflow runs and their action-log entries are kept' },
  'workflow.cache-entries': { kind: 'int', def: 2000, help: 'records kept in memory per workflow record space and partition (hot-contact cache)' },
  // One core is the HTTP thread's; the others are for engine threads. On 2 cores a second engine thread cost
  // about 45% more CPU per event (halved group commits; docs/benchmarks.md "Workflows at scale").
  'workflow.partitions': { kind: 'int', def: Math.max(1, cpus().length - 1), help: 'workflow engine threads for a new data directory (contacts are hashed over them; fixed once created); default: cores - 1, at least 1' },
  'log.level': { kind: 'level', def: 'info', help: 'debug, info, warn or error' },
  services: { kind: 'list', def: ['documents', 'metrics', 'workflow'], help: 'services to run' },
  'wal.segment-size': { kind: 'int', def: 128 * 1024 * 1024, help: 'WAL segment size in bytes' },
  'network.breaker.inflight_requests.limit': { kind: 'bytes', def: '512MB', help: 'request bodies held in memory at once, all APIs together; more are refused (ES 429 circuit_breaking_exception, Prometheus 503, workflow 429)' },
  'indices.memory.index_buffer_size': { kind: 'bytes', def: '128MB', help: 'documents indexed but not yet written to disk segments, whole node (split across workers)' },
  'indices.memory.segment_cache_size': { kind: 'bytes', def: '192MB', help: 'decoded segment data (term blocks, postings, doc values) kept in memory, whole node (split across workers)' },
  'workers.young_generation_size': { kind: 'bytes', def: '12MB', help: 'V8 young generation of each worker thread, shard workers and query threads (0: V8 default, up to 48MB): smaller holds less resident memory between collections and collects more often' },
  'wal.repair': { kind: 'bool', def: false, help: 'truncate a corrupt WAL at the damage instead of refusing to start' },
  'reindex.remote.whitelist': { kind: 'hostpatterns', def: [], help: 'host:port patterns _reindex may read from (as Elasticsearch; empty: no remote reindex)' },
  'http.compression': { kind: 'bool', def: true, help: 'gzip documents API replies for clients that accept it (Elasticsearch 6.8 default: on)' },
  daemonize: { kind: 'bool', def: false, help: '-d: run in the background' },
  pidfile: { kind: 'string', def: '', help: '-p FILE: write the pid file' },
};

const SERVICES = new Set(['documents', 'metrics', 'workflow']);

export function defaultFlags(): Flags {
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(FLAG_SPECS)) out[k] = Array.isArray(s.def) ? [...s.def] : s.def;
  return out as unknown as Flags;
}

/** Parses argv (without node and script). Returns the flags and the positional arguments. */
export function parseFlags(argv: readonly string[]): { flags: Flags; positional: string[]; explicit: Set<string> } {
  const flags = defaultFlags() as unknown as Record<string, unknown>;
  const explicit = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-d') { flags.daemonize = true; explicit.add('daemonize'); continue; }
    if (arg === '-p') { flags.pidfile = need(argv, ++i, '-p'); explicit.add('pidfile'); continue; }
    if (arg === '-E') {
      const kv = need(argv, ++i, '-E');
      const eq = kv.indexOf('=');
      if (eq < 0) throw new FlagError(`-E ${kv}: expected setting=value`);
      set(flags, explicit, kv.slice(0, eq), kv.slice(eq + 1), '-E');
      continue;
    }
    if (!arg.startsWith('--')) { positional.push(arg); continue; }
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) { value = name.slice(eq + 1); name = name.slice(0, eq); }
    if (!(name in FLAG_SPECS) && name.startsWith('no-') && FLAG_SPECS[name.slice(3) as keyof Flags]?.kind === 'bool' && value === undefined) {
      set(flags, explicit, name.slice(3), 'false', '--');
      continue;
    }
    const spec = FLAG_SPECS[name as keyof Flags];
    if (!spec) throw new FlagError(`unknown flag --${name}`);
    if (value === undefined) {
      if (spec.kind === 'bool' && (i + 1 >= argv.length || !/^(true|false)$/.test(argv[i + 1]))) value = 'true';
      else value = need(argv, ++i, `--${name}`);
    }
    set(flags, explicit, name, value, '--');
  }
  return { flags: flags as unknown as Flags, positional, explicit };
}

function need(argv: readonly string[], i: number, name: string): string {
  if (i >= argv.length) throw new FlagError(`flag ${name} needs a value`);
  return argv[i];
}

function set(flags: Record<string, unknown>, explicit: Set<string>, name: string, raw: string, prefix: string): void {
  const spec = FLAG_SPECS[name as keyof Flags];
  if (!spec) throw new FlagError(`unknown flag ${prefix === '-E' ? '-E ' : '--'}${name}`);
  const bad = (why: string): never => { throw new FlagError(`invalid value "${raw}" for flag --${name}: ${why}`); };
  switch (spec.kind) {
    case 'string': flags[name] = raw; break;
    case 'int': {
      if (!/^\d+$/.test(raw)) bad('expected a non-negative integer');
      const n = Number(raw);
      if ((name.endsWith('port') && n > 65535) || (name === 'workers' && n < 1)) bad('out of range');
      flags[name] = n;
      break;
    }
    case 'bool':
      if (raw !== 'true' && raw !== 'false') bad('expected true or false');
      flags[name] = raw === 'true';
      break;
    case 'list': {
      const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of items) if (!SERVICES.has(s)) bad(`unknown service ${s} (documents, metrics, workflow)`);
      if (!items.length) bad('empty list');
      flags[name] = items;
      break;
    }
    case 'hostpatterns': {
      const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
      for (const s of items) if (!/^[^\s:]+:[\d*]+$/.test(s)) bad(`expected HOST:PORT patterns (\`*\` allowed), got ${s}`);
      flags[name] = items;
      break;
    }
    case 'duration': if (parseDurationMsOrNull(raw) === null) bad('expected a duration like 15d or 1h30m'); flags[name] = raw; break;
    case 'bytes': if (parseBase2Bytes(raw) === null) bad('expected a size like 512MB or 1GiB'); flags[name] = raw; break;
    case 'level': if (!/^(debug|info|warn|error)$/.test(raw)) bad('expected debug, info, warn or error'); flags[name] = raw; break;
    case 'hostport': if (!/^[^\s]*:\d{1,5}$/.test(raw)) bad('expected HOST:PORT'); flags[name] = raw; break;
  }
  explicit.add(name);
}

/** The retention time in force: the deprecated flag wins when set to a non-default value, as Prometheus does. */
export function retentionTime(flags: Flags): string {
  const dep = flags['storage.tsdb.retention'];
  return dep !== FLAG_SPECS['storage.tsdb.retention'].def ? dep : flags['storage.tsdb.retention.time'];
}

/** A duration flag's value in ms (validated when the flags were parsed). */
export function durationMs(s: string): number {
  return parseDurationMs(s);
}

/** Parses a size flag (`512MB`, `1GiB`; base 1024 like Prometheus's units) into bytes; 0 = off. */
export function bytesOf(s: string): number {
  return parseBase2Bytes(s) ?? 0;
}
