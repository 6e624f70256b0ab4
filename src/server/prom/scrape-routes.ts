/**
 * The ingestion side of the metrics service: the scrape manager driven by `--config.file` (or the built-in
 * config that scrapes Tessera's own `/metrics` and `/pushgateway/metrics`), remote-write sending, and
 * the routes that expose them: targets, metadata, config/flags/runtime/build status, the push gateway
 * and the remote-write receiver (see push-routes.ts and remote-write-routes.ts).
 *
 * Every ingested sample (scraped, or received by remote write) goes through one sink that appends it to
 * the TSDB and hands it to the remote-write queues.
 */
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Label } from '../../engine/tsdb/api.ts';
import type { Router } from '../router.ts';
import { FLAG_SPECS, retentionTime } from '../flags.ts';
import { promError, promSuccess } from './respond.ts';
import { defaultConfig, loadConfig, type PromConfig } from '../../engine/scrape/config.ts';
import { ScrapeManager } from '../../engine/scrape/scrape-manager.ts';
import { httpGet } from '../../engine/scrape/http-get.ts';
import { fetchPost, RemoteWriteQueue } from '../../engine/remote/remote-write-queue.ts';
import type { IngestSample, SampleSink } from '../../engine/scrape/sample-sink.ts';
import type { SampleColumns } from '../../engine/scrape/sample-columns.ts';
import { DecodedLabels } from '../../engine/scrape/decoded-labels.ts';
import { metadataBody, rfc3339, targetMetadataBody, targetsBody } from './targets-api.ts';
import { registerPushRoutes } from './push-routes.ts';
import { registerRemoteWriteRoutes } from './remote-write-routes.ts';
import { ReloadStatus, trackReloads } from './reload-status.ts';
import { RemoteWriteMetrics } from './remote-write-metrics.ts';
import { registerScrapeMetrics } from './scrape-metrics.ts';

/** The TSDB as ingestion sees it; `reloadBlocks` lets a reload serve blocks imported since start. */
export interface IngestStorage extends SampleSink {
  reloadBlocks?(): Promise<void>;
}

export interface ScrapeRouteOptions {
  /** `host:port` where this server's metrics API can be reached (for the built-in self-scrape config). */
  selfAddress?: () => string;
  /** Shared with the other reloadable parts of the metrics service (runtimeinfo reports it). */
  reloadStatus?: ReloadStatus;
  /** Called with each config applied (start and reload), for the parts configured from the same file. */
  onConfig?: (cfg: PromConfig) => void;
}

/**
 * The hooks; the sink every ingested sample goes through (TSDB + remote write), for the rules to write to;
 * and the external labels of the config in force (federation and remote read add or filter them).
 */
export type ScrapeService = ServiceHooks & { sink: SampleSink; externalLabels(): Label[] };

const PKG_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * `version` is the Prometheus release whose API is served: clients such as Grafana gate features on it.
 * The other fields describe Tessera itself.
 */
export const BUILD_INFO = {
  version: '2.42.0', revision: `tessera-${PKG_VERSION}`, branch: 'tessera', buildUser: '', buildDate: '', goVersion: `node ${process.version}`,
};

