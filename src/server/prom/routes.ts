/** Routes of the Prometheus-compatible API on the metrics port; each area registers its own file's routes. */
import type { ServerContext, ServiceHooks } from '../context.ts';
import { combineHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { registerLifecycleRoutes, type Lifecycle } from './lifecycle-routes.ts';
import { registerGraphRoutes } from './graph-routes.ts';
import { registerQueryRoutes } from './query-routes.ts';
import { QueryGate } from './query-gate.ts';
import { registerRulesRoutes } from './rules-routes.ts';
import { registerScrapeRoutes } from './scrape-routes.ts';
import { TsdbClient } from './tsdb-client.ts';
import { registerTsdbRoutes } from './tsdb-routes.ts';

export function registerMetricsRoutes(router: Router, ctx: ServerContext, life: Lifecycle): ServiceHooks {
  const gate = new QueryGate(ctx.flags['query.max-concurrency']);
  registerLifecycleRoutes(router, ctx, life, () => gate.waiting > 0);
  registerGraphRoutes(router);
  // One client for the whole metrics service: PromQL, scraping, rules and remote write append/read through it.
  const tsdb = new TsdbClient(ctx.pool);
  const query = registerQueryRoutes(router, ctx, tsdb, { gate });
  // Order matters: storage opens first and closes last; scraping (and push, remote write) feed it.
  return combineHooks(
    registerTsdbRoutes(router, ctx, tsdb),
    query,
    registerScrapeRoutes(router, ctx, tsdb, { selfAddress: life.selfAddress }),
    registerRulesRoutes(router, ctx, tsdb),
  );
}
