/** Routes of the Prometheus-compatible API on the metrics port; each area registers its own file's routes. */
import type { ServerContext, ServiceHooks } from '../context.ts';
import { combineHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { registerLifecycleRoutes, type Lifecycle } from './lifecycle-routes.ts';
import { registerGraphRoutes } from './graph-routes.ts';
import { registerUiRoutes } from './ui-routes.ts';
import { registerQueryRoutes, type QueryEvaluator } from './query-routes.ts';
import { QueryGate } from './query-gate.ts';
import { registerRulesRoutes } from './rules-routes.ts';
import { registerScrapeRoutes } from './scrape-routes.ts';
import { TsdbClient } from './tsdb-client.ts';
import { registerTsdbRoutes } from './tsdb-routes.ts';
import { registerFederateRoutes } from './federate-routes.ts';
import { registerCors } from './cors.ts';
import { registerRemoteReadRoutes } from './remote-read-routes.ts';
import { RemoteReadStorage } from './remote-read-storage.ts';
import { ReloadStatus, registerReloadMetrics, trackReloads } from './reload-status.ts';

/**
 * Until start-up recovery (WAL replay, block loading) has finished, the API and `/federate` answer 503
 * `Service Unavailable` at once, as Prometheus's `testReady` wrapper does, instead of waiting on storage.
 */
export function guardUntilReady(router: Router, life: Pick<Lifecycle, 'isReady'>): void {
  const notReady = { status: 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Service Unavailable' };
  const check = (): typeof notReady | null => (life.isReady() ? null : notReady);
  router.guard('/api/', check).guard('/federate', check);
}

/** `evaluator`: the query threads, when the node started them already (server/main.ts); otherwise started here. */
export function registerMetricsRoutes(router: Router, ctx: ServerContext, life: Lifecycle, evaluator?: QueryEvaluator): ServiceHooks {
  const gate = new QueryGate(ctx.flags['query.max-concurrency']);
  registerLifecycleRoutes(router, ctx, life, () => gate.waiting > 0);
  guardUntilReady(router, life);
  registerCors(router, '/api/', ctx.flags['web.cors.origin']);
  registerGraphRoutes(router);
  registerUiRoutes(router);
  // One client for the whole metrics service: PromQL, scraping, rules and remote write append/read through it.
  const tsdb = new TsdbClient(ctx.pool);
  // PromQL reads the TSDB merged with the config's remote_read endpoints.
  const readStorage = new RemoteReadStorage(tsdb, (msg) => ctx.log.warn(msg));
  const query = registerQueryRoutes(router, ctx, readStorage, { gate, evaluator });
  const reloadStatus = new ReloadStatus();
  registerReloadMetrics(ctx, reloadStatus);
  const scrape = registerScrapeRoutes(router, ctx, tsdb, {
    selfAddress: life.selfAddress, reloadStatus,
    onConfig: (cfg) => readStorage.configure(cfg.remoteRead, cfg.global.externalLabels),
  });
  // Rule results and ALERTS go through the scrape path's sink, so remote write sends them with scraped data.
  const rulesStorage = { append: scrape.sink.append, select: tsdb.select.bind(tsdb) };
  registerFederateRoutes(router, ctx, tsdb, scrape.externalLabels);
  registerRemoteReadRoutes(router, ctx, tsdb, scrape.externalLabels);
  // Order matters: storage opens first and closes last; scraping (and push, remote write) feed it.
  return trackReloads(ctx, combineHooks(
    registerTsdbRoutes(router, ctx, tsdb),
    query,
    scrape,
    registerRulesRoutes(router, ctx, rulesStorage),
  ), reloadStatus);
}
