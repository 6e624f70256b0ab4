/**
 * A node once its threads are starting (main.ts): takes the data-directory lock, opens the listeners of the
 * enabled services, runs their start-up recovery, and then reports ready. `stop()` is the graceful path used by
 * SIGTERM/SIGINT and `/-/quit`: stop accepting, answer what is in flight, flush and fsync, stop the workers,
 * release the lock.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { bytesOf, type Flags } from './flags.ts';
import type { ServerContext, ServiceHooks } from './context.ts';
import type { QueryPool, ShardPool } from './pool.ts';
import { SelfMetrics } from './self-metrics.ts';
import type { Logger } from '../runtime/logger.ts';
import { acquireLock } from './lock-file.ts';
import { startHttpServer, type HttpServer, type InFlightBudget } from './http.ts';
import { listenerWebConfig, type ListenerWebConfig } from './web-listener.ts';
import type { GateEnvelopes } from './web-gate.ts';
import { ParseError } from '../engine/errors.ts';
import { startIdleGc } from '../runtime/idle-gc.ts';
import { holdAllocatorThresholds } from '../runtime/malloc-trim.ts';
import { Router } from './router.ts';
import { dispatcher, type ApiFallbacks, type RequestMetrics } from './dispatch.ts';
import { registerProcessMetrics } from './process-metrics.ts';
import { esFallbacks, esGate, esOverloaded, esTooLarge } from './es/fallbacks.ts';
import { promFallbacks, promGate, promOverloaded, promTooLarge } from './prom/fallbacks.ts';
import { workflowFallbacks, workflowGate, workflowOverloaded, workflowTooLarge } from './workflow/fallbacks.ts';

const MB = 1024 * 1024;

export interface Tessera {
  readonly ports: { documents?: number; metrics?: number; workflow?: number };
  readonly dataDir: string;
  reload(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves when a stop (signal, `/-/quit`, or `stop()`) has completed. */
  readonly stopped: Promise<void>;
}

/** The threads main.ts started: the shard workers, and the query threads when the metrics service is on. */
export interface NodeThreads { pool: ShardPool; queries: QueryPool | null }