export function registerScrapeRoutes(router: Router, ctx: ServerContext, client: IngestStorage, opts: ScrapeRouteOptions = {}): ScrapeService {
  const startTimeMs = ctx.now();
  const remote = new RemoteWriteMetrics();
  remote.register(ctx.metrics);
  const status = opts.reloadStatus ?? new ReloadStatus();
  const decoded = new DecodedLabels();
  const sink: SampleSink = {
    append(samples: IngestSample[]) {
      remote.observeIn(samples);
      for (const q of remote.queues) q.enqueue(samples);
      return client.append(samples);
    },
    // Scrapes arrive in columns; they take the object form only for the remote write queues that need it.
    appendColumns(columns: SampleColumns) {
      if (remote.queues.length > 0 || !client.appendColumns) {
        const samples = decoded.samples(columns);
        remote.observeIn(samples);
        for (const q of remote.queues) q.enqueue(samples);
        if (!client.appendColumns) return client.append(samples);
      }
      return client.appendColumns(columns);
    },
  };
  // The metrics read the manager (created next, with their observer) only when /metrics is scraped.
  const observer = registerScrapeMetrics(ctx.metrics, () => manager, BUILD_INFO);
  const manager = new ScrapeManager({
    sink, now: () => ctx.now(), get: httpGet, jitterSeed: hostname(),
    onError: (msg) => ctx.log.warn(msg), observer,
  });

  const readConfig = async (): Promise<PromConfig> => {
    const file = ctx.flags['config.file'];
    if (file === '') return defaultConfig(selfAddress(ctx, opts));
    let text: string;
    try { text = await readFile(file, 'utf8'); } catch (e) { throw new Error(`couldn't load configuration (--config.file="${file}"): ${(e as Error).message}`); }
    return loadConfig(text, file);
  };

  const applyConfig = async (): Promise<void> => {
    const cfg = await readConfig();
    const old = remote.queues;
    remote.queues = cfg.remoteWrite.map((rw) => new RemoteWriteQueue(rw, cfg.global.externalLabels, fetchPost,
      (msg) => ctx.log.warn(msg), remote.statsFor(rw)));
    await manager.apply(cfg);
    opts.onConfig?.(cfg);
    await Promise.all(old.map((q) => q.stop(5000)));
  };

  router.add(['GET', 'POST'], '/api/v1/targets', (req) => promSuccess(targetsBody(manager, req.query.get('state') ?? '', req.query.get('scrapePool') ?? '')));
  router.add('GET', '/api/v1/targets/metadata', (req) => {
    const limit = intParam(req.query.get('limit'));
    if (limit === null) return promError('bad_data', 'limit must be a number');
    return promSuccess(targetMetadataBody(manager, req.query.get('match_target') ?? '', req.query.get('metric') ?? '', limit));
  });
  router.add('GET', '/api/v1/metadata', (req) => {
    const limit = intParam(req.query.get('limit'));
    if (limit === null) return promError('bad_data', 'limit must be a number');
    return promSuccess(metadataBody(manager, req.query.get('metric') ?? '', limit));
  });
  router.add('GET', '/api/v1/scrape_pools', () => promSuccess({ scrapePools: manager.snapshot().map((p) => p.name).sort() }));
  router.add('GET', '/api/v1/status/config', () => promSuccess({ yaml: manager.config?.yaml ?? '' }));
  router.add('GET', '/api/v1/status/flags', () => promSuccess(flagsBody(ctx)));
  router.add('GET', '/api/v1/status/runtimeinfo', () => promSuccess({
    startTime: rfc3339(startTimeMs), CWD: process.cwd(), reloadConfigSuccess: status.success, lastConfigTime: rfc3339(status.lastSuccessMs),
    corruptionCount: 0, goroutineCount: process.getActiveResourcesInfo().length, GOMAXPROCS: ctx.flags.workers,
    GOGC: '', GODEBUG: '', storageRetention: storageRetention(ctx),
  }));
  router.add('GET', '/api/v1/status/buildinfo', () => promSuccess(BUILD_INFO));
  const push = registerPushRoutes(router, ctx);
  registerRemoteWriteRoutes(router, sink, ctx.flags['web.enable-remote-write-receiver'], () => ctx.now());

  const hooks: ServiceHooks = {
    async start() {
      await push.start();
      await applyConfig();
    },
    async reload() {
      // Blocks written by `tessera tsdb create-blocks-from … <tsdb path>` since start are served from now on.
      await client.reloadBlocks?.();
      await applyConfig();
    },
    async stop() {
      await manager.stop();
      await Promise.all(remote.queues.map((q) => q.stop(5000)));
      await push.stop();
    },
  };
  // Used alone (tests), this module records its own reload outcome; in the server, routes.ts tracks all parts.
  const externalLabels = (): Label[] => manager.config?.global.externalLabels ?? [];
  return { ...(opts.reloadStatus ? hooks : trackReloads(ctx, hooks, status)), sink, externalLabels };
}

function selfAddress(ctx: ServerContext, opts: ScrapeRouteOptions): string {
  if (opts.selfAddress) return opts.selfAddress();
  const addr = ctx.flags['web.listen-address'];
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i);
  return `${host === '' || host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${addr.slice(i + 1)}`;
}

function intParam(s: string | null): number | null {
  if (s === null || s === '') return -1;
  const n = Number(s);
  return Number.isInteger(n) ? n : null;
}

/** Every flag as a string, like Prometheus's `/status/flags`. */
function flagsBody(ctx: ServerContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(FLAG_SPECS).sort()) {
    const v = (ctx.flags as unknown as Record<string, unknown>)[name];
    out[name] = Array.isArray(v) ? v.join(',') : String(v);
  }
  return out;
}

/** `15d`, or `15d or 512MB` when a size limit is set, as Prometheus's runtimeinfo shows it. */
function storageRetention(ctx: ServerContext): string {
  const time = retentionTime(ctx.flags);
  const size = ctx.flags['storage.tsdb.retention.size'];
  return size === '0' || size === '0B' ? time : `${time} or ${size}`;
}
