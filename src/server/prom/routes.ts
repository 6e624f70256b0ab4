/** Routes of the Prometheus-compatible API on the metrics port; each area registers its own file's routes. */
import type { ServerContext, ServiceHooks } from '../context.ts';
import type { Router } from '../router.ts';
import { registerLifecycleRoutes, type Lifecycle } from './lifecycle-routes.ts';
import { registerQueryRoutes } from './query-routes.ts';
import { registerRulesRoutes } from './rules-routes.ts';
import { TsdbClient } from './tsdb-client.ts';
import { registerTsdbRoutes } from './tsdb-routes.ts';

export function registerMetricsRoutes(router: Router, ctx: ServerContext, life: Lifecycle): ServiceHooks {
  registerLifecycleRoutes(router, ctx, life);
  // One client for the whole metrics service: queries, rules, scraping and remote write append/read through it.
  const tsdb = new TsdbClient(ctx.pool);
  const storage = registerTsdbRoutes(router, ctx, tsdb);
  registerQueryRoutes(router, ctx, tsdb);
  const rules = registerRulesRoutes(router, ctx, tsdb);
  return combineHooks([storage, rules]);
}

/** Starts in order (storage first, so rules see recovered data) and stops in reverse. */
function combineHooks(list: ServiceHooks[]): ServiceHooks {
  return {
    async start() { for (const h of list) await h.start?.(); },
    async reload() { for (const h of list) await h.reload?.(); },
    async stop() { for (const h of [...list].reverse()) await h.stop?.(); },
  };
}