/** Starts the node on threads already starting; on failure the caller closes them. */
export async function startNode(flags: Flags, log: Logger, { pool, queries }: NodeThreads): Promise<Tessera> {
  const services = new Set(flags.services);
  // Web config files are checked before the lock is taken or anything listens, so a bad one fails start-up at once
  // (exit 2; main.ts closes the threads it started).
  const webOf = (service: string, flag: 'web.config.file' | 'http.web-config.file' | 'workflow.web-config.file', gate: GateEnvelopes): ListenerWebConfig =>
    (services.has(service) ? listenerWebConfig(flags[flag], gate, log) : {});
  const esWeb = webOf('documents', 'http.web-config.file', esGate);
  const promWeb = webOf('metrics', 'web.config.file', promGate);
  const flowWeb = webOf('workflow', 'workflow.web-config.file', workflowGate);
  const dataDir = resolve(flags['path.data']);
  mkdirSync(dataDir, { recursive: true });
  const lock = acquireLock(dataDir);
  const metrics = new SelfMetrics();
  const reqMetrics: RequestMetrics = {
    requests: metrics.counter('tessera_http_requests_total', 'HTTP requests by API, route and status code.', ['api', 'route', 'code']),
    latency: metrics.histogram('tessera_http_request_duration_seconds', 'HTTP request latency by API and route.', ['api', 'route']),
  };
  registerProcessMetrics(metrics, pool);
  // Tessera's lock covers the whole data directory, the TSDB's included: Prometheus's lockfile states, without
  // its -1 (no lockfile), since this lock cannot be turned off.
  if (services.has('metrics')) {
    metrics.gauge('prometheus_tsdb_clean_start', '-1: lockfile is disabled. 0: a lockfile from a previous execution was replaced. 1: lockfile creation was clean', [], () => [[[], lock.clean ? 1 : 0]]);
  }
  const ctx: ServerContext = { flags, dataDir, pool, log, metrics, now: () => Date.now() };

  const hooks: ServiceHooks[] = [];
  const servers: HttpServer[] = [];
  const ports: Tessera['ports'] = {};
  let ready = false;
  let stopping: Promise<void> | null = null;
  let markStopped!: () => void;
  const stopped = new Promise<void>((r) => { markStopped = r; });

  // Half the default growth: since scrapes read straight into kept buffers, a 100k-series scrape leaves ~3 MB
  // of ArrayBuffers here instead of ~11, and at 16 MB the collections (and the malloc trims after them) came
  // so rarely that freed memory stayed resident: RssAnon 261-281 MB against 206-258 at 8 MB, at the same CPU
  // (loadtest/scrape-ingest.ts 10 100000, docs/benchmarks.md).
  const idleGc = startIdleGc(undefined, 8 * 1024 * 1024);
  // One budget for the request bodies of every listener: memory is the node's, whichever API fills it.
  const inFlightBudget: InFlightBudget = { limitBytes: bytesOf(flags['network.breaker.inflight_requests.limit']), usedBytes: 0 };
  const listen = async (api: string, host: string, port: number, maxBodyBytes: number, router: Router,
    fallbacks: ApiFallbacks, tooLarge: typeof esTooLarge, overloaded: typeof esOverloaded, web: ListenerWebConfig): Promise<number> => {
    const handle = dispatcher(api, router, fallbacks, api === 'metrics' ? { ...reqMetrics, byHandler: promHttpMetrics(metrics) } : reqMetrics);
    const server = await startHttpServer({
      host, port, maxBodyBytes, tooLarge, overloaded, inFlightBudget, compressResponses: api === 'documents' && flags['http.compression'], internalError: (err) => fallbacks.error(err, null as never),
      badBody: (reason) => fallbacks.error(ParseError.of('PARSE', [reason]), null as never),
      handler: (req) => { idleGc.busy(); return handle(req); },
      tls: web.tls, admit: web.gate ? (req) => web.gate!.admit(req) : undefined,
    });
    servers.push(server);
    log.info('listening', { api, address: `${host}:${server.port}`, tls: web.tls !== undefined });
    return server.port;
  };

  const reload = async (): Promise<void> => {
    for (const h of hooks) await h.reload?.();
    log.info('configuration reloaded');
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      log.info('shutting down');
      // Reads in the workers stop now rather than hold the drain below (Prometheus exits without waiting for queries).
      pool.stopReads();
      for (const h of hooks) {
        try { h.stopping?.(); } catch (err) { log.error('service stopping failed', { err }); }
      }
      await Promise.all(servers.map((s) => s.close()));
      for (const h of [...hooks].reverse()) {
        try { await h.stop?.(); } catch (err) { log.error('service stop failed', { err }); }
      }
      await pool.close();
      lock.release();
      log.info('stopped');
      markStopped();
    })();
    return stopping;
  };

  try {
    // Each service's routes (and the engine code behind them) are loaded only when the service is on: a
    // metrics-only node does not hold the documents and workflow modules (~4 MB of main-thread heap).
    if (services.has('documents')) {
      const { registerEsRoutes } = await import('./es/routes.ts');
      const router = new Router();
      hooks.push(registerEsRoutes(router, ctx));
      ports.documents = await listen('documents', flags['network.host'], flags['http.port'], 100 * MB, router, esFallbacks, esTooLarge, esOverloaded, esWeb);
    }
    if (services.has('metrics')) {
      const { registerMetricsRoutes } = await import('./prom/routes.ts');
      const router = new Router();
      const [host, port] = splitHostPort(flags['web.listen-address']);
      const selfHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      hooks.push(registerMetricsRoutes(router, ctx, {
        isReady: () => ready, reload, quit: () => { void stop(); }, selfAddress: () => `${selfHost}:${ports.metrics ?? port}`,
      }, queries ?? undefined));
      ports.metrics = await listen('metrics', host, port, 100 * MB, router, promFallbacks, promTooLarge, promOverloaded, promWeb);
    }
    if (services.has('workflow')) {
      const { registerWorkflowRoutes } = await import('./workflow/routes.ts');
      const router = new Router();
      hooks.push(registerWorkflowRoutes(router, ctx));
      ports.workflow = await listen('workflow', flags['network.host'], flags['workflow.port'], 1 * MB, router, workflowFallbacks, workflowTooLarge, workflowOverloaded, flowWeb);
    }
    for (const h of hooks) await h.start?.();
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    lock.release();
    throw err;
  }
  ready = true;
  log.info('ready', { ports });
  // Once ready, not at the start: loading the FFI for it takes ~13 ms of the main thread.
  holdAllocatorThresholds();
  return { ports, dataDir, reload, stop, stopped };
}

function splitHostPort(addr: string): [string, number] {
  const i = addr.lastIndexOf(':');
  const host = addr.slice(0, i).replace(/^\[|\]$/g, '');
  return [host === '' ? '0.0.0.0' : host, Number(addr.slice(i + 1))];
}

/** Prometheus's HTTP families for the metrics API (its bucket layout), so its dashboards find them. */
function promHttpMetrics(metrics: SelfMetrics): NonNullable<RequestMetrics['byHandler']> {
  return {
    requests: metrics.counter('prometheus_http_requests_total', 'Counter of HTTP requests.', ['code', 'handler']),
    latency: metrics.histogram('prometheus_http_request_duration_seconds', 'Histogram of latencies for HTTP requests.', ['handler'],
      [0.1, 0.2, 0.4, 1, 3, 8, 20, 60, 120]),
    size: metrics.histogram('prometheus_http_response_size_bytes', 'Histogram of response size for HTTP requests.', ['handler'],
      [100, 1000, 10_000, 100_000, 1e6, 1e7, 1e8, 1e9]),
  };
}
